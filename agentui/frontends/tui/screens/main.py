"""The main screen: transcript, pending messages, task list, completion list, prompt and status bar; and the keys
that read the transcript from the prompt (scroll, find, copy), so that focus can stay in the prompt."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, ClassVar, cast

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widget import Widget

from agentui.frontends.tui.clipboard import Copier
from agentui.frontends.tui.history import PromptHistory
from agentui.frontends.tui.history_window import HistoryWindow
from agentui.frontends.tui.widgets.prompt_input import PromptInput
from agentui.frontends.tui.widgets.transcript import Transcript

if TYPE_CHECKING:
    from agentui.frontends.tui.host import AppHost

REWIND_WINDOW = 0.8
"""Seconds within which a second Esc on an empty prompt opens the rewind picker."""


def _part_index(widget: Widget | None) -> int | None:
    """The index in the history of the part `widget` shows, if it is one put back from the line-drawn history."""
    group = widget.parent if widget is not None else None
    return getattr(group, "part_index", None)


class MainScreen(Screen[None]):
    # (DEFAULT_CSS, not a CSS_PATH file: Textual loads a screen's CSS_PATH when the screen is pushed, and this one
    # is the default screen, never pushed; its .tcss was never read)
    DEFAULT_CSS = """
    MainScreen { layout: vertical; background: $background; }
    MainScreen #pending { display: none; height: auto; margin: 0 1; color: $text-muted; text-style: italic; }
    MainScreen #transcript > .-found { background: $accent 25%; }
    MainScreen #below-prompt { height: auto; }
    """
    AUTO_FOCUS = "PromptInput"  # typing works from the first keystroke, before the conversation has opened
    BINDINGS: ClassVar[list[BindingType]] = [
        # The transcript scrolls from wherever focus is (it is almost always in the prompt).
        Binding("pageup", "scroll_transcript('page_up')", "Scroll up", show=False, priority=True),
        Binding("pagedown", "scroll_transcript('page_down')", "Scroll down", show=False, priority=True),
        Binding("ctrl+home", "scroll_transcript('home')", "Scroll to the top", show=False, priority=True),
        Binding("ctrl+end", "scroll_transcript('end')", "Scroll to the end", show=False, priority=True),
        Binding("ctrl+o", "copy", "Copy", show=False, priority=True),
        # Priority: the search opens before the next key is handed on, so the words typed at once reach its box.
        Binding("ctrl+r", "search_history", "Search earlier prompts", show=False, priority=True),
        Binding("ctrl+f", "find", "Find in the transcript", show=False, priority=True),
        Binding("ctrl+l", "clear_view", "Clear the view", show=False),
        Binding("ctrl+b", "to_background", "Run in the background", show=False, priority=True),
        Binding("tab", "next_block", "The next block up", show=False),
        Binding("ctrl+p", "pin", "Pin the block in focus", show=False, priority=True),
    ]

    def __init__(
        self,
        transcript: Transcript,
        window: HistoryWindow,
        prompt: PromptInput,
        history: PromptHistory,
        copier: Copier,
        *others: Widget,
    ) -> None:
        super().__init__()
        self.transcript = transcript
        self.window = window
        """A resumed session's parts, drawn as the reader comes near them."""
        self.prompt = prompt
        self.history = history
        self.copier = copier
        self._escaped_at = 0.0
        self._others = others
        """What sits between the transcript and the prompt, and below it, in order."""

    def compose(self) -> ComposeResult:
        yield self.transcript
        yield from self._others[:-1]
        yield self.prompt
        yield self._others[-1]

    def on_screen_resume(self) -> None:
        # Widgets mounted or resized while a question covered this screen were laid out out of sight; lay out and
        # paint the whole screen again now that it is back, or the terminal can keep a stale frame.
        self.refresh(layout=True, repaint=True)

    def action_next_block(self) -> None:
        """Tab: from the prompt, the newest block; from a block, the one above it; from the oldest, the prompt
        again. (The newest is what was just done, by the prompt; Textual's own order starts at the oldest.) A call
        in the line-drawn history is put back as its live block to take the focus."""
        from agentui.frontends.tui.widgets.tool_block import ToolBlock

        blocks = [block for block in self.transcript.query(ToolBlock) if block.display]
        at = self.focused
        older = blocks[: blocks.index(at)] if isinstance(at, ToolBlock) and at in blocks else blocks
        live = older[-1] if older else None
        drawn = self.window.newest_call(_part_index(at))
        live_index = _part_index(live)  # (None for a block of the live conversation: newer than any line-drawn one)
        if drawn is not None and (live is None or (live_index is not None and drawn[1] > live_index)):

            def focus(widgets: list[Widget]) -> None:
                next(widget for widget in widgets if isinstance(widget, ToolBlock)).focus()

            self.window.open(*drawn, focus)
            return
        (live or self.prompt).focus()

    def action_pin(self) -> None:
        """Ctrl+P: pin the focused prompt or tool call, so every compaction carries it verbatim (or unpin it)."""
        from agentui.frontends.tui.pinning import pin_focused

        pin_focused(cast("AppHost", self.app), self.focused)

    def action_to_background(self) -> None:
        """Ctrl+B: the command running now goes on in the background (the model is told its id)."""
        app = cast("AppHost", self.app)
        conversation = app.conversation
        if conversation is None or not conversation.background_foreground():
            app.say("No command is running to send to the background (Ctrl+B does that for a running Bash command).")

    def action_scroll_transcript(self, where: str) -> None:
        transcript, window = self.transcript, self.window
        if where == "page_up":
            # At the very top, older parts of a resumed session are drawn first (they are drawn ahead as the
            # reader nears them, so this waits only when PageUp comes faster than they could be).
            if transcript.scroll_y > 0 or not window.then(lambda: self._page(-1)):
                self._page(-1)
        elif where == "page_down":
            self._page(1)
        elif where == "home":
            window.to_start(lambda: transcript.scroll_home(animate=False))
        else:
            window.to_end(self._to_end)

    def _page(self, pages: int) -> None:
        """A page up (-1) or down (1) from where the last page key left the view, at once: Textual's own page scroll
        lands after the next refresh, so keys that came faster than refreshes all scrolled from the same place and
        most of a held key's presses were lost."""
        transcript = self.transcript
        height = transcript.scrollable_content_region.height
        transcript.scroll_to(y=transcript.scroll_y + pages * height, animate=False, immediate=True)

    def _to_end(self) -> None:
        self.transcript.scroll_end(animate=False)
        self.transcript.anchor()  # at the end again: follow what arrives

    def escaped_when_idle(self) -> None:
        """Esc with nothing running: a second one soon after opens the rewind picker on an empty prompt, and clears
        a prompt with text (kept in the history: ↑ brings it back), as Claude Code's Esc Esc."""
        now, text = time.monotonic(), self.prompt.expanded()
        if now - self._escaped_at > REWIND_WINDOW:
            self._escaped_at = now
            return
        self._escaped_at = 0.0
        if text.strip():
            self.history.add(text)
            self.prompt.clear_prompt()
            return
        from agentui.frontends.tui.slash_commands import run_command

        self.run_worker(run_command(cast("AppHost", self.app), "/rewind"), exit_on_error=False)

    def action_find(self) -> None:
        from agentui.frontends.tui.finder import TranscriptFinder
        from agentui.frontends.tui.screens.transcript_search import TranscriptSearch

        finder = TranscriptFinder(self.transcript, self.window)
        self.app.push_screen(TranscriptSearch(finder.find), lambda _: finder.unmark())

    def action_search_history(self) -> None:
        from agentui.frontends.tui.screens.history_search import HistorySearch

        def picked(text: str | None) -> None:
            if text is not None:
                self.prompt.text = text
                self.prompt.move_cursor(self.prompt.document.end)
            self.prompt.focus()

        self.app.push_screen(HistorySearch(self.history.entries), picked)

    def action_copy(self) -> None:
        self.copier.copy()

    def action_clear_view(self) -> None:
        self.transcript.clear()
        cast("AppHost", self.app).redraw()  # (Ctrl+L is also what a terminal's user presses for a garbled screen)

    def on_key(self, event: events.Key) -> None:
        """A character typed while focus is elsewhere (a tool block, the transcript) goes to the prompt, with the
        focus: typing is never lost. (The prompt takes its own characters, so any that reach the screen were not
        taken, even when the focus has moved back to the prompt since the key was sent on its way.)"""
        if event.is_printable and event.character:
            event.stop()
            self.prompt.focus()
            self.prompt.insert(event.character, maintain_selection_offset=False)  # (the cursor goes past it)
