"""/tasks: the background shells of this conversation — each one's status and command, the latest output of the one
highlighted (kept up to date while the list is open), `k` to stop it, Esc to close."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from agentui.api import Conversation, ShellInfo

REFRESH = 0.5
"""Seconds between redraws of the statuses and the output while the list is open."""
TAIL_CHARS = 4000
_MARKS = {"running": "◐", "completed": "●", "failed": "✗", "killed": "⊘"}


def shell_label(shell: ShellInfo) -> Text:
    status = shell.status if shell.exit_code is None else f"{shell.status}, exit {shell.exit_code}"
    what = (shell.description + ": " if shell.description else "") + shell.command.splitlines()[0][:90]
    return Text(f"{_MARKS[shell.status]} {shell.id}  {what}  ({status})")


class BackgroundShellsScreen(ModalScreen[None]):
    CSS_PATH = "picker.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_screen", "Close", show=False),
        Binding("k", "stop", "Stop the shell", show=False),
    ]

    def __init__(self, conversation: Conversation) -> None:
        super().__init__()
        self.conversation = conversation
        self.shells = conversation.background_shells()

    def compose(self) -> ComposeResult:
        with Vertical(id="picker") as box:
            box.border_title = "Background shells (k stops the one highlighted · Esc closes)"
            yield OptionList(*(Option(shell_label(s), id=s.id) for s in self.shells), id="shells")
            yield Static("", id="shell-output")

    def on_mount(self) -> None:
        shells = self.query_one("#shells", OptionList)
        shells.highlighted = len(self.shells) - 1  # the newest
        shells.focus()
        self._redraw()
        self.set_interval(REFRESH, self._redraw)

    @property
    def highlighted(self) -> ShellInfo | None:
        index = self.query_one("#shells", OptionList).highlighted
        return self.shells[index] if index is not None and 0 <= index < len(self.shells) else None

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._redraw()

    def _redraw(self) -> None:
        by_id = {shell.id: shell for shell in self.conversation.background_shells()}
        shells = self.query_one("#shells", OptionList)
        for index, shell in enumerate(self.shells):
            now = by_id.get(shell.id, shell)
            if now != shell:
                self.shells[index] = now
                shells.replace_option_prompt_at_index(index, shell_label(now))
        chosen = self.highlighted
        text = self.conversation.background_output(chosen.id, TAIL_CHARS) if chosen else ""
        self.query_one("#shell-output", Static).update(Text(text.rstrip("\n")[-TAIL_CHARS:] or "(no output yet)"))

    async def action_stop(self) -> None:
        chosen = self.highlighted
        if chosen is not None and chosen.status == "running":
            await self.conversation.stop_background(chosen.id)
            self._redraw()

    def action_dismiss_screen(self) -> None:
        self.dismiss(None)
