"""Rewind: back to before one of the person's prompts — the files agentui (or Claude Code) changed since, from the
session's file history and, for what Bash changed, the work tree's snapshots, and the conversation, which goes on from
there on a new branch of the same session file (the tree Claude Code writes for a rewind; readers follow the newest
branch)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agentui.core.errors import AgentuiError
from agentui.core.messages import is_reminder
from agentui.core.session.file_history import (
    FileChange,
    RestoreError,
    file_history_dir,
    restore,
    restore_plan,
    tracked_since,
)
from agentui.core.session.reader import branch_of, read_lines
from agentui.core.session.shell_snapshots import ShellSnapshots, SnapshotError, where

if TYPE_CHECKING:
    from agentui.core.loop.agent import Agent
    from agentui.core.project import Project
    from agentui.core.session.store import OpenSession


class Rewindable(Protocol):
    """What a rewind reads and rewrites of the conversation it goes back in."""

    session: OpenSession
    agent: Agent
    project: Project
    env: Mapping[str, str] | None
    restored_at: float
    """When a rewind last wrote files (what it wrote is agentui's doing, not someone else's)."""

    @property
    def session_id(self) -> str: ...

    @property
    def running(self) -> bool:
        """A turn or parallel attempts are running (the agent alone is idle while its attempts run)."""
        ...

    @property
    def root(self) -> Path: ...


class RewindError(AgentuiError):
    """A rewind that cannot be done, in one sentence; nothing was changed."""


class ChangedOutside(RewindError):
    """Files someone else changed since agentui last did anything; the rewind overwrites them only when told to."""

    def __init__(self, paths: list[Path]) -> None:
        self.paths = paths
        names = ", ".join(path.name for path in paths)
        super().__init__(f"{names} changed outside agentui since, so nothing was restored.")


@dataclass(frozen=True)
class RewindRequest:
    """What a front end asks to rewind: to before the prompt `to`, its files (`code`), the conversation, and
    whether files changed outside agentui since may be overwritten."""

    to: str
    code: bool = True
    conversation: bool = True
    overwrite: bool = False


@dataclass(frozen=True)
class PromptPoint:
    """A prompt the conversation can be rewound to."""

    uuid: str
    text: str


@dataclass
class Restore:
    """What restoring the files to before a prompt would do."""

    changes: list[FileChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What it leaves alone, and why."""

    @property
    def outside(self) -> list[FileChange]:
        """Changes to files someone else changed since agentui last did anything: confirm before overwriting."""
        return [change for change in self.changes if change.outside]


@dataclass
class Rewound:
    prompt: str
    """The prompt gone back to (a front end puts it back in the input)."""
    changes: list[FileChange] = field(default_factory=list)
    """The files restored."""
    notes: list[str] = field(default_factory=list)
    tool_details: dict[str, dict[str, Any]] = field(default_factory=dict)
    """With the conversation rewound: each tool call's recorded details, for drawing it again as it now is."""


def prompt_points(entries: list[dict[str, Any]]) -> list[PromptPoint]:
    """The person's typed prompts among a branch's lines, oldest first."""
    points = []
    for entry in entries:
        message = entry.get("message") or {}
        content = _typed(message.get("content") if isinstance(message, dict) else None)
        if (
            entry.get("type") == "user"
            and isinstance(content, str)
            and isinstance(entry.get("uuid"), str)
            and not entry.get("isMeta")
            and not entry.get("isCompactSummary")
            and not content.startswith(("<bash-input>", "<command-name>", "<local-command"))
        ):
            points.append(PromptPoint(entry["uuid"], content))
    return points


def _typed(content: Any) -> Any:
    """A prompt's text as typed: of content in blocks (an image, plan mode's reminder, a hook's context beside it),
    its first text that is not a note for the model; None for tool results."""
    if not isinstance(content, list):
        return content
    if any(isinstance(block, dict) and block.get("type") == "tool_result" for block in content):
        return None
    texts = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    return next((text for text in texts if isinstance(text, str) and not is_reminder(text)), None)


def branch_prompts(conversation: Rewindable) -> list[PromptPoint]:
    writer = conversation.session.writer
    if writer.last_uuid is None or not writer.path.exists():
        return []
    return _branch_prompts(conversation, _read(conversation))


def _branch_prompts(conversation: Rewindable, read: Read) -> list[PromptPoint]:
    writer = conversation.session.writer
    return prompt_points(branch_of(writer.path, read, writer.last_uuid).chain) if writer.last_uuid else []


def changes_since(conversation: Rewindable, to: str) -> Restore:
    entries = _read(conversation)[0]
    return _plan(conversation, entries, _prompt(entries, to))


def rewind(
    conversation: Rewindable, to: str, *, code: bool = True, history: bool = True, overwrite: bool = False
) -> Rewound:
    """Back to before the prompt whose line is `to`: its files (`code`) and the conversation (`history`). Files
    changed outside agentui since are overwritten only with `overwrite`."""
    if conversation.running:
        raise RewindError("A turn is running; stop it (Esc) before rewinding.")
    writer = conversation.session.writer
    read = _read(conversation)  # (once: a long session's file is read for the prompt, the branch and the messages)
    entries = read[0]
    prompt = _prompt(entries, to)
    if history and to not in {point.uuid for point in _branch_prompts(conversation, read)}:
        raise RewindError(
            "That prompt is from before the conversation was compacted (or on a branch it left), so only its files "
            "can be restored."
        )
    rewound = Rewound(str(_typed((prompt.get("message") or {}).get("content")) or ""))
    if code:
        plan = _plan(conversation, entries, prompt)
        if plan.outside and not overwrite:
            raise ChangedOutside([change.path for change in plan.outside])
        try:
            restore(plan.changes)
        except OSError as exc:
            raise RewindError(f"Restoring the files stopped part way ({exc.strerror or exc}).") from None
        conversation.restored_at = time.time()
        rewound.changes, rewound.notes = plan.changes, plan.notes
    if history:
        parent = prompt.get("parentUuid")
        loaded = branch_of(writer.path, read, parent) if isinstance(parent, str) else None
        messages = loaded.messages if loaded is not None else []
        rewound.tool_details = loaded.tool_details if loaded is not None else {}
        conversation.agent.history.replace(messages)
        conversation.project.workspace.tasks.rebuild(messages)  # (the task list as it stood then)
        writer.rewound_to(parent if isinstance(parent, str) else None)
    return rewound


Read = tuple[list[dict[str, Any]], int, int]
"""A session file's lines, as `read_lines` returns them."""


def _read(conversation: Rewindable) -> Read:
    try:
        return read_lines(conversation.session.writer.path)
    except OSError as exc:
        raise RewindError(f"The session file cannot be read ({exc.strerror or exc}).") from None


def _prompt(entries: list[dict[str, Any]], to: str) -> dict[str, Any]:
    prompt = next((entry for entry in entries if entry.get("uuid") == to and entry.get("type") == "user"), None)
    if prompt is None:
        raise RewindError("That prompt is not in this session.")
    return prompt


def _plan(conversation: Rewindable, entries: list[dict[str, Any]], prompt: dict[str, Any]) -> Restore:
    """The file history restores the files its tools changed; the first work-tree snapshot taken since the prompt
    restores what Bash changed, except files the file history held from before that snapshot."""
    directory = file_history_dir(conversation.session_id, conversation.env)
    root = Path(conversation.root)
    try:
        changes = restore_plan(entries, prompt["uuid"], root, directory)
        tracked = tracked_since(entries, prompt["uuid"], root)
    except RestoreError as exc:
        raise RewindError(str(exc)) from None
    plan = Restore(changes)
    try:
        shell = ShellSnapshots.find(root, conversation.session_id)
        snapshot = shell.since(str(prompt.get("timestamp", ""))) if shell is not None else None
        if shell is not None and snapshot is not None:
            leave = [path for path, backed_up in tracked.items() if backed_up <= snapshot.time]
            by_bash = shell.restore_plan(snapshot, leave)
            replaced = {where(change.path) for change in by_bash.changes}
            plan = Restore(
                [change for change in changes if where(change.path) not in replaced] + by_bash.changes,
                by_bash.notes,
            )
    except SnapshotError as exc:
        raise RewindError(f"The work tree's snapshots cannot be read: {exc}") from None
    # (+1 ms: the session's timestamps are whole milliseconds, so agentui's own last write can look a fraction of
    # one later than the line recorded after it)
    since = max(_seconds(entries) + 0.001, conversation.restored_at)
    plan.changes = [
        replace(change, outside=True) if change.now is not None and _modified(change.path) > since else change
        for change in plan.changes
    ]
    return plan


def _seconds(entries: list[dict[str, Any]]) -> float:
    """When the session last recorded anything (what agentui did is before that)."""
    for entry in reversed(entries):
        try:
            return datetime.fromisoformat(str(entry["timestamp"])).timestamp()
        except (KeyError, ValueError):
            continue
    return 0.0


def _modified(path: Path) -> float:
    try:
        return path.lstat().st_mtime
    except OSError:
        return 0.0
