"""An MCP server's elicitation request, as a question the person answers: the server's message, then one box per
field it asks for (its description, type and choices beside it); Enter goes to the next box and, on the last, sends
the answers; Esc declines. A request in URL mode shows the page to open: Enter accepts, Esc declines."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from agentui.api.events import ElicitationRequest, PermissionDecision


class ElicitationScreen(ModalScreen[PermissionDecision]):
    """Dismissed with an allow whose `updated_input` holds the fields as typed, or a deny when the person declines."""

    CSS_PATH = "permission.tcss"
    DEFAULT_CSS = """
    ElicitationScreen { align: center middle; background: $background 60%; }
    ElicitationScreen .field { color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "decline", "Decline", show=False),
        Binding("enter", "accept", "Accept", show=False),
    ]

    def __init__(self, request: ElicitationRequest) -> None:
        super().__init__()
        self.request = request
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
        self.query_one("#dialog").border_title = f"The MCP server {self.request.server} asks"
        if self.fields:
            self.query_one("#field-0", Input).focus()

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
