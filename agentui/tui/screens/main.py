"""The main screen: transcript, pending messages, task list, completion list, prompt and status bar; and the keys
that read the transcript from the prompt (scroll, find, copy), so that focus can stay in the prompt."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widget import AwaitMount, Widget

from agentui.tui.clipboard import Copier
from agentui.tui.history import PromptHistory
from agentui.tui.widgets.prompt_input import PromptInput
from agentui.tui.widgets.transcript import Transcript


class MainScreen(Screen[None]):
    CSS_PATH = "main.tcss"
    AUTO_FOCUS = "PromptInput"  # typing works from the first keystroke, before the conversation has opened
    BINDINGS: ClassVar[list[BindingType]] = [
        # The transcript scrolls from wherever focus is (it is almost always in the prompt).
        Binding("pageup", "scroll_transcript('page_up')", "Scroll up", show=False, priority=True),
        Binding("pagedown", "scroll_transcript('page_down')", "Scroll down", show=False, priority=True),
        Binding("ctrl+home", "scroll_transcript('home')", "Scroll to the top", show=False, priority=True),
        Binding("ctrl+end", "scroll_transcript('end')", "Scroll to the end", show=False, priority=True),
        Binding("ctrl+o", "copy", "Copy", show=False, priority=True),
        Binding("ctrl+r", "search_history", "Search earlier prompts", show=False),
        Binding("ctrl+f", "find", "Find in the transcript", show=False, priority=True),
        Binding("ctrl+l", "clear_view", "Clear the view", show=False),
    ]

    def __init__(
        self, transcript: Transcript, prompt: PromptInput, history: PromptHistory, copier: Copier, *others: Widget
    ) -> None:
        super().__init__()
        self.transcript = transcript
        self.prompt = prompt
        self.history = history
        self.copier = copier
        self.earlier: Callable[[], AwaitMount | None] = lambda: None
        """Draws the next older parts of a resumed session (None when there are none)."""
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

    def action_scroll_transcript(self, where: str) -> None:
        transcript = self.transcript
        if where in ("page_up", "home") and transcript.scroll_y <= 0 and self.draw_earlier(where == "page_up"):
            return
        if where == "page_up":
            transcript.scroll_page_up(animate=False)
        elif where == "page_down":
            transcript.scroll_page_down(animate=False)
        elif where == "home":
            transcript.scroll_home(animate=False)
        else:
            transcript.scroll_end(animate=False)
            transcript.anchor()  # at the end again: follow what arrives

    def draw_earlier(self, page_up: bool = False) -> bool:
        """At the top of the transcript: draw the older parts of a resumed session above, keeping in view what
        was (then a page up, for PageUp); False when there are none."""
        transcript = self.transcript
        before = transcript.virtual_size.height
        mounting = self.earlier()
        if mounting is None:
            return False

        def keep_place() -> None:
            transcript.scroll_to(y=transcript.virtual_size.height - before, animate=False, immediate=True)
            if page_up:
                transcript.scroll_page_up(animate=False)

        async def once_laid_out() -> None:
            await mounting
            transcript.call_after_refresh(keep_place)

        self.run_worker(once_laid_out(), group="earlier")
        return True

    def action_find(self) -> None:
        from agentui.tui.finder import TranscriptFinder
        from agentui.tui.screens.transcript_search import TranscriptSearch

        finder = TranscriptFinder(self.transcript)
        self.app.push_screen(TranscriptSearch(finder.find), lambda _: finder.unmark())

    def action_search_history(self) -> None:
        from agentui.tui.screens.history_search import HistorySearch

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

    def on_key(self, event: events.Key) -> None:
        """A character typed while focus is elsewhere (a tool block, the transcript) goes to the prompt, with the
        focus: typing is never lost. (The prompt takes its own characters, so any that reach the screen were not
        taken, even when the focus has moved back to the prompt since the key was sent on its way.)"""
        if event.is_printable and event.character:
            event.stop()
            self.prompt.focus()
            self.prompt.insert(event.character, maintain_selection_offset=False)  # (the cursor goes past it)
