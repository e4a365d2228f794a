"""The first question in a project whose own settings would grant permissions or run hooks: trust it or not."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType

from agentui.frontends.tui.screens.yes_or_no import YesOrNoScreen
from agentui.frontends.tui.type_ahead import TypingHold


class TrustScreen(YesOrNoScreen[bool]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", show=False),
        Binding("n,escape", "answer(False)", show=False),
    ]

    def __init__(self, folder: str, held_back: list[str], hold: TypingHold | None = None) -> None:
        super().__init__(
            "Do you trust this folder?",
            f"{folder} has its own .claude settings that grant permissions or run hooks.",
            held_back,
            "y  Trust it and apply them      n  Not now (they stay off for this session)",
            hold,
        )
        self.folder = folder
        self.held_back = held_back
