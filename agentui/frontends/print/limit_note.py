"""Print mode's line on stderr for a resumed session that ended while it waited for a usage limit to reset."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentui.api import Conversation


def note_pending_limit(conversation: Conversation, note: Callable[[str], object]) -> None:
    """Say that the resumed session was waiting for a limit, and when it resets (or that it has)."""
    from agentui.api import pending_limit

    until = pending_limit(conversation)
    if until is None:
        return
    when = until.astimezone().strftime("%Y-%m-%d %H:%M:%S %Z").strip()
    state = "it has reset since" if until <= datetime.now(UTC) else "it has not reset yet"
    note(f"this session ended while it waited for a usage limit that resets at {when} ({state}).")
