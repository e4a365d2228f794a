"""Rewind (Esc twice on an empty prompt, or /rewind): pick one of the person's earlier prompts, newest first, then
what to restore from before it — the files and the conversation, the conversation only, or the files only — with
the files that would change listed first."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agentui.core.frontend import FileChange, PromptPoint, RewindError

CHOICES = (
    ("both", "Restore the files and the conversation"),
    ("conversation", "Restore the conversation only"),
    ("code", "Restore the files only"),
)


def describe(changes: list[FileChange]) -> str:
    """The files a restore would write, one line each with its lines added and removed."""
    if not changes:
        return "No file changed since this prompt (or none agentui could back up)."
    lines = []
    for change in changes:
        if change.content is None:
            lines.append(f"  {change.path.name}: deleted (it did not exist then)")
        elif change.now is None:
            lines.append(f"  {change.path.name}: brought back")
        else:
            added, removed = change.counts()
            lines.append(f"  {change.path.name}: +{added} −{removed}")
    return "Files restored:\n" + "\n".join(lines)


class RewindPicker(ModalScreen[tuple[str, bool, bool] | None]):
    """Dismissed with (prompt uuid, restore the files, restore the conversation), or None."""

    CSS_PATH = "picker.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "Back", show=False)]

    def __init__(self, points: list[PromptPoint], changes: Callable[[str], list[FileChange]]) -> None:
        super().__init__()
        self.points = list(reversed(points))  # newest first
        self.changes = changes
        self.picked: PromptPoint | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="picker") as box:
            box.border_title = "Rewind to before a prompt"
            yield OptionList(*(Option(Text(point.text.splitlines()[0][:100])) for point in self.points), id="prompts")
            yield Static("", id="summary")
            yield OptionList(*(Option(label, id=key) for key, label in CHOICES), id="choices")

    def on_mount(self) -> None:
        self.query_one("#summary").display = self.query_one("#choices").display = False
        prompts = self.query_one("#prompts", OptionList)
        prompts.highlighted = 0
        prompts.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_list.id == "prompts":
            self._pick(self.points[event.option_index])
        elif self.picked is not None:
            choice = event.option.id
            self.dismiss((self.picked.uuid, choice in ("both", "code"), choice in ("both", "conversation")))

    def _pick(self, point: PromptPoint) -> None:
        try:
            said = describe(self.changes(point.uuid))
        except RewindError as exc:
            said = f"{exc} The conversation can still be restored."
        self.picked = point
        summary = self.query_one("#summary", Static)
        summary.update(Text(f"Before “{point.text.splitlines()[0][:80]}”\n{said}"))
        self.query_one("#prompts").display = False
        summary.display = True
        choices = self.query_one("#choices", OptionList)
        choices.display = True
        choices.highlighted = 0
        choices.focus()

    def action_back(self) -> None:
        if self.picked is None:
            self.dismiss(None)
            return
        self.picked = None
        self.query_one("#summary").display = self.query_one("#choices").display = False
        prompts = self.query_one("#prompts")
        prompts.display = True
        prompts.focus()
