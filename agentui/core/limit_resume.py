"""A resumed session that ended while a limit was waited out: when it resets, and the rest of the wait, said as the
wait itself is (a LimitWait event), before the front end runs the interrupted prompt again."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from agentui.core.events import LimitWait
from agentui.core.session.limit_record import pending_limit_wait

if TYPE_CHECKING:
    from agentui.core.conversation import Conversation

PENDING_REASON = "The session ended while it waited for a usage limit to reset."


def pending_limit(conversation: Conversation) -> datetime | None:
    """When the limit the resumed session was waiting for resets (perhaps already past); None when none was."""
    if conversation.resumed is None:
        return None
    return pending_limit_wait(conversation.session.path)


async def wait_out_pending(conversation: Conversation, until: datetime) -> None:
    """Say the wait (a LimitWait event) and sleep until `until` and a little more by the wall clock; at once when it
    has passed. Cancelling the caller's task ends it."""
    if until <= datetime.now(UTC):
        return
    provider = conversation.launch.settings.provider
    conversation.agent.bus.emit(
        LimitWait(session_id=conversation.session_id, until=until, reason=PENDING_REASON, provider=provider)
    )
    target = until + timedelta(seconds=random.uniform(0.2, 1.5))
    while (left := (target - datetime.now(UTC)).total_seconds()) > 0:  # noqa: ASYNC110 (a clock, not an event)
        await asyncio.sleep(min(left, 30.0))
