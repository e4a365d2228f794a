"""An MCP server's elicitation request, as a question the person answers: the server's message, then one box per
field it asks for (its description, type and choices beside it); Enter goes to the next box and, on the last, sends
the answers; Esc declines. A request in URL mode shows the page to open: Enter accepts, Esc declines. It appears by
itself, maybe while the person is typing: what they go on typing stays the prompt's (no box takes it, Enter sends
nothing) until they stop (type_ahead.TypingHold)."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from agentui.api.events import ElicitationRequest, PermissionDecision
from agentui.frontends.tui.type_ahead import HOLD_CHECK_SECONDS, TypingHold, catch_up


class ElicitationScreen(ModalScreen[PermissionDecision]):
    """Dismissed with an allow whose `updated_input` holds the fields as typed, or a deny when the person declines."""

    CSS_PATH = "permission.tcss"
    DEFAULT_CSS = """
    ElicitationScreen { align: center middle; background: $background 60%; }
    ElicitationScreen .field { color: $text-muted; }
    """
    AUTO_FOCUS = ""  # (none: the first box takes the focus once the person is not typing into the prompt)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "decline", "Decline", show=False),
        Binding("enter", "accept", "Accept", show=False),
    ]

    def __init__(self, request: ElicitationRequest, hold: TypingHold | None = None) -> None:
        super().__init__()
        self.request = request
        self.hold = hold
        raw = request.requested_schema.get("properties")
        self.fields: dict[str, dict[str, Any]] = (
            {name: spec for name, spec in raw.items() if isinstance(spec, dict)} if isinstance(raw, dict) else {}
        )
        required = request.requested_schema.get("required")
        self.required = set(required) if isinstance(required, list) else set()

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text(self.request.message), id="reason")
            if self.request.url:
                yield Static(Text(f"Open: {self.request.url}"), classes="field")
            for at, (name, spec) in enumerate(self.fields.items()):
                yield Static(Text(_label(name, spec, name in self.required)), classes="field")
                default = spec.get("default")
                shown = {None: "", True: "yes", False: "no"}.get(default, str(default))
                yield Input(value=shown, id=f"field-{at}")
            keys = "Enter sends the answers" if self.fields else "Enter accepts"
            yield Static(Text(f"  {keys}   ⎋ declines"), id="hint", classes="choice")

    def on_mount(self) -> None:
        asker = "agentui" if self.request.server == "agentui" else f"The MCP server {self.request.server}"
        self.query_one("#dialog").border_title = f"{asker} asks"  # (agentui's own: whether to wait out a limit)
        self._focus_when_still()

    @property
    def _holding(self) -> bool:
        return self.hold is not None and self.hold.holding

    def _focus_when_still(self) -> None:
        """The first box takes the keys once the person has stopped typing into the prompt."""
        if self._holding:
            self.set_focus(None)
            self.set_timer(HOLD_CHECK_SECONDS, self._focus_when_still)
        elif self.fields and not isinstance(self.focused, Input):
            self.query_one("#field-0", Input).focus()

    def on_key(self, event: events.Key) -> None:
        """While no box has the focus: a key the person typed for the prompt goes there; one typed after they
        stopped goes into the first box (it takes the focus a moment later)."""
        if isinstance(self.focused, Input) or event.key == "escape":
            return
        if self.hold is not None and self.hold.hold(event, self.notify):
            return
        if self.fields:
            first = self.query_one("#field-0", Input)
            catch_up(first, self.focused, event)
            first.select_on_focus = False  # (what was just typed into it stays, not selected to be typed over)
            first.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not (action == "accept" and self._holding)  # (an Enter typed for the prompt sends nothing)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        boxes = list(self.query(Input))
        at = boxes.index(event.input)
        if at + 1 < len(boxes):
            boxes[at + 1].focus()
        else:
            self.action_accept()

    def action_accept(self) -> None:
        answers = {
            name: box.value
            for name, box in zip(self.fields, self.query(Input), strict=True)
            if box.value.strip() or name in self.required
        }
        self.dismiss(PermissionDecision(behavior="allow", updated_input=answers))

    def action_decline(self) -> None:
        self.dismiss(PermissionDecision(behavior="deny"))


def _label(name: str, spec: dict[str, Any], required: bool) -> str:
    """`name (type, required): description; one of a, b`."""
    kind = str(spec.get("type", "string"))
    kind = "yes or no" if kind == "boolean" else kind
    said = f"{spec.get('title') or name} ({kind}{', required' if required else ''})"
    if spec.get("description"):
        said += f": {spec['description']}"
    choices = spec.get("enum")
    if isinstance(choices, list) and choices:
        said += f"; one of {', '.join(str(choice) for choice in choices)}"
    return said
