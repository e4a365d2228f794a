"""The conversation on screen: prompts and notices in a scroll that stays at the bottom. Answers, thinking and
compaction marks live in `answer.py`, imported with the first answer (they are re-exported here, lazily)."""

from __future__ import annotations

from typing import Any, TypeVar

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

W = TypeVar("W", bound=Widget)


class Transcript(VerticalScroll):
    """Anchored to the bottom while content arrives, unless the person scrolls up; far-off old widgets pruned
    (the session file keeps everything)."""

    DEFAULT_CSS = """
    Transcript {
        layout: vertical;
        height: 1fr;
        padding: 0 1;
        scrollbar-size-vertical: 1;
    }
    """
    MAX_WIDGETS = 400

    def on_mount(self) -> None:
        self.anchor()

    def add(self, widget: W) -> W:
        self.mount(widget)
        extra = len(self.children) - self.MAX_WIDGETS
        if extra > 0:
            for old in list(self.children)[:extra]:
                old.remove()
        return widget

    def clear(self) -> None:
        self.remove_children()
        self.anchor()


class UserPrompt(Static):
    DEFAULT_CSS = """
    UserPrompt {
        margin: 1 0 0 0;
        padding: 0 1;
        background: $boost;
        border-left: thick $primary;
    }
    UserPrompt.-context { border-left: thick $secondary; color: $text-muted; }
    """

    def __init__(self, text: str, *, context: bool = False) -> None:
        super().__init__(Content(text), classes="-context" if context else "")
        self.text = text


class Notice(Static):
    """A line from agentui itself: info, a warning, or an error in one clear sentence."""

    DEFAULT_CSS = """
    Notice { margin: 1 0 0 0; color: $text-muted; }
    Notice.-warning { color: $warning; }
    Notice.-error { color: $error; text-style: bold; }
    """

    def __init__(self, message: str, level: str = "info") -> None:
        super().__init__(Content(message), classes=f"-{level}")
        self.message = message


def __getattr__(name: str) -> Any:
    if name in ("AssistantText", "ThinkingView", "CompactionMark", "BATCH_SECONDS"):
        from agentui.tui.widgets import answer

        return getattr(answer, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
