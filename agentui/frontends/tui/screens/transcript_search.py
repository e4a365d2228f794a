"""Ctrl+F: find text in the transcript. Each Enter goes to the next match further up (from the newest), the match
is scrolled into view and marked (in an answer, the line of the match, and the text itself); Esc closes the search
and leaves the view where it is."""

from __future__ import annotations

from typing import ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import Input

from agentui.frontends.tui.type_ahead import catch_up


class TranscriptSearch(ModalScreen[None]):
    DEFAULT_CSS = """
    TranscriptSearch { align: center bottom; background: transparent; }
    TranscriptSearch Input { width: 100%; border: round $primary; background: $panel; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", show=False)]

    def __init__(self, find: object) -> None:
        super().__init__()
        self._find = find
        """`find(text, again)`: go to the first match (or, with `again`, the next one); a sentence for the title."""

    def compose(self) -> ComposeResult:
        field = Input(placeholder="find in the transcript (Enter: next match up, Esc: close)")
        field.border_title = "Find"
        yield field

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def typing_box(self) -> Input:
        return self.query_one(Input)

    def on_key(self, event: events.Key) -> None:
        """Keys typed before the box has the focus (Ctrl+F and the word at once) go into it, in order."""
        catch_up(self.typing_box(), self.focused, event)

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        self.query_one(Input).border_title = self._find(event.value, False)  # type: ignore[operator]

    @on(Input.Submitted)
    def _next(self, event: Input.Submitted) -> None:
        self.query_one(Input).border_title = self._find(event.value, True)  # type: ignore[operator]

    def action_close(self) -> None:
        self.dismiss(None)
