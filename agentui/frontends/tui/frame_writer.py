"""Writes each frame to the terminal as only the cells that changed since the last one, and scrolls the terminal's
own lines where the picture moved, instead of redrawing every changed widget whole (issue 34: a streaming answer
redrew the whole transcript some 30 times a second, ~340 KB/s, which is felt over SSH).

The writer keeps the rows it last wrote (its picture of the terminal). A frame's rows that Textual rendered whole are
compared with that picture: equal rows are skipped, a changed row is written from its first changed cell to its
last, and when most of a band of rows is the old band moved up or down, the terminal scrolls that band (a scroll
region and line feeds: every terminal since the VT100 has them) and only the rows that came in are written. Rows
Textual rendered in part are written as Textual writes them and forgotten, so the next frame writes them whole.
Whatever else may have touched the terminal (a resize, a suspended app, Ctrl+L) makes the writer forget it all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar

from rich.cells import cell_len
from textual._compositor import ChopsUpdate, CompositorUpdate, LayoutUpdate
from textual.strip import Strip

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult

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


def _common_cells(old: str, new: str) -> int:
    """Cells of the characters the two texts begin with alike."""
    cells = 0
    for a, b in zip(old, new, strict=False):
        if a != b:
            break
        cells += cell_len(a)
    return cells


def changed_span(old: Strip, new: Strip) -> tuple[int, int]:
    """The cells [start, end) outside which two rows of the same width are alike (start == end if they are alike).
    Both ends fall between characters of both rows, so a wide character is never cut."""
    a, b = list(old), list(new)
    width = min(old.cell_length, new.cell_length)
    start = i = 0
    while i < len(a) and i < len(b) and a[i] == b[i]:
        start += cell_len(a[i].text)
        i += 1
    if i < len(a) and i < len(b) and a[i].style == b[i].style and not a[i].control and not b[i].control:
        start += _common_cells(a[i].text, b[i].text)
    tail = 0
    j, k = len(a) - 1, len(b) - 1
    while j >= i and k >= i and a[j] == b[k]:
        tail += cell_len(a[j].text)
        j, k = j - 1, k - 1
    if j >= 0 and k >= 0 and a[j].style == b[k].style and not a[j].control and not b[k].control:
        tail += _common_cells(a[j].text[::-1], b[k].text[::-1])
    end = max(start, width - tail)
    return start, end


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
        partial_out = ""
        if isinstance(update, LayoutUpdate):
            for y, line in enumerate(update.strips, update.region.y):
                if 0 <= y < height:
                    whole[y] = Strip.join(line)
        else:
            partial = []
            for span in update.spans:
                y = span[0]
                if y in whole or not 0 <= y < height:
                    continue
                chops = update.chops[y].values()
                if None in chops:
                    partial.append(span)
                else:
                    whole[y] = Strip.join(chops)
            if partial:
                partial_ys = {y for y, _x1, _x2 in partial}
                for y in partial_ys:
                    self._rows[y] = self._keys[y] = None
                    whole.pop(y, None)
                # (Textual's own writing of the spans it rendered in part; its line feeds fall between them.)
                partial_out = ChopsUpdate(update.chops, partial, update.chop_ends).render_segments(console)
        whole = {y: strip for y, strip in whole.items() if strip.cell_length == width}
        if not whole:
            return partial_out
        keys = {y: _key(strip) for y, strip in whole.items()}
        # (The scroll goes first: it moves only rows this frame writes whole.)
        out = [self._scroll(whole, keys, height), partial_out]
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
