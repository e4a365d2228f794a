"""Keys typed into a box just opened: the box takes the focus a moment after the key that opens it (a screen is
composed, then focused), and what fast typing sends meanwhile belongs in the box, in order, not in the prompt or
nowhere."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from textual import events
from textual.widgets import Input


@runtime_checkable
class TakesTyping(Protocol):
    """A screen with a box that what is typed belongs in (a search, a filter)."""

    def typing_box(self) -> Input: ...


def catch_up(box: Input, focused: object, event: events.Key) -> None:
    """A key typed after the box was opened but before it took the focus goes into the box (the focus moves a
    moment after the key that opens it, and fast typing gets there first)."""
    if focused is not box and event.is_printable and event.character:
        event.stop()
        event.prevent_default()
        type_into(box, event.character)


def type_into(box: Input, text: str) -> None:
    """`text` at the end of what the box holds, the cursor after it."""
    box.value += text
    box.cursor_position = len(box.value)
