"""/model's picker: each choice with what it means here (an alias and the model it resolves to, the configured
model, where the routes send their calls); ↑ ↓ move, Enter picks, Esc leaves the model as it is."""

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
    from agentui.api import ModelOption


class ModelPicker(ModalScreen[str | None]):
    CSS_PATH = "picker.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss_none", "Back", show=False)]

    def __init__(self, options: list[ModelOption], current: str, alias: str) -> None:
        super().__init__()
        self.options = options
        self.current = alias or current

    def compose(self) -> ComposeResult:
        with Vertical(id="picker", classes="model-picker") as box:
            box.border_title = "Choose a model (Enter picks · Esc keeps the current one)"
            rows = []
            for option in self.options:
                line = Text()
                line.append(("● " if option.name == self.current else "  ") + option.name, style="bold")
                line.append(f"  {option.meaning}", style="dim")
                rows.append(Option(line, id=option.name, disabled=not option.pickable))
            yield OptionList(*rows, id="models")
            yield Static("Or type /model <id> for any model the provider serves.", id="summary")

    def on_mount(self) -> None:
        models = self.query_one("#models", OptionList)
        names = [option.name for option in self.options]
        models.highlighted = names.index(self.current) if self.current in names else 0
        models.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
