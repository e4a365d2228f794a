"""Asking the person whether to wait out a limit that resets later than agentui waits without asking: a yes/no
question put as an ElicitationRequest from "agentui" (the app shows it; Enter waits, Esc declines) and answered
through `Conversation.answer`. Where no one answers questions (print mode) nobody is asked: the wait is refused."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from datetime import UTC, datetime

from agentui.core.events import ElicitationRequest, EventBus, PermissionDecision
from agentui.core.providers.retry import RetryPolicy

ASKER = "agentui"
"""The `server` the question names: agentui itself, not an MCP server."""


class LimitQuestion:
    def __init__(self, bus: EventBus, session_id: Callable[[], str], answered: bool) -> None:
        self._bus = bus
        self._session_id = session_id
        self.answered = answered
        """The front end answers questions (else the wait is refused without asking)."""
        self._waiting: dict[str, asyncio.Future[PermissionDecision]] = {}

    async def __call__(self, until: datetime) -> bool | None:
        """Whether to wait until `until`; None when there is no one to ask."""
        if not self.answered:
            return None
        request_id = f"limit_{uuid.uuid4().hex[:12]}"
        waiting: asyncio.Future[PermissionDecision] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = waiting
        self._bus.emit(
            ElicitationRequest(
                session_id=self._session_id(), request_id=request_id, server=ASKER, message=_question(until)
            )
        )
        try:
            decision = await waiting
        finally:
            self._waiting.pop(request_id, None)
        return decision.behavior == "allow"

    def answer(self, request_id: str, decision: PermissionDecision) -> bool:
        """The person's answer to the question `request_id`; False if none waits for it."""
        waiting = self._waiting.get(request_id)
        if waiting is None or waiting.done():
            return False
        waiting.set_result(decision)
        return True


def _question(until: datetime) -> str:
    hours = (until - datetime.now(UTC)).total_seconds() / 3600
    when = until.astimezone().strftime("%a %H:%M")
    return f"The usage limit resets at {when}, in {hours:.1f} hours. Wait until then and go on by itself?"


def answer_limit_question(retry: RetryPolicy, request_id: str, decision: PermissionDecision) -> bool:
    """The person's answer, if `request_id` is the question `retry`'s limit wait put; False otherwise."""
    ask = retry.confirm_long_wait
    return isinstance(ask, LimitQuestion) and ask.answer(request_id, decision)
