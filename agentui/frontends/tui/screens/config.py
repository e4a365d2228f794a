"""The /config dialog: one row per setting (its name, its value, where the value comes from), ↑↓ to move, Enter or
Space to change the one highlighted (a switch flips, a choice goes to the next; ← → go either way), a model typed in
a box of its own; what each change did is said under the list. Keyboard only; fits 80x24; Esc closes."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Protocol

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from agentui.api import Preference

LABEL_WIDTH = 25
VALUE_WIDTH = 20
KEYS = "↑↓ move · Enter or Space change · ← → back and forth · Esc closes"


class Panel(Protocol):
    """What the dialog shows and changes (`commands_config.SettingsPanel`)."""

    def rows(self) -> list[Preference]: ...

    def change(self, row: Preference, value: str | bool) -> str:
        """Save and apply; the sentence to show. Raises PreferenceError."""
        ...


def shown_value(row: Preference) -> str:
    if isinstance(row.value, bool):
        return "on" if row.value else "off"
    return row.value


def row_text(row: Preference, width: int) -> Text:
    """The row in three columns, cut to `width` (a long model name or path ends in …)."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(_cut(row.label, LABEL_WIDTH - 1).ljust(LABEL_WIDTH))
    text.append(_cut(shown_value(row), VALUE_WIDTH - 1).ljust(VALUE_WIDTH), style="bold")
    text.append(_cut(row.source, max(1, width - LABEL_WIDTH - VALUE_WIDTH)), style="dim")
    return text


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


class ConfigScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    ConfigScreen { align: center middle; background: $background 60%; }
    ConfigScreen #dialog {
        width: 90%;
        max-width: 110;
        height: auto;
        max-height: 90%;
        padding: 0 1;
        border: thick $primary;
        background: $panel;
    }
    ConfigScreen #settings { height: auto; border: none; padding: 0; background: $panel; }
    ConfigScreen #model { display: none; margin-top: 1; }
    ConfigScreen #said { height: auto; margin-top: 1; }
    ConfigScreen #said.-problem { color: $error; }
    ConfigScreen #keys { color: $text-muted; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", show=False),
        Binding("space", "change(1)", "Change", show=False),
        Binding("right", "change(1)", "Next", show=False),
        Binding("left", "change(-1)", "Previous", show=False),
    ]

    def __init__(self, panel: Panel) -> None:
        super().__init__()
        self.panel = panel
        self.rows: list[Preference] = panel.rows()

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as box:
            box.border_title = "Settings"
            yield OptionList(*self._options(), id="settings")
            yield Input(id="model", placeholder="A model name; Enter sets it, Esc leaves it as it is")
            yield Static("", id="said")
            yield Static(KEYS, id="keys")

    def on_mount(self) -> None:
        settings = self.query_one("#settings", OptionList)
        settings.highlighted = 0
        settings.focus()
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        from agentui.frontends.tui.screens.fit import fit_dialog

        fit_dialog(self, "#dialog", "#settings")
        self._redraw()

    # The rows

    def _options(self, width: int = 80) -> list[Option]:
        return [Option(row_text(row, width), id=row.key) for row in self.rows]

    def _redraw(self) -> None:
        settings = self.query_one("#settings", OptionList)
        width = settings.scrollable_content_region.width or 80
        for index, row in enumerate(self.rows):
            settings.replace_option_prompt_at_index(index, row_text(row, width))

    @property
    def highlighted(self) -> Preference | None:
        index = self.query_one("#settings", OptionList).highlighted
        return self.rows[index] if index is not None and 0 <= index < len(self.rows) else None

    # Changes

    @on(OptionList.OptionSelected, "#settings")
    def _selected(self) -> None:
        self.action_change(1)

    def action_change(self, step: int) -> None:
        if (row := self.highlighted) is None or self.query_one("#model", Input).display:
            return
        match row.kind:
            case "switch":
                self._change(row, not row.value)
            case "choice" if row.choices:
                at = row.choices.index(str(row.value)) if row.value in row.choices else -1
                self._change(row, row.choices[(at + step) % len(row.choices)])
            case "text":
                box = self.query_one("#model", Input)
                box.value = str(row.value)
                box.display = True
                box.focus()
            case _:
                pass

    @on(Input.Submitted, "#model")
    def _model_typed(self, event: Input.Submitted) -> None:
        row = next(row for row in self.rows if row.key == "model")
        self._close_box()
        if event.value.strip() and event.value.strip() != row.value:
            self._change(row, event.value.strip())

    def _close_box(self) -> None:
        box = self.query_one("#model", Input)
        box.display = False
        self.query_one("#settings", OptionList).focus()

    def _change(self, row: Preference, value: str | bool) -> None:
        from agentui.api import PreferenceError

        said = self.query_one("#said", Static)
        try:
            sentence = self.panel.change(row, value)
        except PreferenceError as exc:
            said.update(Text(str(exc)))
            said.add_class("-problem")
        else:
            said.update(Text(sentence))
            said.remove_class("-problem")
        self.rows = self.panel.rows()
        self._redraw()
        self.call_after_refresh(self._fit)

    def action_close(self) -> None:
        if self.query_one("#model", Input).display:  # Esc in the model's box leaves the model as it is
            self._close_box()
            return
        self.dismiss(None)
