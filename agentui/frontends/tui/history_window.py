"""A resumed session drawn as a window that follows the reader: its latest parts at first; older ones drawn above
before the reader gets to them (and newer ones again on the way back down); parts far out of view dropped. So a
key costs the same in a session of 20 turns as in one of 20,000, and what is read never moves."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING

from agentui.frontends.tui.history_view import EARLIER_SHOWN, HISTORY_SHOWN, History, part_widgets
from agentui.frontends.tui.widgets.transcript import Notice, PartGroup, Transcript

if TYPE_CHECKING:
    from textual.widget import AwaitMount

DRAWN_AT_MOST = HISTORY_SHOWN + 2 * EARLIER_SHOWN
"""Parts drawn at once, at most (every widget costs time in each layout); more only while they are in view."""
AHEAD_PAGES = 2
"""How near, in pages, the reader comes to the end of what is drawn before more is drawn there."""


class Marker(Notice):
    """Says how many parts are not drawn above or below; the view is never kept in place by it."""

    anchors_view = False


class HistoryWindow:
    def __init__(self, transcript: Transcript, cwd: Callable[[], Path | None]) -> None:
        self.transcript = transcript
        self._cwd = cwd
        self.history: History | None = None
        self._first = self._end = 0
        """The parts drawn: history.parts[_first:_end]."""
        self._drawn: deque[PartGroup] = deque()
        """Their widgets, a chunk to a group: Textual lays out again only the group mounted (its arrangement is
        cached per container), and a chunk far from view is dropped whole."""
        self._earlier = Marker("")
        self._later = Marker("")
        self._drawing = False
        self._then: list[Callable[[], object]] = []
        """What waits for the parts being drawn to be laid out (a PageUp at the very top)."""
        self._preview = False

    @property
    def drawing(self) -> bool:
        """Parts are being drawn (and are not laid out yet)."""
        return self._drawing

    @property
    def shown(self) -> bool:
        return self.history is not None and self._earlier.is_attached

    def show(self, history: History, *, preview: bool = False) -> None:
        """Draw the latest parts of `history` at the end of the transcript. `preview`: only the end of the file was
        read, so how much is not drawn is not known yet."""
        self.drop()
        self.history, self._preview = history, preview
        self._end = len(history.parts)
        self._first = max(0, self._end - HISTORY_SHOWN)
        self._drawn = deque(self._groups(self._first, self._end))
        self._earlier, self._later = Marker(""), Marker("")
        self.transcript.mount_all([self._earlier, *self._drawn, self._later])
        self._count()

    def adopt(self, history: History) -> None:
        """The whole session of the branch previewed has loaded: the same parts stay drawn, counted within it."""
        assert self.history is not None
        shift = len(history.parts) - len(self.history.parts)
        self.history, self._preview = history, False
        self._first, self._end = max(0, self._first + shift), max(0, self._end + shift)
        self._count()

    def drop(self) -> None:
        """Remove every part drawn (the session shown is not the one open after all)."""
        if self.history is not None:
            self.transcript.remove_children([self._earlier, *self._drawn, self._later])
        self.history, self._drawn, self._then = None, deque(), []

    def forget(self) -> None:
        """The conversation closed: what is drawn stays, and nothing more is drawn."""
        if self.shown:
            self._earlier.display = self._later.display = False
        self.history, self._drawn, self._then = None, deque(), []

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
        transcript.keep = self._drawn[0] if self._drawn else self._later
        start = max(0, self._first - EARLIER_SHOWN)
        group = self._group(start, self._first)
        self._drawn.appendleft(group)
        self._first = start
        # Then the newest chunks go while there are too many, from the far end (never one in view).
        dropped = []
        below = round(transcript.scroll_y) + (AHEAD_PAGES + 1) * transcript.scrollable_content_region.height
        while self._end - self._first - self._drawn[-1].size_in_parts >= DRAWN_AT_MOST:
            region = transcript.region_of(self._drawn[-1])
            if region is None or region.y <= below:
                break
            dropped.append(self._drawn.pop())
            self._end -= dropped[-1].size_in_parts
        self._redraw(transcript.mount(group, after=self._earlier), dropped)

    def draw_later(self) -> None:
        transcript = self.transcript
        transcript.keep = self._drawn[-1] if self._drawn else self._earlier
        end = min(self._total, self._end + EARLIER_SHOWN)
        group = self._group(self._end, end)
        self._drawn.append(group)
        self._end = end
        dropped = []
        above = round(transcript.scroll_y) - AHEAD_PAGES * transcript.scrollable_content_region.height
        while self._end - self._first - self._drawn[0].size_in_parts >= DRAWN_AT_MOST:
            region = transcript.region_of(self._drawn[0])
            if region is None or region.bottom >= above:
                break
            dropped.append(self._drawn.popleft())
            self._first += dropped[-1].size_in_parts
        self._redraw(transcript.mount(group, before=self._later), dropped)

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
        dropped = list(self._drawn)
        self.transcript.keep = None
        self._first, self._end = start, min(self._total, start + HISTORY_SHOWN)
        self._drawn = deque(self._groups(self._first, self._end))
        self._then.append(then)
        self._redraw(self.transcript.mount_all(self._drawn, after=self._earlier), dropped)

    # Drawing

    @property
    def _total(self) -> int:
        return len(self.history.parts) if self.history is not None else 0

    def _groups(self, start: int, end: int) -> list[PartGroup]:
        return [self._group(at, min(end, at + EARLIER_SHOWN)) for at in range(start, end, EARLIER_SHOWN)]

    def _group(self, start: int, end: int) -> PartGroup:
        history = self.history
        assert history is not None
        cwd = self._cwd()
        parts = history.parts[start:end]
        return PartGroup(
            *chain.from_iterable(part_widgets(history, kind, item, cwd) for kind, item in parts), size=len(parts)
        )

    def _redraw(self, mounting: AwaitMount, dropped: list[PartGroup]) -> None:
        """Parts mounted and dropped in the same layout pass; then whatever waited, then more if still near."""
        if dropped:
            self.transcript.remove_children(dropped)
        self._count()
        self._drawing = True

        async def laid_out() -> None:
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
