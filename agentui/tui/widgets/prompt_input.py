"""The prompt: multi-line input where Enter sends and Shift+Enter or Ctrl+J starts a new line, Up and Down walk the
history at the first and last line, and a completion list offers slash commands and `@` project files."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual import events
from textual.message import Message
from textual.widgets import OptionList, TextArea
from textual.widgets.option_list import Option

from agentui.tui.history import PromptHistory

MAX_COMPLETIONS = 12


@dataclass(frozen=True)
class Completion:
    value: str
    description: str = ""


class CompletionList(OptionList):
    DEFAULT_CSS = """
    CompletionList {
        display: none;
        height: auto;
        max-height: 12;
        margin: 0 1;
        border: round $primary 50%;
        background: $surface;
    }
    CompletionList.-visible { display: block; }
    """

    def __init__(self) -> None:
        super().__init__(markup=False, compact=True)
        self.items: list[Completion] = []
        self.can_focus = False

    @property
    def showing(self) -> bool:
        # (not `visible`: that is Textual's own, which it sets and reads)
        return self.has_class("-visible")

    def show(self, items: list[Completion]) -> None:
        self.items = items[:MAX_COMPLETIONS]
        self.clear_options()
        if not self.items:
            self.hide()
            return
        self.add_options([Option(f"{item.value}  {item.description}".rstrip()) for item in self.items])
        self.highlighted = 0
        self.add_class("-visible")

    def hide(self) -> None:
        self.remove_class("-visible")
        self.items = []

    def move(self, delta: int) -> None:
        if self.items:
            self.highlighted = ((self.highlighted or 0) + delta) % len(self.items)

    def chosen(self) -> Completion | None:
        if not self.items or self.highlighted is None:
            return None
        return self.items[self.highlighted]


class PromptInput(TextArea):
    DEFAULT_CSS = """
    PromptInput {
        height: auto;
        min-height: 3;
        max-height: 12;
        margin: 0 1;
        border: round $primary 40%;
        background: $surface;
    }
    PromptInput:focus { border: round $primary; }
    """

    class Submitted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(
        self,
        history: PromptHistory,
        completions: CompletionList,
        complete: Callable[[str], list[Completion]],
    ) -> None:
        super().__init__(
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            highlight_cursor_line=False,
            placeholder="Ask for something — Enter sends, Ctrl+J for a new line, / for commands, @ for files",
        )
        self.prompt_history = history
        self.completions = completions
        self._complete = complete

    def on_key(self, event: events.Key) -> None:
        """Keys the prompt gives a meaning of its own; any other key goes on to TextArea's own handling (Textual
        calls it next unless the event's default is prevented)."""
        key = event.key
        exact: Completion | None = None
        if self.completions.showing and key in ("up", "down", "tab", "enter", "escape"):
            row, column = self.cursor_location
            before = self.document.get_line(row)[:column]
            fresh = self._complete(before)
            if not fresh:
                # Typed on past what the menu was for (a paste, or keys faster than the menu's update): the
                # key means what it means without a menu, and "/check 19 23" is sent as typed.
                self.completions.hide()
            elif [c.value for c in fresh] != [c.value for c in self.completions.items]:
                self.completions.show(fresh)  # the menu lagged behind the keys: what was typed decides, not it
            typed = before.split()[-1] if before.split() else ""
            exact = next((c for c in fresh if c.value == typed), None)
        if self.completions.showing and key in ("up", "down", "tab", "enter", "escape"):
            event.stop()
            event.prevent_default()
            if key in ("up", "down"):
                self.completions.move(-1 if key == "up" else 1)
            elif key == "escape":
                self.completions.hide()
            else:
                choice = exact or self.completions.chosen()  # "/cost" typed in full is /cost, whatever is lit
                self._accept(choice)
                if key == "enter" and choice is not None and choice.value.startswith("/"):
                    self.submit()  # Enter on a command runs it; Tab only completes it
            return
        if key == "enter":
            event.stop()
            event.prevent_default()
            self.submit()
            return
        if key in ("shift+enter", "ctrl+j"):
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        if key == "up" and self.cursor_location[0] == 0:
            recalled = self.prompt_history.previous(self.text)
            if recalled is not None:
                event.stop()
                event.prevent_default()
                self._replace_all(recalled)
                return
        if key == "down" and self.cursor_location[0] == self.document.line_count - 1:
            recalled = self.prompt_history.next()
            if recalled is not None:
                event.stop()
                event.prevent_default()
                self._replace_all(recalled)

    def submit(self) -> None:
        text = self.text
        if not text.strip():
            return
        self.prompt_history.add(text)
        self.completions.hide()
        self.clear()
        self.post_message(self.Submitted(text))

    def _replace_all(self, text: str) -> None:
        self.text = text
        self.move_cursor(self.document.end)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        row, column = self.cursor_location
        before = self.document.get_line(row)[:column]
        self.completions.show(self._complete(before) if before.strip() else [])

    def _accept(self, choice: Completion | None) -> None:
        self.completions.hide()
        if choice is None:
            return
        row, column = self.cursor_location
        before = self.document.get_line(row)[:column]
        start = max(before.rfind("@") if choice.value.startswith("@") else before.find("/"), 0)
        self.replace(choice.value + " ", (row, start), (row, column))  # what follows the cursor stays
        self.move_cursor((row, start + len(choice.value) + 1))
