"""Plan approval (ExitPlanMode): the model's plan as Markdown, answered on single keys: 1 approve and accept the edits,
2 approve and ask for each edit, 3/Tab keep planning with feedback for the model, Esc keep planning. With plan mode's
change queue, the changes the model queued are shown below the plan, each file's with a letter that checks or
unchecks it: an approval applies the checked ones."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, Markdown, Static

from agentui.api.events import PermissionDecision, PermissionRequest, QueuedChange
from agentui.frontends.tui.screens.permission import PREVIEW_KEYS, PREVIEW_LINES, PermissionScreen
from agentui.frontends.tui.type_ahead import TypingHold
from agentui.frontends.tui.widgets.diff_view import render_patch

PLAN_CHOICES = (
    ("1", "Yes, and accept the edits (acceptEdits)"),
    ("2", "Yes, and ask before each edit (default)"),
    ("3 Tab", "No, keep planning, and tell the model what to change"),
    ("⎋", "No, keep planning"),
)
FILE_KEYS = "abcdefghijklmopqrstuvwxz"
"""The keys that check or uncheck a queued file's change (y and n answer); a 25th file on goes with the rest."""


class PlanApproval(PermissionScreen, inherit_bindings=False):
    """Dismissed with an allow that sets the mode the work goes on in, or a deny (with the person's feedback)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1,y", "approve('acceptEdits')", "Yes, accept edits", show=False),
        Binding("2", "approve('default')", "Yes, ask for edits", show=False),
        Binding("3,n,tab", "deny_with_message", "Keep planning", show=False, priority=True),
        Binding("escape", "deny_now", "Keep planning", show=False),
        *PREVIEW_KEYS,
    ]

    def __init__(self, request: PermissionRequest, cwd: Path, hold: TypingHold | None = None) -> None:
        super().__init__(request, cwd, hold)
        self.checked = [True] * len(request.changes)
        """Which queued changes an approval applies (all, until the person unchecks some)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="plan") as dialog:
            dialog.border_title = "The model's plan: approve it?"
            with VerticalScroll(id="preview"):
                yield Markdown(str(self.request.input.get("plan", "")), id="plan")
                for change in self.request.changes:
                    yield Static(_heading(change), classes="queued-heading")
                    yield Static(render_patch(change.patch, max_lines=PREVIEW_LINES), classes="queued-diff")
            for index, change in enumerate(self.request.changes):
                yield Static(self._toggle_row(index, change), id=f"file-{index}", classes="choice queued-file")
            for keys, label in PLAN_CHOICES:
                if self.request.changes and keys in ("1", "2"):
                    label = label.replace("Yes,", "Yes, apply the checked changes,")
                yield Static(Text.assemble((f"  {keys:<6}", "bold"), label), classes="choice")
            yield Input(placeholder="What should change? (Enter sends)", id="message", select_on_focus=False)

    PREVIEW_ROWS = None  # (a plan takes what room there is)

    ANSWERS = ("approve", "deny_with_message")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.ANSWERS and self.hold is not None and self.hold.holding:
            return False  # (typed for the prompt as the question appeared)
        return not (action in ("approve", "deny_with_message") and self._typing)

    def _toggle_row(self, index: int, change: QueuedChange) -> Text:
        key = FILE_KEYS[index] if index < len(FILE_KEYS) else " "
        mark = "[x]" if self.checked[index] else "[ ]"
        counts = f"  +{change.added} −{change.removed}"
        return Text.assemble((f"  {key:<2}", "bold"), f"{mark} ", change.shown, (counts, "dim"))

    def on_key(self, event: events.Key) -> None:
        index = FILE_KEYS.find(event.character or "\0") if event.character else -1
        holding = self.hold is not None and self.hold.holding
        if 0 <= index < len(self.request.changes) and not self._typing and not holding:
            event.stop()
            self.checked[index] = not self.checked[index]
            self.query_one(f"#file-{index}", Static).update(self._toggle_row(index, self.request.changes[index]))
            return
        super().on_key(event)

    def action_approve(self, mode: str) -> None:
        chosen = tuple(c.file_path for c, on in zip(self.request.changes, self.checked, strict=True) if on)
        self.dismiss(
            PermissionDecision(
                behavior="allow",
                mode="acceptEdits" if mode == "acceptEdits" else "default",
                changes=chosen if self.request.changes else None,
            )
        )


def _heading(change: QueuedChange) -> Text:
    made = "new file" if change.created else f"+{change.added} −{change.removed}"
    return Text.assemble(("Queued: ", "bold"), (change.shown, "bold"), f"  ({made}, not made yet)")
