"""Rewind (Esc twice on an empty prompt, or /rewind): pick one of the person's earlier prompts, newest first, then
what to restore from before it — the files and the conversation, the conversation only, or the files only — with
the files that would change listed first; files someone else changed since are overwritten only when confirmed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agentui.api import PromptPoint, Restore, RewindError, RewindRequest

CHOICES = (
    ("both", "Restore the files and the conversation"),
    ("conversation", "Restore the conversation only"),
    ("code", "Restore the files only"),
)
CONFIRM = (("overwrite", "Overwrite them, and restore"), ("back", "Go back"))


def describe(restore: Restore, root: Path) -> str:
    """The files a restore would write, one line each with its lines added and removed, then what it leaves."""
    lines = []
    for change in restore.changes:
        name = change.path.relative_to(root) if change.path.is_relative_to(root) else change.path
        if change.content is None:
            what = "deleted (it did not exist then)"
        elif change.now is None:
            what = "brought back"
        else:
            added, removed = change.counts()
            what = f"+{added} −{removed}"
        lines.append(f"  {name}: {what}{' (changed outside agentui since)' if change.outside else ''}")
    said = "Files restored:\n" + "\n".join(lines) if lines else "No file changed since this prompt."
    return "\n".join([said, *restore.notes])


class RewindPicker(ModalScreen[RewindRequest | None]):
    """Dismissed with what to restore from before which prompt, or None."""

    CSS_PATH = "picker.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "Back", show=False)]

    def __init__(self, points: list[PromptPoint], changes: Callable[[str], Restore], root: Path) -> None:
        super().__init__()
        self.points = list(reversed(points))  # newest first
        self.changes = changes
        self.root = root
        self.picked: PromptPoint | None = None
        self.plan: Restore | None = None
        self.chosen: RewindRequest | None = None
        """A restore of files someone else changed, waiting for the person to confirm it."""

    def compose(self) -> ComposeResult:
        with Vertical(id="picker") as box:
            box.border_title = "Rewind to before a prompt"
            yield OptionList(*(Option(Text(point.text.splitlines()[0][:100])) for point in self.points), id="prompts")
            yield Static("", id="summary")
            yield OptionList(*(Option(label, id=key) for key, label in CHOICES), id="choices")
            yield OptionList(*(Option(label, id=key) for key, label in CONFIRM), id="confirm")

    def on_mount(self) -> None:
        self.query_one("#summary").display = self.query_one("#choices").display = False
        self.query_one("#confirm").display = False
        prompts = self.query_one("#prompts", OptionList)
        prompts.highlighted = 0
        prompts.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_list.id == "prompts":
            self._pick(self.points[event.option_index])
        elif event.option_list.id == "confirm" and self.chosen is not None:
            if event.option.id == "overwrite":
                self.dismiss(replace(self.chosen, overwrite=True))
            else:
                self.action_back()
        elif self.picked is not None:
            choice = event.option.id
            chosen = RewindRequest(self.picked.uuid, choice in ("both", "code"), choice in ("both", "conversation"))
            if chosen.code and self.plan is not None and self.plan.outside:
                self._confirm(chosen, self.plan)
            else:
                self.dismiss(chosen)

    def _confirm(self, chosen: RewindRequest, plan: Restore) -> None:
        self.chosen = chosen
        names = ", ".join(str(change.path.name) for change in plan.outside)
        self.query_one("#summary", Static).update(
            Text(
                f"{names} changed since agentui last worked on {'it' if len(plan.outside) == 1 else 'them'}: "
                "restoring overwrites those changes."
            )
        )
        self.query_one("#choices").display = False
        confirm = self.query_one("#confirm", OptionList)
        confirm.display = True
        confirm.highlighted = 1  # (going back is what Enter does unless the person moves to overwrite)
        confirm.focus()

    def _pick(self, point: PromptPoint) -> None:
        try:
            self.plan = self.changes(point.uuid)
            said = describe(self.plan, self.root)
        except RewindError as exc:
            self.plan = None
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
        if self.chosen is not None:  # from confirming to the choices
            picked, self.chosen = self.picked, None
            self.query_one("#confirm").display = False
            if picked is not None:
                self._pick(picked)
            return
        if self.picked is None:
            self.dismiss(None)
            return
        self.picked = None
        self.query_one("#summary").display = self.query_one("#choices").display = False
        prompts = self.query_one("#prompts")
        prompts.display = True
        prompts.focus()
