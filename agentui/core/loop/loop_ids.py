"""Each run of an agent is a loop: its own id, its parent's (the run it was started for: a sub-agent's or a parallel
attempt's), and why it started (its trigger), on its start and end events and on every session line it writes, so
`agentui trace` can draw the tree of loops."""

from __future__ import annotations

import uuid
from typing import Any

from agentui.core.events import RunTrigger


class LoopIds:
    """The loop an agent runs now, and the trigger the next one starts with (a rerun, a branch; else "default")."""

    def __init__(self, parent: str | None = None) -> None:
        self.parent = parent
        self.current: str | None = None
        self._next: RunTrigger = "default"

    def next(self, trigger: RunTrigger) -> None:
        """The next run starts for this reason (said once: the run after it is "default" again)."""
        self._next = trigger

    def begin(self, compacting: bool = False) -> dict[str, Any]:
        """A new loop: the fields of its AgentStart (its ids and its trigger)."""
        self.current = str(uuid.uuid4())
        trigger, self._next = ("compact" if compacting else self._next), "default"
        return {**self.ids(), "trigger": trigger}

    def ids(self) -> dict[str, Any]:
        return {"run_loop_id": self.current, "parent_loop_id": self.parent}
