"""StopFailure: the hook Claude Code runs when a turn ends on the API's error, with its name for the error's kind."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentui.core.extend.hooks import Hooks

_ERRORS = {
    "authentication": "authentication_failed",
    "rate_limit": "rate_limit",
    "overloaded": "overloaded",
    "server": "server_error",
    "connection": "server_error",
    "network": "server_error",
    "stalled": "server_error",
    "protocol": "server_error",
    "interrupted": "server_error",
    "context_overflow": "invalid_request",
}
"""agentui's kinds of provider error by Claude Code's names (its enum in 2.1.197). A plain 400 is "unknown" there too:
Claude Code says "invalid_request" only for the requests it recognises (too long, a bad image)."""
_NOT_THE_API = frozenset({"hook_blocked", "internal"})
"""Runs that end on agentui's own account: no StopFailure (Claude Code runs it only for an API error's message)."""


async def stop_failure(hooks: Hooks | None, session_id: str, error: tuple[str, str] | None) -> None:
    """StopFailure for a run that ends on `error` (its sentence and kind), when that is the provider's."""
    if not hooks or error is None or error[1] in _NOT_THE_API:
        return
    message, kind = error
    await hooks.stop_failure(session_id, _ERRORS.get(kind, "unknown"), message)
