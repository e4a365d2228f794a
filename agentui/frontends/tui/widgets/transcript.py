"""The conversation on screen: prompts and notices in a scroll that stays at the bottom. Answers, thinking and
compaction marks live in `answer.py`, imported with the first answer (they are re-exported here, lazily)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, TypeVar

from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.geometry import Region, Size
from textual.layout import DockArrangeResult
from textual.scrollbar import ScrollBar
from textual.widget import Widget
from textual.widgets import Static

W = TypeVar("W", bound=Widget)


class Transcript(VerticalScroll):
    """Anchored to the bottom while content arrives, unless the person scrolls up; the latest parts are live widgets,
    older ones retire into the line-drawn history above them (`retire`). What is read stays in place when parts are
    drawn or dropped above it."""

    DEFAULT_CSS = """
    Transcript {
        layout: vertical;
        height: 1fr;
        padding: 0 1;
        scrollbar-size-vertical: 1;
    }
    """
    LIVE_AT_MOST = 30
    """Widgets kept live at the end (about a screen or two of them); older ones join the line-drawn history (every
    widget costs time in each layout, which a key waits for)."""
    can_focus = False  # (it scrolls from the prompt; Tab goes from the prompt to the blocks in it)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.on_moved: Callable[[], object] | None = None
        """Called once a scroll or a change of layout is on screen (a resumed session draws what comes near)."""
        self._kept: deque[Widget] = deque()
        """What this transcript added and has not retired, oldest first. `remove()` completes later, so the
        children still list a widget being removed: pruning from them would remove it again on every add."""
        self.retire: Callable[[Widget], bool] | None = None
        """Called with each widget that goes for being old (before it is removed): it joins the line-drawn history
        there; False keeps it live for now (a call still running)."""
        self.keep: Widget | None = None
        """What stays in place on screen while parts are drawn or dropped around it (else the first part in view)."""
        self._arrangement: DockArrangeResult | None = None
        self._regions: dict[Widget, Region] | None = None

    def on_mount(self) -> None:
        self.anchor()
        self.watch(self, "scroll_y", self._moved, init=False)

    def add(self, widget: W) -> W:
        self.mount(widget)
        self._kept.append(widget)
        self._prune()
        return widget

    def _prune(self) -> None:
        while len(self._kept) > self.LIVE_AT_MOST:
            oldest = self._kept[0]
            if oldest.parent is not self:  # (removed meanwhile: a preview dropped, a retried attempt's answer)
                self._kept.popleft()
                continue
            if self.retire is not None and not self.retire(oldest):
                return
            self._kept.popleft().remove()

    def first_live(self) -> Widget | None:
        """The oldest widget added and not yet retired."""
        return next((widget for widget in self._kept if widget.parent is self), None)

    def clear(self) -> None:
        self._kept.clear()
        self.keep = None
        self.remove_children()
        self.anchor()

    # Where things are, and keeping what is read in place

    def region_of(self, widget: Widget) -> Region | None:
        """Where `widget` was laid out in the scrolled content (None if it has not been yet): from the last
        arrangement, so that asking costs nothing on each scroll (Textual's own regions may lay out everything)."""
        if self._arrangement is None:
            return None
        if self._regions is None:
            self._regions = {placement.widget: placement.region for placement in self._arrangement.placements}
        return self._regions.get(widget)

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        arrangement = super().arrange(size, optimal)
        if arrangement is not self._arrangement:
            before, self._arrangement = self._arrangement, arrangement
            self._regions = None
            if before is not None:
                self._keep_in_place(before)
            self._moved()
        return arrangement

    def _keep_in_place(self, before: DockArrangeResult) -> None:
        """What is read keeps its place on screen when parts were drawn or dropped above it (as a browser's scroll
        anchoring does): `keep` if set, else the first part in view. (Following the end, Textual's own anchor puts
        the view at the end after this.)"""
        top = round(self.scroll_y)
        # (Lines drawn or dropped above the first one shown within a line-drawn run move what is read too.)
        shifts = {child: child.take_shift() for child in self.children if hasattr(child, "take_shift")}
        was = now = None
        for placement in before.placements:
            widget = placement.widget
            if widget is self.keep or (
                self.keep is None and placement.region.bottom > top and getattr(widget, "anchors_view", True)
            ):
                was, now = placement.region, self.region_of(widget)
                break
        if was is None or now is None:
            return
        moved = now.y - was.y + shifts.get(widget, 0)
        if not moved:
            return
        y = max(0, top + moved)
        # Before the placements are made from the scroll offset (as Textual's compositor sets an anchored one).
        self.set_reactive(Transcript.scroll_y, y)
        self.set_reactive(Transcript.scroll_target_y, y)
        # (Set, not assigned: a scrollbar refreshed here would lay the whole screen out again; the layout redraws it.)
        self.vertical_scrollbar.set_reactive(ScrollBar.position, y)

    def _moved(self) -> None:
        if self.on_moved is not None:
            self.call_after_refresh(self.on_moved)  # (what moved is painted first)


class PartGroup(Vertical):
    """Parts drawn together (a part of the line-drawn history opened as its live widgets): laid out as one, and
    dropped as one."""

    DEFAULT_CSS = "PartGroup { height: auto; }"

    def __init__(self, *parts: Widget, size: int) -> None:
        super().__init__(*parts)
        self.size_in_parts = size
        self.part_index: int | None = None
        """For a part of the history put back as its live widgets: its index there."""


PROMPT_LINES = 12
"""A prompt longer than this shows its first lines and how many more it has."""


PIN_MARK = "📌 pinned"
"""How a pinned block shows it (Ctrl+P, pinning.py)."""


class UserPrompt(Static):
    DEFAULT_CSS = """
    UserPrompt {
        margin: 1 0 0 0;
        padding: 0 1;
        background: $boost;
        border-left: thick $primary;
    }
    UserPrompt.-context { border-left: thick $secondary; color: $text-muted; }
    UserPrompt:focus { background: $accent 25%; }
    UserPrompt.-pinned { border-right: thick $warning; }
    """
    can_focus = True  # (a click focuses it, for Ctrl+P to pin it)

    def __init__(self, text: str, *, context: bool = False) -> None:
        super().__init__(Content(prompt_shown(text)), classes="-context" if context else "")
        self.text = text
        self.context = context
        self.pinned = False

    def set_pinned(self, pinned: bool) -> None:
        self.pinned = pinned
        self.set_class(pinned, "-pinned")
        self.update(Content(f"{PIN_MARK}\n{prompt_shown(self.text)}" if pinned else prompt_shown(self.text)))


def prompt_shown(text: str) -> str:
    """A prompt as it is drawn: a long paste is sent whole, and on screen its start says what it was."""
    lines = text.splitlines()
    if len(lines) <= PROMPT_LINES:
        return text
    return "\n".join([*lines[:PROMPT_LINES], f"… {len(lines) - PROMPT_LINES:,} more lines"])


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
        self.level = level

    def say(self, message: str) -> None:
        self.message = message
        self.update(Content(message))


def __getattr__(name: str) -> Any:
    if name in ("AssistantText", "ThinkingView", "CompactionMark", "BATCH_SECONDS"):
        from agentui.frontends.tui.widgets import answer

        return getattr(answer, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
