"""Plan approval (ExitPlanMode): the model's plan as Markdown, answered on single keys: 1 approve and accept the edits,
2 approve and ask for each edit, 3/Tab keep planning with feedback for the model, Esc keep planning."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, Markdown, Static

from agentui.api.events import PermissionDecision
from agentui.frontends.tui.screens.permission import PREVIEW_KEYS, PermissionScreen

PLAN_CHOICES = (
    ("1", "Yes, and accept the edits (acceptEdits)"),
    ("2", "Yes, and ask before each edit (default)"),
    ("3 Tab", "No, keep planning, and tell the model what to change"),
    ("⎋", "No, keep planning"),
)


class PlanApproval(PermissionScreen, inherit_bindings=False):
    """Dismissed with an allow that sets the mode the work goes on in, or a deny (with the person's feedback)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1,y", "approve('acceptEdits')", "Yes, accept edits", show=False),
        Binding("2", "approve('default')", "Yes, ask for edits", show=False),
        Binding("3,n,tab", "deny_with_message", "Keep planning", show=False, priority=True),
        Binding("escape", "deny_now", "Keep planning", show=False),
        *PREVIEW_KEYS,
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="plan") as dialog:
            dialog.border_title = "The model's plan: approve it?"
            with VerticalScroll(id="preview"):
                yield Markdown(str(self.request.input.get("plan", "")), id="plan")
            for keys, label in PLAN_CHOICES:
                yield Static(Text.assemble((f"  {keys:<6}", "bold"), label), classes="choice")
            yield Input(placeholder="What should change? (Enter sends)", id="message", select_on_focus=False)

    PREVIEW_ROWS = None  # (a plan takes what room there is)

    ANSWERS = ("approve", "deny_with_message")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.ANSWERS and self.hold is not None and self.hold.holding:
            return False  # (typed for the prompt as the question appeared)
        return not (action in ("approve", "deny_with_message") and self._typing)

    def action_approve(self, mode: str) -> None:
        self.dismiss(PermissionDecision(behavior="allow", mode="acceptEdits" if mode == "acceptEdits" else "default"))
