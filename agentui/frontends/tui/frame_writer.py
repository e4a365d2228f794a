"""Writes each frame to the terminal as only the cells that changed since the last one, and scrolls the terminal's
own lines where the picture moved, instead of redrawing every changed widget whole (issue 34: a streaming answer
redrew the whole transcript some 30 times a second, ~340 KB/s, which is felt over SSH).

The writer keeps the rows it last wrote (its picture of the terminal). Each row an update touches is worked out as
the terminal would show it once Textual had written the update (what Textual writes of the row, over the row as it
was) and compared with that picture: equal rows are skipped, a changed row is written from its first changed cell to
its last, and when most of a band of rows is the old band moved up or down, the terminal scrolls that band (a scroll
region and line feeds: every terminal since the VT100 has them) and only the rows that came in are written. A row
that cannot be worked out so (the row as it was is not known, a cut would split a character, a control segment,
another width) is written as Textual writes it and forgotten, so the next frame writes it whole. Whatever else may
have touched the terminal (a resize, a suspended app, Ctrl+L) makes the writer forget it all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar

from rich.cells import cell_len, split_graphemes
from rich.segment import Segment
from textual._compositor import ChopsUpdate, CompositorUpdate, LayoutUpdate
from textual.strip import Strip

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult
    from textual.app import App

_T = TypeVar("_T")

EDGE = 1
"""Cells at a row's right end left out when rows are matched for a scroll: the transcript's scrollbar is there, and
it moves when the rows do."""

MIN_SCROLL = 3
"""Rows a band must have before it is scrolled rather than written (a scroll costs ~20 bytes and one row ~100+)."""


def _move(x: int, y: int) -> str:
    return f"\x1b[{y + 1};{x + 1}H"


def _key(strip: Strip) -> int:
    """What a row is, for matching it after a scroll: its cells but the right edge's."""
    segments = list(strip)
    if segments and cell_len(segments[-1].text) <= EDGE:
        segments.pop()
    return hash(tuple(segments))


def _simple(text: str) -> bool:
    """One cell per character (no wide, zero-width or combining ones): a cut anywhere in it is exact."""
    return cell_len(text) == len(text)


def _common_cells(old: str, new: str) -> int:
    """Cells the two texts (both `_simple`) begin with alike."""
    cells = 0
    for a, b in zip(old, new, strict=False):
        if a != b:
            break
        cells += 1
    return cells


def _alike(a: Segment, b: Segment) -> bool:
    return a.style == b.style and _simple(a.text) and _simple(b.text)


def changed_span(old: Strip, new: Strip) -> tuple[int, int]:
    """The cells [start, end) outside which two rows of the same width (with no control segments) are alike
    (start == end if they are alike). Both ends fall between segments, or between characters of segments with one
    cell per character, so no wide character and no combining mark is ever cut from its own."""
    if old is new:
        return old.cell_length, old.cell_length
    a, b = list(old), list(new)
    width = min(old.cell_length, new.cell_length)
    start = i = 0
    while i < len(a) and i < len(b) and a[i] == b[i]:
        start += cell_len(a[i].text)
        i += 1
    if i < len(a) and i < len(b) and _alike(a[i], b[i]):
        start += _common_cells(a[i].text, b[i].text)
    tail = 0
    j, k = len(a) - 1, len(b) - 1
    while j >= i and k >= i and a[j] == b[k]:
        tail += cell_len(a[j].text)
        j, k = j - 1, k - 1
    if j >= 0 and k >= 0 and _alike(a[j], b[k]):
        tail += _common_cells(a[j].text[::-1], b[k].text[::-1])
    end = max(start, width - tail)
    return start, end


def _plain(strip: Strip, width: int) -> bool:
    """A row this writer can keep: the screen's width, and no control segment (whose text is not cells)."""
    return strip.cell_length == width and not any(segment.control for segment in strip)


def _cuts_at(strip: Strip, cells: Iterable[int]) -> bool:
    """Whether a character of `strip` begins at each of `cells` (a crop there cuts no character in two)."""
    wanted = set(cells)
    if not wanted:
        return True
    at = 0
    for segment in strip:
        if _simple(segment.text):
            wanted.difference_update(range(at, at + len(segment.text) + 1))
            at += len(segment.text)
        else:
            wanted.discard(at)
            for _start, _end, width in split_graphemes(segment.text)[0]:
                at += width
                wanted.discard(at)
        if not wanted:
            return True
    return False


def _written(update: ChopsUpdate, y: int, spans: Iterable[tuple[int, int]]) -> list[tuple[int, int, Strip]]:
    """What Textual writes of row `y` for its `spans`: each chop that meets a span, from the chop's start to the
    span's end (as ChopsUpdate.render_segments does), as (first cell, end cell, the chop), by first cell."""
    reach: dict[int, tuple[int, Strip]] = {}
    for x1, x2 in spans:
        for end, (x, strip) in zip(update.chop_ends[y], update.chops[y].items(), strict=False):
            if strip is None or x > x2 or end <= x1:
                continue
            reached = reach[x][0] if x in reach else x
            reach[x] = (max(min(end, x2), reached), strip)
    return [(x, end, strip) for x, (end, strip) in sorted(reach.items()) if end > x]


def _bands(matched: Sequence[bool]) -> Iterable[tuple[int, int]]:
    """The runs [first, last] of True."""
    first = None
    for y, match in enumerate([*matched, False]):
        if match and first is None:
            first = y
        elif not match and first is not None:
            yield first, y - 1
            first = None


def _scrolled(rows: list[_T | None], top: int, bottom: int, shift: int) -> None:
    """Rows [top, bottom] as the terminal shows them once it scrolls them by `shift` (up if positive): the rows that
    come in are unknown."""
    band = rows[top : bottom + 1]
    blank: list[_T | None] = [None] * abs(shift)
    rows[top : bottom + 1] = band[shift:] + blank if shift > 0 else blank + band[:shift]


def redrawn_after_suspends(app: App[None], frames: FrameWriter) -> None:
    """An app suspended (an editor, a SIGTSTP) comes back to a terminal that shows something else: its next frame is
    written whole, and all of it is drawn (Textual lays the screen out again after an editor, not after a stop and
    `fg`)."""

    def resumed(_app: object) -> None:
        frames.forget()
        app.refresh(layout=True)

    app.app_suspend_signal.subscribe(app, lambda _app: frames.forget())
    app.app_resume_signal.subscribe(app, resumed)


class FrameWriter:
    """The terminal's rows as this writer last wrote them, and the least output that makes them the next frame's."""

    def __init__(self) -> None:
        self._rows: list[Strip | None] = []
        self._keys: list[int | None] = []
        self._size = (0, 0)

    def forget(self) -> None:
        """The terminal may hold anything now: the next frame is written whole."""
        self._rows = [None] * self._size[1]
        self._keys = [None] * self._size[1]

    def update(self, update: CompositorUpdate, width: int, height: int) -> CompositorUpdate:
        """The update to write in place of Textual's; its output is worked out only if it is written."""
        if not isinstance(update, (LayoutUpdate, ChopsUpdate)):
            return update
        return _Planned(self, update, width, height)

    def render(self, update: LayoutUpdate | ChopsUpdate, width: int, height: int, console: Console) -> str:
        if (width, height) != self._size:
            self._size = (width, height)
            self.forget()
        whole: dict[int, Strip] = {}
        """Rows as the terminal shows them once Textual's writing of this update is done (the writer writes less)."""
        as_textual = ""
        """What is written of the rows the writer cannot keep: as Textual writes them (and they are forgotten)."""
        if isinstance(update, LayoutUpdate):
            x = update.region.x
            for y, line in enumerate(update.strips, update.region.y):
                if not 0 <= y < height:
                    continue
                row = Strip.join(line)
                if x == 0 and _plain(row, width):
                    whole[y] = row
                else:
                    self._rows[y] = self._keys[y] = None
                    as_textual += _move(x, y) + row.render(console)
        else:
            by_row: dict[int, list[tuple[int, int]]] = {}
            for y, x1, x2 in update.spans:
                by_row.setdefault(y, []).append((x1, x2))
            partial = []
            for y, spans in by_row.items():
                merged = self._merged(update, y, spans, width) if 0 <= y < height else None
                if merged is None:
                    partial += [(y, x1, x2) for x1, x2 in spans]
                    if 0 <= y < height:
                        self._rows[y] = self._keys[y] = None
                else:
                    whole[y] = merged
            if partial:
                # (Textual's own writing of those spans; its line feeds fall between them.)
                as_textual = ChopsUpdate(update.chops, partial, update.chop_ends).render_segments(console)
        if not whole:
            return as_textual
        keys = {y: _key(strip) for y, strip in whole.items()}
        # (The scroll goes first: it moves only rows this frame writes whole.)
        out = [self._scroll(whole, keys, height), as_textual]
        for y, strip in sorted(whole.items()):
            old = self._rows[y]
            if old is None:
                out.append(_move(0, y))
                out.append(strip.render(console))
            else:
                start, end = changed_span(old, strip)
                if start < end:
                    out.append(_move(start, y))
                    out.append((strip if start == 0 and end == width else strip.crop(start, end)).render(console))
            self._rows[y] = strip
            self._keys[y] = keys[y]
        return "".join(out)

    def _merged(self, update: ChopsUpdate, y: int, spans: list[tuple[int, int]], width: int) -> Strip | None:
        """Row `y` as the terminal shows it once Textual writes `spans` of it: what Textual writes there, the row as
        it was elsewhere; None if that cannot be known (the row as it was is not, a cut would split a character, a
        control segment)."""
        written = _written(update, y, spans)
        pieces: list[tuple[int, int, Strip | None]] = []
        cuts: list[tuple[Strip, int]] = []
        at = 0
        for x, end, strip in written:
            if x > at:
                pieces.append((at, x, None))
            pieces.append((x, end, strip))
            at = end
            if end - x < strip.cell_length:
                cuts.append((strip, end - x))
        if at < width:
            pieces.append((at, width, None))
        old = self._rows[y]
        if any(strip is None for _x, _end, strip in pieces):
            if old is None:
                return None
            edges = {edge for x, end, strip in pieces if strip is None for edge in (x, end)} - {0, width}
            if not _cuts_at(old, edges):
                return None
        if not all(_cuts_at(strip, [cut]) for strip, cut in cuts):
            return None
        row = Strip.join(
            (strip.crop(0, end - x) if strip is not None else old.crop(x, end))  # type: ignore[union-attr]
            for x, end, strip in pieces
        )
        return row if _plain(row, width) else None

    def _scroll(self, whole: dict[int, Strip], keys: dict[int, int], height: int) -> str:
        """Scroll the band of rows that most of this frame's changed rows moved with, if any; the picture is moved with
        it. Returns what scrolls the terminal."""
        old_keys = self._keys
        changed = [y for y in whole if keys[y] != old_keys[y]]
        if len(changed) < MIN_SCROLL:
            return ""
        unique = Counter(old_keys)
        where = {key: y for y, key in enumerate(old_keys) if key is not None and unique[key] == 1}
        votes = Counter(where[keys[y]] - y for y in changed if keys[y] in where)
        votes.pop(0, None)
        if not votes:
            return ""
        shift, count = votes.most_common(1)[0]
        if count < MIN_SCROLL:
            return ""
        # The rows y that show what row y + shift showed; the longest run of them is the band to scroll.
        matched = [y in whole and 0 <= y + shift < height and keys[y] == old_keys[y + shift] for y in range(height)]
        first, last = max(_bands(matched), key=lambda band: band[1] - band[0])
        top, bottom = (first, last + shift) if shift > 0 else (first + shift, last)
        # Every row the scroll moves is written whole in this frame, so none is left half moved.
        if last - first + 1 < MIN_SCROLL or any(y not in whole for y in range(top, bottom + 1)):
            return ""
        _scrolled(self._rows, top, bottom, shift)
        _scrolled(old_keys, top, bottom, shift)
        # A line feed on the band's last row scrolls it up, a reverse index on its first row down.
        motion = _move(0, bottom) + "\n" * shift if shift > 0 else _move(0, top) + "\x1bM" * -shift
        # A scroll region limits the scroll to the band; setting and clearing it homes the cursor.
        return f"\x1b[0m\x1b[{top + 1};{bottom + 1}r{motion}\x1b[r"


class _Planned(CompositorUpdate):
    """Textual's update, written by a FrameWriter."""

    def __init__(self, writer: FrameWriter, update: LayoutUpdate | ChopsUpdate, width: int, height: int) -> None:
        self.writer, self.update, self.width, self.height = writer, update, width, height

    def render_segments(self, console: Console) -> str:
        return self.writer.render(self.update, self.width, self.height, console)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        return self.update.__rich_console__(console, options)
