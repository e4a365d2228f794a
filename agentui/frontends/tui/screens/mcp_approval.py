"""The question asked once about each MCP server a project's .mcp.json brings: a repository's servers are
programs its author chose, so none starts until the person says so."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static


class McpApprovalScreen(ModalScreen[bool | None]):
    DEFAULT_CSS = """
    McpApprovalScreen { align: center middle; background: $background 60%; }
    McpApprovalScreen #approval {
        width: 80%;
        max-width: 100;
        height: auto;
        padding: 1 2;
        border: thick $warning;
        background: $panel;
    }
    McpApprovalScreen .choice { color: $text-muted; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", show=False),
        Binding("n", "answer(False)", show=False),
        Binding("escape", "answer(None)", show=False),
    ]

    def __init__(self, name: str, what: str) -> None:
        super().__init__()
        self.server_name = name
        self.what = what

    def compose(self) -> ComposeResult:
        with Vertical(id="approval") as box:
            box.border_title = f"Use the MCP server {self.server_name}?"
            yield Static(Content(f"This project's .mcp.json starts it with: {self.what}"))
            yield Static(
                Content("y  Use it (remembered for this project)      n  Never for this project      Esc  Not now"),
                classes="choice",
            )

    def action_answer(self, answer: bool | None) -> None:
        self.dismiss(answer)
