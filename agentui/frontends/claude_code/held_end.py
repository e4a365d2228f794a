"""The end of a streamed message (its `message_delta` and `message_stop` stream events) held back while its tool calls
are refused without anyone being asked: Claude Code decides a call as its block ends, so a refusal's tool_result
comes before the message's end in its stream-json; agentui decides once the message is whole, and reorders here."""

from __future__ import annotations

from typing import Any

from agentui.api.events import Event, PermissionRequest, PermissionResolved, ToolEnd, ToolStart, UsageUpdate


class HeldEnd:
    def __init__(self, refuses_asks: bool) -> None:
        self.refuses_asks = refuses_asks
        """Questions are answered no as they come (print mode): a call that asks is refused at once, as a deny rule
        refuses it. Otherwise a question waits for someone, and the message's end is not held for that."""
        self.lines: list[dict[str, Any]] = []

    def keeps(self, event: Event) -> bool:
        """Whether the end stays held through `event`: a call starting, being refused, or its question answered
        no at once; anything else is said after the message's end."""
        match event:
            case ToolStart() | PermissionResolved() | UsageUpdate():
                return True
            case PermissionRequest():
                return self.refuses_asks
            case ToolEnd():
                return event.denied
            case _:
                return False

    def release(self) -> list[dict[str, Any]]:
        held, self.lines = self.lines, []
        return held
