"""The agent profile of a project (cinch-rs): per model, moving averages of the tokens and the cost of one round (a
model call), how often each tool was used, and the person's standing instructions for the project. Kept in
agentui's state directory (Claude Code's files have no place for it), updated when a run ends."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from agentui.core.dirs import state_dir
from agentui.core.errors import AgentuiError
from agentui.core.events import AgentEnd, Event, ToolStart, UsageUpdate

log = logging.getLogger(__name__)

WEIGHT = 0.2
"""How much the newest round moves an average (an exponential moving average: recent rounds count most)."""
MAX_INSTRUCTIONS = 2000
"""Standing instructions are a few lines; the memory files are the place for more."""


class ProfileError(AgentuiError):
    """The profile could not be read or written (one sentence)."""


class ModelObservation(BaseModel):
    rounds: int = 0
    tokens_per_round: float = 0.0
    cost_per_round: float = 0.0

    def observe(self, tokens: int, cost: float) -> None:
        weight = 1.0 if self.rounds == 0 else WEIGHT
        self.tokens_per_round += weight * (tokens - self.tokens_per_round)
        self.cost_per_round += weight * (cost - self.cost_per_round)
        self.rounds += 1


class Profile(BaseModel):
    model_config = ConfigDict(extra="ignore")

    instructions: str = ""
    """The person's standing instructions for this project: in the system prompt's stable part."""
    models: dict[str, ModelObservation] = Field(default_factory=dict)
    tools: dict[str, int] = Field(default_factory=dict)
    """Calls of each tool, by its name (what the tool filter ranks past use by)."""

    def cost_per_round(self, model: str) -> float | None:
        seen = self.models.get(model)
        return seen.cost_per_round if seen is not None and seen.rounds and seen.cost_per_round > 0 else None


def profile_path(root: Path, env: Mapping[str, str] | None = None) -> Path:
    from agentui.core.session.paths import project_key

    # (a mapping that names no state directory leaves it to the process's environment, not to the platform's default)
    merged = os.environ if env is None else {**os.environ, **env}
    return state_dir(merged) / "projects" / project_key(root) / "profile.json"


def load_profile(root: Path, env: Mapping[str, str] | None = None) -> Profile:
    """The project's profile; an empty one when there is none or it cannot be read (it is only a help)."""
    from agentui.core.jsonfile import read_json_model

    try:
        found = read_json_model(
            profile_path(root, env), Profile, name="The agent profile", error=ProfileError, advice="delete it"
        )
    except ProfileError as exc:
        log.warning("%s", exc)
        return Profile()
    return found or Profile()


def save_profile(root: Path, profile: Profile, env: Mapping[str, str] | None = None) -> None:
    """Write the profile whole (atomically). Raises ProfileError with one sentence when it cannot be written."""
    from agentui.core.atomic_write import atomic_write

    path = profile_path(root, env)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path.parent.resolve() / path.name, (json.dumps(profile.model_dump(), indent=2) + "\n").encode())
    except OSError as exc:
        raise ProfileError(f"The agent profile {path} could not be written ({exc.strerror or exc}).") from None


def change_profile(root: Path, change: Callable[[Profile], None], env: Mapping[str, str] | None = None) -> Profile:
    """Read the profile, `change` it and write it back, holding the lock beside it so that two sessions of the
    project ending runs at once both count. Raises ProfileError with one sentence when it cannot be written."""
    from agentui.core.file_lock import LockBusyError, locked

    path = profile_path(root, env)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with locked(path.parent):  # (the project's state directory: nothing more is left in it)
            profile = load_profile(root, env)
            change(profile)
            save_profile(root, profile, env)
    except LockBusyError as exc:
        raise ProfileError(str(exc)) from None
    except OSError as exc:
        raise ProfileError(f"The agent profile {path} could not be written ({exc.strerror or exc}).") from None
    return profile


def set_standing_instructions(root: Path, text: str, env: Mapping[str, str] | None = None) -> Profile:
    """Keep `text` ("" forgets them) as the project's standing instructions; the profile as saved."""
    text = text.strip()
    if len(text) > MAX_INSTRUCTIONS:
        raise ProfileError(f"Standing instructions are at most {MAX_INSTRUCTIONS} characters; put more in CLAUDE.md.")

    def instruct(profile: Profile) -> None:
        profile.instructions = text

    return change_profile(root, instruct, env)


class ProfileKeeper:
    """A bus listener: the rounds and tool calls of a run, folded into the saved profile when the run ends."""

    def __init__(self, root: Path, session_id: str, env: Mapping[str, str] | None = None) -> None:
        self.root, self.env, self._session_id = root, env, session_id
        self.profile = load_profile(root, env)
        self._rounds: list[tuple[str, int, float]] = []
        self._tools: list[str] = []

    def cost_per_round(self, model: str) -> float | None:
        return self.profile.cost_per_round(model)

    def __call__(self, event: Event) -> None:
        if event.loop_id is not None:
            return
        match event:
            case UsageUpdate(model=str() as model):
                self._rounds.append((model, event.usage.total_tokens, event.call_cost_usd))
            case ToolStart():
                self._tools.append(event.name)
            case AgentEnd() if event.session_id == self._session_id:
                self._fold()
            case _:
                pass

    def _fold(self) -> None:
        if not self._rounds and not self._tools:
            return
        rounds, tools, self._rounds, self._tools = self._rounds, self._tools, [], []

        def observe(profile: Profile) -> None:  # (on the profile as saved: another session may have saved since)
            for model, tokens, cost in rounds:
                profile.models.setdefault(model, ModelObservation()).observe(tokens, cost)
            for name in tools:
                profile.tools[name] = profile.tools.get(name, 0) + 1

        try:
            self.profile = change_profile(self.root, observe, self.env)
        except ProfileError as exc:
            log.warning("%s", exc)
