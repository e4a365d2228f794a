"""The first question in a project whose own settings would grant permissions or run hooks: trust it or not."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static


class TrustScreen(ModalScreen[bool]):
    DEFAULT_CSS = """
    TrustScreen { align: center middle; background: $background 60%; }
    TrustScreen #trust {
        width: 80%;
        max-width: 100;
        height: auto;
        padding: 1 2;
        border: thick $warning;
        background: $panel;
    }
    TrustScreen .choice { color: $text-muted; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", show=False),
        Binding("n,escape", "answer(False)", show=False),
    ]

    def __init__(self, folder: str, held_back: list[str]) -> None:
        super().__init__()
        self.folder = folder
        self.held_back = held_back

    def compose(self) -> ComposeResult:
        with Vertical(id="trust") as box:
            box.border_title = "Do you trust this folder?"
            yield Static(Content(f"{self.folder} has its own .claude settings that grant permissions or run hooks."))
            for notice in self.held_back:
                yield Static(Content(notice), classes="choice")
            yield Static(
                Content("y  Trust it and apply them      n  Not now (they stay off for this session)"), classes="choice"
            )

    def action_answer(self, trusted: bool) -> None:
        self.dismiss(trusted)
