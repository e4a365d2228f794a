"""Memory that learns, on the conversation's bus: at each prompt the learnings most relevant to it join the end of
the system prompt's cached part (chosen once a run, so every round of the run sends the same text); when a run ends,
the failures it overcame are distilled and kept. Off with `"learnings": false`; nothing is learned while the project
is not trusted."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from agentui.core.context.distill import Call, distill
from agentui.core.context.learnings import LearningError, LearningStore, relevant, render_learnings
from agentui.core.events import AgentEnd, Event, ToolEnd, ToolStart, UserMessage

log = logging.getLogger(__name__)


class Configured(Protocol):
    """An agent, as far as its system prompt goes."""

    config: Any

    def warn(self, message: str) -> None: ...


def with_learnings(stable: str, old: str, new: str) -> str:
    """`stable` (the system prompt's cached part) with the learnings `new` at its end in place of `old`."""
    base = stable[: len(stable) - len(old)] if old and stable.endswith(old) else stable
    return base + new


class Learner:
    def __init__(self, agent: Configured, root: Path, env: Mapping[str, str] | None, trusted: Callable[[], bool]):
        self.agent = agent
        self.store = LearningStore(root, env)
        self.root = root
        self.trusted = trusted
        self._started: dict[str, ToolStart] = {}
        self._calls: list[Call] = []
        self._block = ""
        """What the system prompt carries of the learnings now (with its separator)."""

    def on_event(self, event: Event) -> None:
        if event.loop_id is not None:
            return  # (an attempt's own loop: its calls are in its working copy)
        match event:
            case UserMessage(source="prompt", message=message):
                self._calls.clear()
                self._choose(message.text)
            case ToolStart():
                self._started[event.tool_call_id] = event
            case ToolEnd() if (start := self._started.pop(event.tool_call_id, None)) is not None:
                if not (event.denied or event.cached):
                    self._calls.append(Call(start.name, dict(start.input), _text(event) if event.is_error else None))
            case AgentEnd():
                self._learn()
            case _:
                pass

    def _choose(self, prompt: str) -> None:
        """The learnings for this run's prompt, at the end of the cached part of the system prompt."""
        try:
            chosen = relevant(self.store.all(), prompt)
        except LearningError as exc:
            self.agent.warn(str(exc))
            chosen = []
        block = f"\n\n{render_learnings(chosen)}" if chosen else ""
        config = self.agent.config
        stable = with_learnings(config.system_prompt, self._block, block)
        self._block = block
        if stable != config.system_prompt:
            self.agent.config = config.model_copy(update={"system_prompt": stable})

    def _learn(self) -> None:
        calls, self._calls = self._calls, []
        self._started.clear()
        if not calls or not self.trusted():
            return
        try:
            for learning in distill(calls, self.root):
                self.store.add(learning)
        except LearningError as exc:
            self.agent.warn(str(exc))


def _text(event: ToolEnd) -> str:
    if isinstance(event.content, str):
        return event.content
    return "\n".join(getattr(block, "text", "") for block in event.content)
