"""--idle-rotate MINUTES (phi-core's session rotation): a prompt that comes after the conversation sat idle longer
than MINUTES goes on in a new session, with a summary of the old one carried over (made as compaction makes its
summary), and a SessionRotated event says so. Idle is measured from the session file's last line, so a resumed
session counts the time it sat closed too.

Front ends call `rotate_if_idle(conversation)` before they send a prompt and go on with the conversation it returns
(and close the old one)."""

from __future__ import annotations

import dataclasses
import time
from typing import TYPE_CHECKING

from agentui.core.context.compaction import summary_message
from agentui.core.events import SessionRotated
from agentui.core.session.lookup import SessionRequest

if TYPE_CHECKING:
    from agentui.core.conversation import Conversation


async def rotate_if_idle(conversation: Conversation, now: float | None = None) -> Conversation | None:
    """The new conversation to send the next prompt in, when `conversation` has been idle longer than its launch's
    --idle-rotate; None when it goes on as it is (no --idle-rotate, nothing said yet, not idle long enough)."""
    minutes = conversation.launch.idle_rotate
    if not minutes or conversation.opener is None or conversation.running or not conversation.messages:
        return None
    try:
        last = conversation.session.path.stat().st_mtime
    except OSError:
        return None  # (nothing written yet)
    idle = ((time.time() if now is None else now) - last) / 60
    if idle <= minutes:
        return None
    summary = await conversation.agent.compactor.summary()
    fresh: Conversation = conversation.opener(dataclasses.replace(conversation.launch, session=SessionRequest()))
    if summary:
        fresh.agent.add_context(summary_message(summary).text)
    old = conversation.session_id
    conversation.agent.bus.emit(SessionRotated(session_id=old, new_session_id=fresh.session_id, idle_minutes=idle))
    return fresh
