"""The prompt's vim mode at work: which keys go to the vim state machine (`vim.Vim`), and what its answers do to the
prompt (its text and cursor changed as one undoable edit, history, undo). Esc belongs to the app while something
runs: it interrupts, and the prompt goes to NORMAL mode as well; idle, Esc in INSERT mode goes to NORMAL, and Esc in
NORMAL mode with no command half-typed is the app's own Esc (twice: clear the prompt, or rewind)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from textual import events

from agentui.frontends.tui import vim_motions
from agentui.frontends.tui.vim import Outcome, Vim

NORMAL_KEYS = {"left": "h", "right": "l", "backspace": "h", "delete": "x", "space": " "}
"""Keys that mean a vim key in NORMAL mode, as Claude Code maps them."""
PASSED_ON = frozenset({"enter", "up", "down", "tab", "shift+tab"})
"""Keys whose meaning in NORMAL mode is the prompt's own: send, history (or move a line), focus."""


class VimPrompt(Protocol):
    """What vim mode uses of the prompt (`PromptInput`)."""

    busy: Callable[[], bool]

    @property
    def text(self) -> str: ...

    @property
    def cursor_location(self) -> tuple[int, int]: ...

    def move_cursor(self, location: tuple[int, int]) -> None: ...

    def undo(self) -> None: ...

    def replace_text(self, text: str) -> None:
        """The text made `text` as one undoable edit."""

    def recall(self, earlier: bool) -> None:
        """An earlier (later) prompt of the history in place of the text, if there is one."""

    def search_history(self) -> None: ...

    def vim_changed(self) -> None:
        """After each key vim mode took: its mode shown, completions only in INSERT mode."""


class PromptVim:
    def __init__(self, prompt: VimPrompt) -> None:
        self.prompt = prompt
        self.vim = Vim()

    @property
    def mode(self) -> str:
        return self.vim.mode

    def key(self, event: events.Key) -> bool:
        """Whether the prompt's vim mode took `event` (the caller stops it)."""
        key, vim = event.key, self.vim
        if key == "escape":
            if self.prompt.busy():  # (interrupting is never lost: the app's Esc runs too)
                if vim.mode == "INSERT" or vim.pending:
                    self.apply(vim.escape(*self._state()))
                return False
            return self.apply(vim.escape(*self._state()))
        if key.startswith("alt+") and key != "alt+t" and len(event.character or "") == 1:
            return self._escape_then(event.character or "")
        if vim.mode == "INSERT":
            if event.is_printable and event.character:
                vim.typed(event.character)
            elif key == "backspace":
                vim.erased()
            elif key in ("shift+enter", "ctrl+j"):
                vim.typed("\n")
            return False
        typed = NORMAL_KEYS.get(key) or (event.character if event.is_printable else None)
        if key in PASSED_ON or typed is None:
            return False
        text, cursor = self._state()
        self.apply(vim.key(typed, text, vim_motions.clamp(text, cursor)))
        return True

    def _escape_then(self, typed: str) -> bool:
        """Esc and a key typed at once reach a terminal program as one Alt+key: here they are Esc, then the key, as
        vim takes them (Alt+T stays the app's key for thinking)."""
        self.apply(self.vim.escape(*self._state()))
        if self.vim.mode == "NORMAL" and typed.isprintable():
            text, cursor = self._state()
            self.apply(self.vim.key(typed, text, vim_motions.clamp(text, cursor)))
        return True

    def _state(self) -> tuple[str, int]:
        prompt = self.prompt
        text, (row, column) = prompt.text, prompt.cursor_location
        return text, vim_motions.line_offset(text, row) + column

    def apply(self, outcome: Outcome | None) -> bool:
        """The prompt made to say what `outcome` says; False for none."""
        if outcome is None:
            return False
        prompt = self.prompt
        if outcome.text != prompt.text:
            prompt.replace_text(outcome.text)
        prompt.move_cursor(location(prompt.text, outcome.cursor))
        match outcome.action:
            case "undo":
                prompt.undo()
                self._clamp()
            case "history_previous" | "history_next":
                prompt.recall(earlier=outcome.action == "history_previous")
                self._clamp()
            case "history_search":
                prompt.search_history()
            case "":
                pass
        prompt.vim_changed()
        return True

    def _clamp(self) -> None:
        text, cursor = self._state()
        self.prompt.move_cursor(location(text, vim_motions.clamp(text, cursor)))


def location(text: str, offset: int) -> tuple[int, int]:
    """The (row, column) of `offset` in `text`."""
    return vim_motions.line_number(text, offset), offset - vim_motions.line_start(text, offset)
