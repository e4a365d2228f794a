"""Context advisories (cinch-rs): a `ContextAdvisory` event when the context passes 60% and 80% of the model's
window, each once per window fill; a compaction (or anything that empties the window below a mark) lets it fire
again."""

from __future__ import annotations

from collections.abc import Callable

from agentui.core.events import CompactionEnd, ContextAdvisory, Event, UsageUpdate

ADVISE_AT = (60, 80)
"""The marks, in percent of the window."""


class ContextAdvisor:
    """A bus listener for one conversation's agent (its own calls: not a sub-agent's or an attempt's)."""

    def __init__(self, session_id: str, emit: Callable[[Event], None]) -> None:
        self._session_id = session_id
        self._emit = emit
        self._passed: set[int] = set()

    def __call__(self, event: Event) -> None:
        if event.session_id != self._session_id or event.loop_id is not None:
            return
        match event:
            case CompactionEnd():
                self._passed.clear()
            case UsageUpdate(context_percent=float() as percent):
                self._passed = {mark for mark in self._passed if percent >= mark}  # (emptied: may fire again)
                crossed = [mark for mark in ADVISE_AT if percent >= mark and mark not in self._passed]
                if crossed:  # (one event for the highest mark passed at once)
                    self._passed.update(crossed)
                    self._emit(
                        ContextAdvisory(
                            session_id=self._session_id,
                            threshold=crossed[-1],
                            context_percent=percent,
                            context_tokens=event.context_tokens,
                        )
                    )
            case _:
                pass
