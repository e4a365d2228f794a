"""A conversation's history drawn as a window that follows the reader: a resumed session's parts, and a live one's
older parts, line-drawn by `HistoryLines` (its latest parts at first; older ones drawn above before the reader gets
to them, and newer ones again on the way back down; parts far out of view dropped). Scrolling mounts nothing, so a
key costs the same in a session of 20 turns as in one of 20,000, and what is read never moves. A part clicked or
reached with Tab is put back as its live widget, in its place."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentui.frontends.tui.history_view import EARLIER_SHOWN, HISTORY_SHOWN, History, part_widgets
from agentui.frontends.tui.widgets.history_lines import HistoryLines, PartSource
from agentui.frontends.tui.widgets.transcript import Notice, PartGroup, Transcript

if TYPE_CHECKING:
    from textual.widget import AwaitMount, Widget

LIVE_PARTS = 12
"""A resumed session's latest parts drawn as live widgets (as a live session's are), below the line-drawn rest."""
DRAWN_AT_MOST = HISTORY_SHOWN + 2 * EARLIER_SHOWN
"""Parts drawn at once, at most (each is kept as lines); more only while they are in view."""
AHEAD_PAGES = 2
"""How near, in pages, the reader comes to the end of what is drawn before more is drawn there."""

Segment = HistoryLines | PartGroup
"""What the drawn parts are on screen: runs of line-drawn parts, and a part put back as its live widget between."""


class Marker(Notice):
    """Says how many parts are not drawn above or below; the view is never kept in place by it."""

    anchors_view = False


class HistoryWindow:
    def __init__(self, transcript: Transcript, cwd: Callable[[], Path | None]) -> None:
        self.transcript = transcript
        self._cwd = cwd
        self.history: History | None = None
        self._source: PartSource | None = None
        self._first = self._end = 0
        """The parts drawn: history.parts[_first:_end]."""
        self._drawn: deque[Segment] = deque()
        """Their segments on screen, in order."""
        self._earlier = Marker("")
        self._later = Marker("")
        self._markers_mounted = False
        """The markers above were mounted once (made again for the next show: a widget made and never mounted is
        garbage only the cyclic collector frees)."""
        self._drawing = False
        self._then: list[Callable[[], object]] = []
        """What waits for the parts being drawn to be laid out (a PageUp at the very top)."""
        self._preview = False
        self._held = 0
        """How many of the history's latest parts are drawn as live widgets (after it), not yet retired into it."""
        self._held_widgets: list[Widget] = []

    @property
    def drawing(self) -> bool:
        """Parts are being drawn (and are not laid out yet)."""
        return self._drawing

    @property
    def shown(self) -> bool:
        return self.history is not None and self._earlier.is_attached

    def show(
        self, history: History, *, preview: bool = False, before: Widget | None = None, live: int = LIVE_PARTS
    ) -> None:
        """Draw the latest parts of `history` at the end of the transcript (or `before` a widget in it): the last
        `live` as the live widgets that drew them, the others as lines above, as the reader nears them. `preview`:
        only the end of the file was read, so how much is not drawn is not known yet."""
        self.drop()
        held = history.parts[max(0, len(history.parts) - live) :]
        history = History(history.parts[: len(history.parts) - len(held)], history.results, history.pinned)
        self.history, self._preview, self._held = history, preview, len(held)
        self._source = PartSource(history, self._cwd())
        # None drawn as lines yet: the first frame shows the live widgets at once, and the parts above are drawn
        # after it, a chunk at a time, as far as the reader could scroll (`near`). The run is there, empty, to take
        # them without a mount.
        self._first = self._end = len(history.parts)
        self._drawn = deque([self._lines(self._first, self._end)])
        if self._markers_mounted:
            self._earlier, self._later = Marker(""), Marker("")
        self._markers_mounted = True
        self.transcript.mount_all([self._earlier, *self._drawn, self._later], before=before)
        self._held_widgets = []
        for kind, item in held:
            for widget in part_widgets(history, kind, item, self._source.cwd):
                widget.from_history = True  # type: ignore[attr-defined]
                self._held_widgets.append(self.transcript.add(widget))
        self._count()

    def adopt(self, history: History) -> None:
        """The whole session of the branch previewed has loaded: the same parts stay drawn, counted within it."""
        assert self.history is not None and self._source is not None
        history = History(history.parts[: len(history.parts) - self._held], history.results, history.pinned)
        shift = len(history.parts) - len(self.history.parts)
        self.history, self._preview = history, False
        self._source.history = history
        self._first, self._end = max(0, self._first + shift), max(0, self._end + shift)
        for segment in self._drawn:
            if isinstance(segment, HistoryLines):
                segment.renumber(shift)
            elif segment.part_index is not None:
                segment.part_index += shift
        self._count()

    def drop(self) -> None:
        """Remove every part drawn (the session shown is not the one open after all)."""
        if self.history is not None:
            drawn = [self._earlier, *self._drawn, self._later, *self._held_widgets]
            self.transcript.remove_children([widget for widget in drawn if widget.is_attached])
        self.history, self._drawn, self._then, self._held_widgets, self._held = None, deque(), [], [], 0

    def forget(self) -> None:
        """The conversation closed: what is drawn stays, and nothing more is drawn."""
        if self.shown:
            self._earlier.display = self._later.display = False
        self.history, self._drawn, self._then = None, deque(), []

    def retire(self, kind: str, item: Any, result: Any = None, *, held: bool = False) -> None:
        """A live part, old enough that its widget goes: it joins the history, line-drawn where it was if the
        window is at the end (else counted below). `held`: one of the history's own latest parts, drawn live."""
        if held and self._held:
            self._held -= 1
        if not self.shown:
            self.show(History([], {}), before=self.transcript.first_live())
        history = self.history
        assert history is not None
        if result is not None:
            history.results[item.id] = result
        at_end = self._end == len(history.parts)
        history.parts.append((kind, item))
        if not at_end:
            self._count()
            return
        self._end += 1
        tail = self._drawn[-1] if self._drawn else None
        if isinstance(tail, HistoryLines):
            tail.append(1)
        else:
            lines = self._lines(self._end - 1, self._end)
            self._drawn.append(lines)
            self.transcript.mount(lines, before=self._later)
        # (A live run's history grows at the end: what is far above goes as it does when reading down.)
        if dropped := self._drop_above():
            self.transcript.remove_children(dropped)
        self._count()

    # Following the reader

    def near(self) -> None:
        """After a scroll or a layout: draw what the reader is coming near, one chunk at a time."""
        if self._drawing or not self.shown:
            return
        transcript = self.transcript
        top, page = round(transcript.scroll_y), transcript.scrollable_content_region.height
        ahead = AHEAD_PAGES * max(page, 1)
        if self._first > 0 and (earlier := transcript.region_of(self._earlier)) and earlier.bottom >= top - ahead:
            self.draw_earlier()
        elif self._end < self._total and (later := transcript.region_of(self._later)) and later.y <= top + page + ahead:
            self.draw_later()

    def then(self, callback: Callable[[], object]) -> bool:
        """Run `callback` once older parts are drawn and laid out above (drawing them now if need be); False if
        there are none."""
        if not self.shown or self._first == 0:
            return False
        self._then.append(callback)
        if not self._drawing:
            self.draw_earlier()
        return True

    def draw_earlier(self) -> None:
        transcript = self.transcript
        start = max(0, self._first - EARLIER_SHOWN)
        head = self._drawn[0] if self._drawn else None
        mounting = None
        if isinstance(head, HistoryLines):
            transcript.keep = head
            head.prepend(self._first - start)
        else:
            transcript.keep = head or self._later
            lines = self._lines(start, self._first)
            self._drawn.appendleft(lines)
            mounting = transcript.mount(lines, after=self._earlier)
        self._first = start
        self._redraw(mounting, self._drop_below())

    def draw_later(self) -> None:
        transcript = self.transcript
        end = min(self._total, self._end + EARLIER_SHOWN)
        tail = self._drawn[-1] if self._drawn else None
        mounting = None
        transcript.keep = tail or self._earlier
        if isinstance(tail, HistoryLines):
            tail.append(end - self._end)
        else:
            lines = self._lines(self._end, end)
            self._drawn.append(lines)
            mounting = transcript.mount(lines, before=self._later)
        self._end = end
        self._redraw(mounting, self._drop_above())

    def _drop_below(self) -> list[Widget]:
        """The newest parts drawn go, a chunk at a time, while there are too many (never one in view); the
        segments that went whole are returned, to be removed."""
        transcript = self.transcript
        dropped: list[Widget] = []
        below = round(transcript.scroll_y) + (AHEAD_PAGES + 1) * transcript.scrollable_content_region.height
        while self._drawn:
            tail = self._drawn[-1]
            count = min(EARLIER_SHOWN, tail.size_in_parts)
            if self._end - self._first - count < DRAWN_AT_MOST:
                break
            y = self._y_of(tail, self._end - count)
            if y is None or y <= below:
                break
            if count == tail.size_in_parts and len(self._drawn) > 1:
                dropped.append(self._drawn.pop())
            elif isinstance(tail, HistoryLines):
                tail.drop_last(count)
            else:
                break
            self._end -= count
        return dropped

    def _drop_above(self) -> list[Widget]:
        """The oldest parts drawn go, a chunk at a time, while there are too many (never one in view); the
        segments that went whole are returned, to be removed."""
        transcript = self.transcript
        dropped: list[Widget] = []
        above = round(transcript.scroll_y) - AHEAD_PAGES * transcript.scrollable_content_region.height
        while self._drawn:
            head = self._drawn[0]
            count = min(EARLIER_SHOWN, head.size_in_parts)
            if self._end - self._first - count < DRAWN_AT_MOST:
                break
            y = self._y_of(head, self._first + count)
            if y is None or y >= above:
                break
            if count == head.size_in_parts and len(self._drawn) > 1:
                dropped.append(self._drawn.popleft())
            elif isinstance(head, HistoryLines):
                head.drop_first(count)
            else:
                break
            self._first += count
        return dropped

    def to_start(self, then: Callable[[], object]) -> None:
        """Ctrl+Home: the first parts of the session, then `then` (the view goes to the top)."""
        self._jump(0, then) if self._first > 0 else then()

    def to_end(self, then: Callable[[], object]) -> None:
        """Ctrl+End: the latest parts again, then `then` (the view goes to the end)."""
        self._jump(max(0, self._total - HISTORY_SHOWN), then) if self._end < self._total else then()

    def _jump(self, start: int, then: Callable[[], object]) -> None:
        if not self.shown or self._drawing:
            then()
            return
        self.transcript.keep = None
        self._first, self._end = start, min(self._total, start + HISTORY_SHOWN)
        kept = next((segment for segment in self._drawn if isinstance(segment, HistoryLines)), None)
        dropped: list[Widget] = [segment for segment in self._drawn if segment is not kept]
        mounting = None
        if kept is None:
            kept = self._lines(self._first, self._end)
            mounting = self.transcript.mount(kept, after=self._earlier)
        else:
            kept.reset(self._first, self._end)
        self._drawn = deque([kept])
        self._then.append(then)
        self._redraw(mounting, dropped)

    # Opening a part

    def open(self, lines: HistoryLines, index: int, then: Callable[[list[Widget]], object]) -> None:
        """Put part `index`, line-drawn in `lines`, back as its live widgets, in its place (the lines after it go
        on in a new run below them); then `then` with the widgets, once they are mounted."""
        source = lines.source
        kind, item = source.history.parts[index]
        group = PartGroup(*part_widgets(source.history, kind, item, source.cwd), size=1)
        group.part_index = index
        below = None
        if index + 1 < lines.end:
            below = HistoryLines(source, index + 1, lines.end)
            below.on_open = lines.on_open
        lines.drop_last(lines.end - index)
        mounting = self.transcript.mount_all([group, *([below] if below else [])], after=lines)
        if lines in self._drawn:
            at = self._drawn.index(lines)
            self._drawn.insert(at + 1, group)
            if below is not None:
                self._drawn.insert(at + 2, below)
        if lines.size_in_parts == 0:
            if lines in self._drawn:
                self._drawn.remove(lines)
            lines.remove()

        async def mounted() -> None:
            await mounting
            then(list(group.children))

        self.transcript.run_worker(mounted(), group="history", exit_on_error=False)

    def newest_call(self, before: int | None) -> tuple[HistoryLines, int] | None:
        """The newest tool call drawn as lines, before part `before` (None: of all drawn): where Tab goes next."""
        for segment in reversed(self._drawn):
            if not isinstance(segment, HistoryLines):
                continue
            history = segment.source.history
            top = segment.end if before is None else min(segment.end, before)
            for index in range(top - 1, segment.first - 1, -1):
                if history.parts[index][0] in ("tool", "shell"):
                    return segment, index
        return None

    # Drawing

    @property
    def _total(self) -> int:
        return len(self.history.parts) if self.history is not None else 0

    def _lines(self, start: int, end: int) -> HistoryLines:
        assert self._source is not None
        lines = HistoryLines(self._source, start, end)
        lines.on_open = self._clicked
        return lines

    def _clicked(self, lines: HistoryLines, index: int) -> None:
        """A click on a part that opens: its live widget, opened (or folded) and focused, as a click on it would."""

        def clicked(widgets: list[Widget]) -> None:
            from agentui.frontends.tui.widgets.tool_block import ToolBlock

            for widget in widgets:
                if isinstance(widget, ToolBlock):
                    widget.action_toggle_expanded()
                    widget.focus(scroll_visible=False)
                elif hasattr(widget, "collapsed"):
                    widget.collapsed = not widget.collapsed

        self.open(lines, index, clicked)

    def _y_of(self, segment: Segment, index: int) -> int | None:
        """Where part `index` starts in the transcript, as last laid out (None if it is not yet)."""
        region = self.transcript.region_of(segment)
        if region is None:
            return None
        if isinstance(segment, HistoryLines):
            offset = segment.y_of(index)
            return None if offset is None else region.y + offset
        return region.y if index == segment.part_index else region.bottom

    def _redraw(self, mounting: AwaitMount | None, dropped: list[Widget]) -> None:
        """Parts drawn and dropped in the same layout pass; then whatever waited, then more if still near."""
        if dropped:
            self.transcript.remove_children(dropped)
        self._count()
        self._drawing = True

        async def laid_out() -> None:
            if mounting is not None:
                await mounting
            self.transcript.call_after_refresh(self._drawn_now)

        self.transcript.run_worker(laid_out(), group="history", exit_on_error=False)

    def _drawn_now(self) -> None:
        self._drawing = False
        self.transcript.keep = None
        waiting, self._then = self._then, []
        for callback in waiting:
            callback()
        self.near()

    def _count(self) -> None:
        earlier, later = self._first, self._total - self._end
        self._earlier.display, self._later.display = earlier > 0, later > 0
        if self._preview:
            self._earlier.say("Earlier parts of this session are above: PageUp draws them.")
        else:
            self._earlier.say(_how_many(earlier, "earlier", "above", "PageUp"))
        self._later.say(_how_many(later, "later", "below", "PageDown"))


def _how_many(count: int, which: str, where: str, key: str) -> str:
    parts = f"{count:,} {which} part{'' if count == 1 else 's'}"
    return f"{parts} of this session {'is' if count == 1 else 'are'} {where}: {key} draws them."
