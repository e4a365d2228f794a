"""Ctrl+R: search the prompts sent before in this project, newest first; Enter puts the chosen one in the prompt to
edit or send, Esc leaves the prompt as it was."""

from __future__ import annotations

from typing import ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from agentui.frontends.tui.type_ahead import catch_up

MAX_SHOWN = 50


class HistorySearch(ModalScreen[str | None]):
    DEFAULT_CSS = """
    HistorySearch { align: center bottom; background: $background 40%; }
    HistorySearch #search { width: 100%; height: auto; max-height: 18; border: round $primary; background: $panel; }
    HistorySearch OptionList { height: auto; max-height: 14; border: none; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", show=False),
        Binding("up", "move(-1)", show=False, priority=True),
        Binding("down", "move(1)", show=False, priority=True),
        Binding("ctrl+r", "move(1)", show=False, priority=True),  # again: the next older match, as in a shell
    ]

    def __init__(self, entries: list[str]) -> None:
        super().__init__()
        self.entries = list(dict.fromkeys(reversed(entries)))  # newest first, each prompt once
        self.matches: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="search") as box:
            box.border_title = "Search earlier prompts (Enter picks, Esc leaves)"
            yield Input(placeholder="type to search")
            yield OptionList()

    def on_mount(self) -> None:
        self._show("")
        self.query_one(Input).focus()

    def typing_box(self) -> Input:
        return self.query_one(Input)

    def on_key(self, event: events.Key) -> None:
        catch_up(self.typing_box(), self.focused, event)  # (Ctrl+R and the words at once)

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        self._show(event.value)

    def _show(self, typed: str) -> None:
        words = typed.lower().split()
        self.matches = [e for e in self.entries if all(w in e.lower() for w in words)][:MAX_SHOWN]
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(" ".join(e.split())[:200]) for e in self.matches])
        options.highlighted = 0 if self.matches else None

    def action_move(self, delta: int) -> None:
        options = self.query_one(OptionList)
        if self.matches:
            options.highlighted = ((options.highlighted or 0) + delta) % len(self.matches)

    @on(Input.Submitted)
    def _picked(self) -> None:
        highlighted = self.query_one(OptionList).highlighted
        self.dismiss(self.matches[highlighted] if self.matches and highlighted is not None else None)

    @on(OptionList.OptionSelected)
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.matches[event.option_index])

    def action_cancel(self) -> None:
        self.dismiss(None)
