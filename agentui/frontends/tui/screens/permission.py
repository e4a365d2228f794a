"""The permission question: what a tool call would do (the exact command or the diff) and why it asks, answered on
single keys: y/1 once, s/2 this session, a/3 always, n/Esc no, Tab no with a message for the model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from agentui.api import describe_call, proposed_change
from agentui.api.events import PermissionDecision, PermissionRequest
from agentui.frontends.tui.type_ahead import TypingHold, catch_up
from agentui.frontends.tui.widgets.diff_view import patch_from_strings, render_patch

PREVIEW_LINES = 2000
"""The most lines of a diff a question draws (past them it says how many more there are)."""


def preview(request: PermissionRequest, cwd: Path) -> Text | Content:
    """What exactly would happen: the command, the change as a diff, or the arguments."""
    view = describe_call(request.tool_name, request.input, cwd)
    if view.command is not None:
        return Content(view.command)
    change = proposed_change(request.tool_name, request.input, cwd)
    if change is not None:
        return render_patch(patch_from_strings(*change), max_lines=PREVIEW_LINES)  # (it scrolls in the dialog)
    return Content(json.dumps(request.input, indent=2, ensure_ascii=False))


PREVIEW_KEYS = [
    Binding("down", "scroll_preview(1)", show=False),
    Binding("up", "scroll_preview(-1)", show=False),
    Binding("pagedown", "scroll_preview(0.9)", show=False),
    Binding("pageup", "scroll_preview(-0.9)", show=False),
    Binding("end", "scroll_preview(1_000_000)", show=False),
    Binding("home", "scroll_preview(-1_000_000)", show=False),
]
"""A long diff, command or plan scrolls inside the dialog (a whole number: rows; a fraction: of a page)."""


class PermissionScreen(ModalScreen[PermissionDecision]):
    CSS_PATH = "permission.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,1", "answer('once')", "Yes, once", show=False),
        Binding("s,2", "answer('session')", "Yes, this session", show=False),
        Binding("a,3", "answer('always')", "Yes, always", show=False),
        Binding("n", "deny", "No", show=False),
        Binding("escape", "deny_now", "No", show=False),
        Binding("tab", "deny_with_message", "No, and say why", show=False, priority=True),
        *PREVIEW_KEYS,
    ]

    def __init__(self, request: PermissionRequest, cwd: Path, hold: TypingHold | None = None) -> None:
        super().__init__()
        self.request = request
        self._cwd = cwd
        self.hold = hold
        """What the person goes on typing into the prompt as the question appears (no key answers until they stop)."""

    def compose(self) -> ComposeResult:
        request = self.request
        rules = ", ".join(request.suggestions) or request.tool_name
        with Vertical(id="dialog") as dialog:
            branch = f"attempt {request.loop_id} · " if request.loop_id else ""  # (which of parallel attempts asks)
            view = describe_call(request.tool_name, request.input, self._cwd)
            dialog.border_title = f"{branch}{request.tool_name}: {view.title}"[:100]
            yield Static(Content(request.reason[:1].upper() + request.reason[1:] + "."), id="reason")
            if view.purpose:
                yield Static(Content(f"What it is for: {view.purpose}"), classes="choice")
            with VerticalScroll(id="preview"):
                yield Static(preview(request, self._cwd))
            yield Static(Text.assemble(("  y 1 ", "bold"), "Yes, once"), classes="choice")
            yield Static(Text.assemble(("  s 2 ", "bold"), f"Yes, for this session ({rules})"), classes="choice")
            yield Static(
                Text.assemble(("  a 3 ", "bold"), f"Yes, always ({rules} in .claude/settings.local.json)"),
                classes="choice",
            )
            yield Static(
                Text.assemble(
                    ("  n ⎋ ", "bold"), "No    ", ("Tab ", "bold"), "No, and tell the model what to do instead"
                ),
                classes="choice",
            )
            yield Input(
                placeholder="What should the model do instead? (Enter sends)", id="message", select_on_focus=False
            )

    PREVIEW_ROWS: int | None = 22
    """The most rows the preview takes where the screen has room (a plan's can take more)."""

    def on_mount(self) -> None:
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        from agentui.frontends.tui.screens.fit import fit_dialog

        fit_dialog(self, "#dialog", "#preview", self.PREVIEW_ROWS)

    def action_scroll_preview(self, amount: float) -> None:
        preview = self.query_one("#preview")
        rows = amount if isinstance(amount, int) else round(amount * preview.size.height)
        preview.scroll_relative(y=rows, animate=False, immediate=True)

    ANSWERS: tuple[str, ...] = ("answer", "deny", "deny_with_message")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.ANSWERS and self.hold is not None and self.hold.holding:
            return False  # (typed for the prompt as the question appeared: see on_key)
        # Once the reason is being typed, y, s, a and n are letters of it, not answers (even the ones typed before
        # the box has taken the focus, which happens a moment after Tab).
        return not (action in ("answer", "deny") and self._typing)

    @property
    def _typing(self) -> bool:
        return self.query_one("#message").has_class("-visible")

    def action_answer(self, scope: str) -> None:
        self.dismiss(PermissionDecision(behavior="allow", scope=scope))

    def action_deny(self) -> None:
        """No: the call is not run and the turn ends there, as in Claude Code."""
        self.dismiss(PermissionDecision(behavior="deny", interrupt=True))

    def action_deny_now(self) -> None:
        """Esc: no, also while the reason is being typed (when `deny`, the n key, is a letter of it)."""
        self.action_deny()

    def action_deny_with_message(self) -> None:
        box = self.query_one("#message", Input)
        box.add_class("-visible")
        self.set_focus(box)  # now, not after the keys already on their way
        self.call_after_refresh(self._fit)  # (the box takes rows the preview gives up)

    def on_key(self, event: events.Key) -> None:
        """What is typed between Tab and the box taking the focus belongs in the box; what the person goes on typing
        as the question appears belongs in the prompt."""
        if self._typing:
            catch_up(self.query_one("#message", Input), self.focused, event)
        elif self.hold is not None:
            self.hold.hold(event, self.notify)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        said = event.value.strip() or None  # (with a reason the model goes on; without one it is a plain No)
        self.dismiss(PermissionDecision(behavior="deny", message=said, interrupt=said is None))
