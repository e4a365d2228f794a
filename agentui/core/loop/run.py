"""A run of the agent as a front end holds it: the handle (its events as they happen, and the controls) and the
outcome."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Protocol

from pydantic import BaseModel

from agentui.core.events import AgentEnd, Event, PermissionDecision, RunStop, Subscription
from agentui.core.messages import Usage

if TYPE_CHECKING:
    from agentui.core.loop.accounting import Ledger


class RunControls(Protocol):
    """What a run's handle steers: the agent running it."""

    session_id: str

    def respond_permission(self, request_id: str, decision: PermissionDecision) -> bool: ...

    def inject(self, text: str) -> None: ...

    def follow_up(self, text: str) -> None: ...

    def cancel(self) -> None: ...


class RunResult(BaseModel):
    session_id: str
    stop: RunStop
    text: str
    """The last assistant message's text: the answer, for print mode."""
    num_turns: int
    usage: Usage
    cost_usd: float
    """At list prices of the models the server reported; 0 for models with no known price (local ones)."""
    error: str | None = None
    error_kind: str | None = None
    duration_ms: int
    api_duration_ms: int
    unsent: list[str] = []
    """Steering the run ended without reading (see AgentEnd.unsent)."""

    @classmethod
    def of(cls, end: AgentEnd, text: str, error_kind: str | None, ledger: Ledger, started: float) -> RunResult:
        """A run's outcome: what its AgentEnd says, its answer's `text`, and its costs from `ledger` (a run that
        began at monotonic time `started`)."""
        return cls(
            session_id=end.session_id,
            stop=end.stop,
            text=text,
            num_turns=end.num_turns,
            usage=end.usage,
            cost_usd=round(ledger.run_cost, 6),
            error=end.error,
            error_kind=error_kind,
            duration_ms=round((time.monotonic() - started) * 1000),
            api_duration_ms=round(ledger.api_seconds * 1000),
            unsent=end.unsent,
        )


class Run:
    """A run in progress: an async iterator of its events (ending with AgentEnd) and the controls for it."""

    def __init__(self, agent: RunControls, task: asyncio.Task[RunResult], subscription: Subscription) -> None:
        self._agent = agent
        self._task = task
        self._subscription = subscription
        self.session_id = agent.session_id

    def __aiter__(self) -> AsyncIterator[Event]:
        return self._events()

    async def _events(self) -> AsyncIterator[Event]:
        try:
            async for event in self._subscription:
                yield event
                if isinstance(event, AgentEnd):
                    return
        finally:
            self._subscription.close()

    async def result(self) -> RunResult:
        try:
            return await self._task
        finally:
            self._subscription.close()

    def respond_permission(self, request_id: str, decision: PermissionDecision) -> bool:
        return self._agent.respond_permission(request_id, decision)

    def inject(self, text: str) -> None:
        self._agent.inject(text)

    def follow_up(self, text: str) -> None:
        self._agent.follow_up(text)

    def cancel(self) -> None:
        self._agent.cancel()
