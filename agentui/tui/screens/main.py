"""The main screen: transcript, pending messages, completion list, prompt and status bar."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widget import Widget


class MainScreen(Screen[None]):
    CSS_PATH = "main.tcss"
    AUTO_FOCUS = "PromptInput"  # typing works from the first keystroke, before the conversation has opened

    def __init__(self, *widgets: Widget) -> None:
        super().__init__()
        self._widgets = widgets

    def compose(self) -> ComposeResult:
        yield from self._widgets

    def on_screen_resume(self) -> None:
        # Widgets mounted or resized while a question covered this screen were laid out out of sight; lay out and
        # paint the whole screen again now that it is back, or the terminal can keep a stale frame.
        self.refresh(layout=True, repaint=True)
