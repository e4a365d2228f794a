"""The conversation on screen: prompts and notices in a scroll that stays at the bottom. Answers, thinking and
compaction marks live in `answer.py`, imported with the first answer (they are re-exported here, lazily)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, TypeVar

from textual import events
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widget import AwaitMount, Widget
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

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.on_top: Callable[[], object] | None = None
        """Called when the wheel turns up at the top: older parts can be drawn."""
        self._kept: deque[Widget] = deque()
        """What this transcript added and has not pruned, oldest first. `remove()` completes later, so the
        children still list a widget being removed: pruning from them would remove it again on every add."""

    def on_mount(self) -> None:
        self.anchor()

    def add(self, widget: W) -> W:
        self.mount(widget)
        self._kept.append(widget)
        self._prune()
        return widget

    def add_all(self, widgets: list[Widget]) -> None:
        """Mount many at once (a resumed history): one layout pass, and only the newest MAX_WIDGETS at all."""
        widgets = widgets[-self.MAX_WIDGETS :]
        if widgets:
            self.mount_all(widgets)
            self._kept.extend(widgets)
            self._prune()

    def add_after(self, widgets: list[Widget], after: Widget) -> AwaitMount:
        """Older parts drawn above the newer ones (a resumed session, read further back)."""
        self._kept.extendleft(reversed(widgets))
        return self.mount_all(widgets, after=after)

    def _on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        if self.scroll_y <= 0 and self.on_top is not None:  # at the top, and the wheel asks for more
            self.on_top()
        super()._on_mouse_scroll_up(event)

    def _prune(self) -> None:
        while len(self._kept) > self.MAX_WIDGETS:
            self._kept.popleft().remove()

    def clear(self) -> None:
        self._kept.clear()
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

    def say(self, message: str) -> None:
        self.message = message
        self.update(Content(message))


def __getattr__(name: str) -> Any:
    if name in ("AssistantText", "ThinkingView", "CompactionMark", "BATCH_SECONDS"):
        from agentui.tui.widgets import answer

        return getattr(answer, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
