"""A resumed session that was waiting out a usage limit when it ended: the rest of the wait (the status line counts
down, Esc ends it), then its interrupted prompt again; at once when the limit has reset already."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import datetime

    from agentui.api import Conversation
    from agentui.frontends.tui.host import AppHost

LIMIT_GROUP = "limit"
"""The wait's worker: Esc cancels it as it cancels a running `!command`."""


def go_on_after_limit(app: AppHost, conversation: Conversation) -> None:
    """If `conversation` was resumed in the middle of a limit wait, wait out the rest and run its prompt again."""
    from agentui.api import pending_limit

    until = pending_limit(conversation)
    if until is not None:
        app.run_worker(_wait_then_rerun(app, conversation, until), group=LIMIT_GROUP, exit_on_error=False)


async def _wait_then_rerun(app: AppHost, conversation: Conversation, until: datetime) -> None:
    from agentui.api import wait_out_pending

    try:
        await wait_out_pending(conversation, until)
    except asyncio.CancelledError:
        app.status.set(limit_until=None)
        app.say("The wait for the usage limit was cancelled; the interrupted prompt was not sent again.", "warning")
        raise
    if app.conversation is conversation and not conversation.running:
        app.say("The usage limit has reset: the interrupted prompt goes on.")
        app.run_worker(conversation.continue_("rerun"), group="run", exit_on_error=False)
