"""The prompt: multi-line input where Enter sends and Shift+Enter or Ctrl+J starts a new line, Up and Down walk the
history at the first and last line, and a completion list offers slash commands and `@` project files. Ctrl+V pastes
the clipboard's image, and a dropped image file is attached rather than typed: each shows as an `[Image #N]` chip in
the text, and goes with the prompt while its chip is there. A long paste shows as a `[Pasted text #N +L lines]` chip,
and is sent whole in its place. Backspace at the end of a chip removes it whole. With `/vim` the prompt has vim's INSERT
and NORMAL modes (`prompt_vim.py`; "-- INSERT --" on its lower border, as Claude Code shows it), Ctrl+G edits it in
$VISUAL or $EDITOR (`external_editor.py`), and `ultrathink` in it is drawn in colours: that prompt gets the most
thinking."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, cast

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import OptionList, TextArea
from textual.widgets.option_list import Option

from agentui.frontends.tui.history import PromptHistory
from agentui.frontends.tui.key_frame import draw_now
from agentui.frontends.tui.type_ahead import TakesTyping, type_into
from agentui.frontends.tui.widgets.kill_ring import HINT_CHARS, KillRing
from agentui.frontends.tui.widgets.theme_colours import ThemeColoursOnChange

if TYPE_CHECKING:
    from agentui.api.messages import ImageBlock
    from agentui.frontends.tui.widgets.prompt_vim import PromptVim

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})
PASTE_CHARS, PASTE_LINES = 800, 10
"""A paste longer than either shows as a chip, `[Pasted text #1 +120 lines]`, and is sent whole (as Claude Code's)."""
CHIP = re.compile(r"\[(?:Image|Pasted text) #\d+(?: \+[\d,]+ lines)?\]$")

MAX_COMPLETIONS = 12
RAINBOW = ("#ff5f5f", "#ffaf5f", "#ffff5f", "#5fff5f", "#5fafff", "#af87ff", "#ff87d7")
"""`ultrathink` is drawn a colour a letter, as Claude Code draws it."""
ULTRATHINK_NOTE = "ultrathink: the most thinking for this prompt"


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


class PromptInput(ThemeColoursOnChange):
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
    PromptInput { border-subtitle-align: left; border-subtitle-color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        # As Claude Code's prompt: Ctrl+Y puts back what Ctrl+U, Ctrl+K or Ctrl+W took (TextArea's is redo), and
        # Ctrl+_ undoes.
        Binding("ctrl+y", "yank", "Paste what was deleted", show=False),
        Binding("ctrl+underscore,ctrl+minus", "undo", "Undo", show=False),
        Binding("ctrl+g", "external_editor", "Edit the prompt in $EDITOR", show=False),
    ]

    class Submitted(Message):
        def __init__(self, text: str, images: list[ImageBlock] | None = None) -> None:
            super().__init__()
            self.text = text
            self.images = images or []

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
        self.images: dict[int, ImageBlock] = {}
        """The images attached to the prompt being written, by the number their chip shows."""
        self.pastes: dict[str, str] = {}
        """Long pastes in the prompt being written, by their chip: each is sent in its chip's place."""
        self.kills = KillRing()
        self._hint = ""
        """A passing hint under the prompt (how to get back what a kill took)."""
        self.vim_keys: PromptVim | None = None
        """Vim mode's state, while the editor mode is vim."""
        self.busy: Callable[[], bool] = lambda: False
        """Whether something runs that Esc interrupts (the app says): Esc is then the app's first."""
        self._asks_more_thinking = False
        self.typed_at = 0.0
        """When (time.monotonic) the person last typed a character here since the prompt was last sent: a question
        that appears a moment after takes no key as an answer until they stop (type_ahead.TypingHold)."""

    def set_editor_mode(self, vim: bool) -> None:
        """Vim mode on (starting in INSERT mode, as Claude Code's) or off."""
        if vim != (self.vim_keys is not None):
            from agentui.frontends.tui.widgets.prompt_vim import PromptVim  # (its engine loads with vim mode)

            self.vim_keys = PromptVim(self) if vim else None
        self.show_modes()

    # What vim mode uses of the prompt (prompt_vim.VimPrompt)

    def replace_text(self, text: str) -> None:
        """The text made `text` by replacing only what differs, as one undoable edit."""
        before, start = self.text, 0
        while start < min(len(before), len(text)) and before[start] == text[start]:
            start += 1
        end_before, end_after = len(before), len(text)
        while end_before > start and end_after > start and before[end_before - 1] == text[end_after - 1]:
            end_before, end_after = end_before - 1, end_after - 1
        self.history.checkpoint()
        self.replace(text[start:end_after], _location(before, start), _location(before, end_before))
        self.history.checkpoint()

    def recall(self, earlier: bool) -> None:
        recalled = self.prompt_history.previous(self.text) if earlier else self.prompt_history.next()
        if recalled is not None:
            self.replace_all(recalled)

    def search_history(self) -> None:
        self.call_later(self.run_action, "screen.search_history")

    def vim_changed(self) -> None:
        if self.vim_keys is not None and self.vim_keys.mode != "INSERT":
            self.completions.hide()
        self.show_modes()

    def show_modes(self) -> None:
        """The lower border: vim's mode ("-- INSERT --"; nothing in NORMAL, as vim and Claude Code), and whether
        the prompt asks for more thinking."""
        parts = [f"-- {self.vim_keys.mode} --"] if self.vim_keys is not None and self.vim_keys.mode != "NORMAL" else []
        if self._asks_more_thinking:
            parts.append(ULTRATHINK_NOTE)
        if self._hint:
            parts.append(self._hint)
        self.border_subtitle = " · ".join(parts)

    def get_line(self, line_index: int) -> Text:
        """A line of the prompt, with `ultrathink` in colours (TextArea's hook for styling its lines)."""
        line = super().get_line(line_index)
        if "think" in line.plain.lower():
            for start, end in _thinking_words(line.plain):
                for index in range(start, end):
                    line.stylize(f"bold {RAINBOW[(index - start) % len(RAINBOW)]}", index, index + 1)
        return line

    def action_external_editor(self) -> None:
        """Ctrl+G: the prompt's text in $VISUAL or $EDITOR, the terminal handed to it until it ends."""
        from agentui.frontends.tui.external_editor import EditorHost, edit_prompt

        edit_prompt(self, cast("EditorHost", self.app))

    def on_key(self, event: events.Key) -> None:
        """Keys the prompt gives a meaning of its own; any other key goes on to TextArea's own handling (Textual
        calls it next unless the event's default is prevented)."""
        key = event.key
        if event.is_printable:
            self.typed_at = time.monotonic()
        self.call_next(draw_now, self)  # once this key is handled, whoever handles it
        screen = self.app.screen
        if screen is not self.screen and event.is_printable and event.character and isinstance(screen, TakesTyping):
            # Typed after the key that opened a search or filter, but sent here before it was open: it is its.
            event.stop()
            event.prevent_default()
            type_into(screen.typing_box(), event.character)
            return
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
        if self.vim_keys is not None and self.vim_keys.key(event):
            event.stop()
            event.prevent_default()
            return
        if key == "enter":
            event.stop()
            event.prevent_default()
            self.submit()
            return
        if key == "backspace" and self.selection.is_empty:
            row, column = self.cursor_location
            if found := CHIP.search(self.document.get_line(row)[:column]):  # a chip goes whole
                event.stop()
                event.prevent_default()
                self.delete((row, found.start()), (row, column))
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
                self.replace_all(recalled)
                return
        if key == "down" and self.cursor_location[0] == self.document.line_count - 1:
            recalled = self.prompt_history.next()
            if recalled is not None:
                event.stop()
                event.prevent_default()
                self.replace_all(recalled)

    def submit(self) -> None:
        text = self.text
        if not text.strip():
            return
        images = [image for number, image in sorted(self.images.items()) if chip(number) in text]
        text = self.expanded()
        self.images.clear()
        self.pastes.clear()
        self.typed_at = 0.0
        self.prompt_history.add(text)
        self.completions.hide()
        self.clear()
        self.post_message(self.Submitted(text, images))

    # Kill and yank

    def _killed(self, before: tuple[str, tuple[int, int]], *, backwards: bool) -> None:
        piece = self.kills.killed(before, (self.text, self.cursor_location), backwards=backwards)
        if len(piece) >= HINT_CHARS:
            self._hint = "Ctrl+Y to paste deleted text"
            self.show_modes()
            self.set_timer(5, self._hint_gone)

    def _hint_gone(self) -> None:
        self._hint = ""
        self.show_modes()

    def action_delete_to_start_of_line(self) -> None:
        before = (self.text, self.cursor_location)
        super().action_delete_to_start_of_line()
        self._killed(before, backwards=True)

    async def action_delete_to_end_of_line_or_delete_line(self) -> None:
        before = (self.text, self.cursor_location)
        await super().action_delete_to_end_of_line_or_delete_line()
        self._killed(before, backwards=False)

    def action_delete_word_left(self) -> None:
        before = (self.text, self.cursor_location)
        super().action_delete_word_left()
        self._killed(before, backwards=True)

    def action_yank(self) -> None:
        if self.kills.text:
            self.insert(self.kills.text)

    # Images

    def attach(self, image: ImageBlock) -> int:
        """Attach an image: its chip goes in at the cursor, and the image with the prompt."""
        number = max(self.images, default=0) + 1
        self.images[number] = image
        self.insert(chip(number) + " ")
        return number

    def action_paste(self) -> None:
        """Ctrl+V: the clipboard's image, if it holds one (else what Ctrl+O last copied, as TextArea pastes)."""
        self.run_worker(self._paste_image(), group="paste", exclusive=True, exit_on_error=False)

    async def _paste_image(self) -> None:
        from agentui.api import ImageError, image_from_bytes
        from agentui.frontends.tui.clipboard_image import clipboard_image

        data = await clipboard_image(getattr(self.app, "env", None))
        if data is None:
            if self.app.clipboard:
                super().action_paste()
            else:
                self.app.notify("The clipboard holds no image (paste text with the terminal's own paste).")
            return
        try:
            self.attach(image_from_bytes(data, "The clipboard's image"))
        except ImageError as exc:
            self.app.notify(str(exc), severity="warning")

    async def _on_paste(self, event: events.Paste) -> None:
        """A file dropped on the terminal arrives as its pasted path: an image is attached instead of typed."""
        from agentui.api import ImageError, image_from_file
        from agentui.frontends.tui.clipboard_image import dropped_path

        if self.vim_keys is not None and self.vim_keys.mode == "INSERT":
            self.vim_keys.vim.typed(event.text)  # (`.` types it again)
        path = dropped_path(event.text)
        if path is None or not path.lower().endswith(tuple(IMAGE_SUFFIXES)):
            if len(event.text) > PASTE_CHARS or len(event.text.splitlines()) > PASTE_LINES:  # (\r, \r\n or \n)
                event.prevent_default()
                self._paste_chip(event.text)
            return  # (else TextArea's own handler pastes the text)
        try:
            image = image_from_file(path)
        except ImageError as exc:
            self.app.notify(str(exc), severity="warning")
            return
        event.prevent_default()  # (not typed as well)
        self.attach(image)

    def _paste_chip(self, text: str) -> None:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        number = len(self.pastes) + 1
        placeholder = f"[Pasted text #{number} +{text.count(chr(10)):,} lines]"
        self.pastes[placeholder] = text
        self.insert(placeholder)

    def expanded(self) -> str:
        """The prompt's text with each paste chip still in it replaced by what was pasted."""
        text = self.text
        for placeholder, pasted in self.pastes.items():
            text = text.replace(placeholder, pasted)
        return text

    def take_text(self) -> str:
        """What the prompt holds, taken out of it (typed ahead into a box that opened after it was sent)."""
        text = self.expanded()
        self.clear_prompt()
        return text

    def clear_prompt(self) -> None:
        """Empty the prompt, with what was attached to it."""
        self.clear()
        self.images.clear()
        self.pastes.clear()

    def replace_all(self, text: str) -> None:
        self.text = text
        self.move_cursor(self.document.end)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        asks = "think" in self.text.lower() and bool(_thinking_words(self.text))
        if asks != self._asks_more_thinking:
            self._asks_more_thinking = asks
            self.show_modes()
        if self.vim_keys is None or self.vim_keys.mode == "INSERT":
            self.offer_completions()

    def offer_completions(self) -> None:
        """The list for what is before the cursor (none when nothing is typed)."""
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


def _thinking_words(text: str) -> list[tuple[int, int]]:
    from agentui.api import thinking_words

    return thinking_words(text)


def chip(number: int) -> str:
    """How an attached image shows in the prompt's text."""
    return f"[Image #{number}]"


def _location(text: str, offset: int) -> tuple[int, int]:
    """The (row, column) of `offset` in `text`."""
    row = text.count("\n", 0, offset)
    return row, offset - (text.rfind("\n", 0, offset) + 1)
