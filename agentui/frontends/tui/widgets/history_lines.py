"""Parts of the conversation that are no longer live widgets (a resumed session's, and a live one's older parts),
drawn as lines by one widget: only the lines on screen are drawn (Textual's line API), and each part's lines are
made once per width, so that scrolling and typing cost the same at turn 2,000 as at turn 2. A click on a part that
opens (a tool call, a compaction mark) puts its live widget in its place."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events
from textual.geometry import Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from agentui.frontends.tui.part_lines import Look, part_lines
from agentui.frontends.tui.widgets.selection import with_selection

if TYPE_CHECKING:
    from agentui.frontends.tui.history_view import History

OPENS = frozenset({"tool", "shell", "summary"})
"""The kinds of part a click opens (put back as their live widget): what has more to show than its lines."""


@dataclass
class PartSource:
    """Where the parts come from: the history they are in, and what paths in them are shown relative to."""

    history: History
    cwd: Path | None


_COMPONENTS = {field.name: f"history-lines--{field.name.replace('_', '-')}" for field in fields(Look)[1:]}
"""Each style of a `Look` but the base, and the component class it is resolved from (`prompt_edge`:
`history-lines--prompt-edge`)."""


class HistoryLines(Widget):
    """Parts `first` to `end` (exclusive) of a history, drawn a line at a time."""

    DEFAULT_CSS = """
    HistoryLines { height: auto; }
    HistoryLines > .history-lines--prompt { background: $boost; }
    HistoryLines > .history-lines--prompt-edge { color: $primary; }
    HistoryLines > .history-lines--context { background: $boost; color: $text-muted; }
    HistoryLines > .history-lines--context-edge { color: $secondary; }
    HistoryLines > .history-lines--notice { color: $text-muted; }
    HistoryLines > .history-lines--warning { color: $warning; }
    HistoryLines > .history-lines--error { color: $error; text-style: bold; }
    HistoryLines > .history-lines--tool { color: $text; }
    HistoryLines > .history-lines--tool-error { color: $error; }
    HistoryLines > .history-lines--tool-denied { color: $warning; }
    HistoryLines > .history-lines--tool-body { color: $text-muted; }
    HistoryLines > .history-lines--diff { background: $surface; }
    HistoryLines > .history-lines--mark { color: $secondary; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = set(_COMPONENTS.values())
    anchors_view = True

    def __init__(self, source: PartSource, first: int, end: int) -> None:
        super().__init__()
        self.source = source
        self.first, self.end = first, end
        self._parts: list[list[Strip] | None] = [None] * (end - first)
        """Each part's lines (None until drawn), in order from `first`."""
        self._offsets: list[int] = []
        """The first line of each part, as laid out at `_key`."""
        self._laid_first = first
        """The index of the first part when they were laid out (what `_offsets` start at)."""
        self._height = 0
        self._laid = False
        self._key: tuple[int, Any] = (0, None)
        """The width and the base style the lines were drawn at: a resize or a new theme draws them again."""
        self._look: Look | None = None
        self._added_above = 0
        self.shift = 0
        """Lines added (less those dropped) above what was drawn, since the transcript last laid out: it keeps what
        is read in place by this much."""
        self.on_open: Callable[[HistoryLines, int], object] | None = None
        """Called with a part's index when it is clicked, in place of opening it here (the window that owns this)."""

    @property
    def size_in_parts(self) -> int:
        return self.end - self.first

    # What is drawn

    def prepend(self, count: int) -> None:
        """The `count` parts before `first` are drawn too (above: what is read stays in place)."""
        self.first -= count
        self._parts[:0] = [None] * count
        self._added_above += count
        self._changed()

    def append(self, count: int) -> None:
        self.end += count
        self._parts += [None] * count
        self._changed()

    def drop_first(self, count: int) -> None:
        """The first `count` parts are no longer drawn (what is read below them stays in place)."""
        unlaid = min(count, self._added_above)  # (drawn above since the last layout: never on screen)
        self._added_above -= unlaid
        start = self.first + unlaid
        top, bottom = self.y_of(start), self.y_of(self.first + count)
        if top is not None and bottom is not None:
            self.shift -= bottom - top
        del self._parts[:count]
        self.first += count
        self._changed()

    def drop_last(self, count: int) -> None:
        del self._parts[len(self._parts) - count :]
        self.end -= count
        self._changed()

    def reset(self, first: int, end: int) -> None:
        self.first, self.end, self._parts = first, end, [None] * (end - first)
        self._added_above, self.shift = 0, 0
        self._changed()

    def renumber(self, by: int) -> None:
        """The history grew by `by` parts before these (a preview's whole session has loaded): the same parts."""
        self.first += by
        self.end += by
        self._laid_first += by

    def _changed(self) -> None:
        self._laid = False
        self.refresh(layout=True)

    # Layout

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._layout(width)
        return self._height

    def _layout(self, width: int) -> None:
        if width <= 0:
            return
        key = (width, self.rich_style)
        if key != self._key:
            self._key, self._look, self._laid = key, None, False
            self._parts = [None] * len(self._parts)
        if self._laid:
            return
        look = self._look or self._resolve_look()
        source, offsets, y = self.source, [], 0
        for at, lines in enumerate(self._parts):
            if lines is None:
                kind, item = source.history.parts[self.first + at]
                lines = self._parts[at] = part_lines(
                    source.history, kind, item, source.cwd, width, look, self.app.console
                )
            offsets.append(y)
            y += len(lines)
        if self._added_above:
            self.shift += offsets[self._added_above] if self._added_above < len(offsets) else y
            self._added_above = 0
        self._offsets, self._height, self._laid, self._laid_first = offsets, y, True, self.first

    def _resolve_look(self) -> Look:
        style = self.get_component_rich_style
        self._look = Look(base=self.rich_style, **{name: style(component) for name, component in _COMPONENTS.items()})
        return self._look

    def y_of(self, index: int) -> int | None:
        """The first line of part `index` (or the line after the last laid out) as last laid out, where the
        transcript's last arrangement has it; None if it was not laid out then."""
        at = index - self._laid_first
        if not 0 <= at <= len(self._offsets):
            return None
        return self._height if at == len(self._offsets) else self._offsets[at]

    def part_at(self, y: int) -> int | None:
        """The index of the part drawn on line `y`."""
        if not self._laid or not self._offsets or not 0 <= y < self._height:
            return None
        return self._laid_first + bisect_right(self._offsets, y) - 1

    def take_shift(self) -> int:
        shift, self.shift = self.shift, 0
        return shift

    # Drawing

    def render_line(self, y: int) -> Strip:
        strip = with_selection(self, self._line(y, self.size.width), y)
        return strip.apply_offsets(0, y)  # (where a mouse selection is in the text)

    def _line(self, y: int, width: int) -> Strip:
        self._layout(width)
        at = bisect_right(self._offsets, y) - 1
        if at < 0 or (lines := self._parts[at]) is None or not 0 <= (row := y - self._offsets[at]) < len(lines):
            return Strip.blank(width, self.rich_style)
        return lines[row]

    # Selection (with the mouse, as in a live answer)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        width = self.size.width
        text = "\n".join(self._line(y, width).text.rstrip() for y in range(self._height))
        return selection.extract(text), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    # Opening

    def plain(self, index: int) -> str:
        """Part `index` as plain text (for a search of the transcript)."""
        at = index - self.first
        lines = self._parts[at] if 0 <= at < len(self._parts) else None
        return "\n".join(line.text.rstrip() for line in lines or [])

    def on_click(self, event: events.Click) -> None:
        index = self.part_at(event.y)
        if index is None or self.source.history.parts[index][0] not in OPENS:
            return
        event.stop()
        if self.on_open is not None:
            self.on_open(self, index)
