"""The question asked once about each MCP server a project's .mcp.json brings: a repository's servers are
programs its author chose, so none starts until the person says so."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType

from agentui.frontends.tui.screens.yes_or_no import YesOrNoScreen
from agentui.frontends.tui.type_ahead import TypingHold


class McpApprovalScreen(YesOrNoScreen[bool | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", show=False),
        Binding("n", "answer(False)", show=False),
        Binding("escape", "answer(None)", show=False),
    ]

    def __init__(self, name: str, what: str, hold: TypingHold | None = None) -> None:
        super().__init__(
            f"Use the MCP server {name}?",
            f"This project's .mcp.json starts it with: {what}",
            [],
            "y  Use it (remembered for this project)      n  Never for this project      Esc  Not now",
            hold,
        )
        self.server_name = name
        self.what = what
