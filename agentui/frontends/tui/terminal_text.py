"""Keeps the control characters in what the app shows from reaching the terminal as controls: text from outside (a
command's output, a file read, the model's answer, a session's title, an MCP result, a hook's message) may carry ESC
or a C1 control that would retitle the window, write the clipboard (OSC 52) or clear the screen.

Two parts. Where text is laid out, Rich's `Text` and Textual's `Content` strip only BEL, BS, VT, FF and CR (their
`_CONTROL_STRIP_TRANSLATE` tables); `show_controls()` adds the others to both tables as visible `\\xNN` (as
`picker_search.visible` and file names do), so they are measured as the cells they are drawn in. And every frame the
app writes passes `visible_update()`, which drops any control character still inside a text segment (one made
without Text or Content): Rich counts them as no cells, so dropping them keeps the layout. Textual's own control
segments (cursor moves) are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import cast

from rich.segment import Segment
from textual._compositor import ChopsUpdate, CompositorUpdate, InlineUpdate, LayoutUpdate
from textual.strip import Strip

CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]")
"""C0 controls, DEL and C1 controls."""

KEPT = {0x07, 0x08, 0x0B, 0x0C, 0x0D}
"""Controls Rich and Textual already strip (BEL, BS, VT, FF, CR: a CRLF line ending shows nothing)."""

LAID_OUT = {0x09, 0x0A}
"""Tab and newline: Text and Content lay them out themselves."""

SHOWN: dict[int, str | None] = {
    code: f"\\x{code:02x}" for code in [*range(0x20), *range(0x7F, 0xA0)] if code not in KEPT | LAID_OUT
}
"""What each other control is shown as where text is laid out."""

_DROPPED = dict.fromkeys([*range(0x20), *range(0x7F, 0xA0)])


def show_controls() -> None:
    """Make Rich's Text and Textual's Content show control characters as `\\xNN` (both tables, changed in place:
    their strip functions hold them as default arguments). Textual pins the versions it is checked with; a version
    without the tables is left as it is, and `visible_update` still drops the controls."""
    import rich.control
    import textual.content

    for module in (rich.control, textual.content):
        table = getattr(module, "_CONTROL_STRIP_TRANSLATE", None)
        if isinstance(table, dict):
            cast(dict[int, str | None], table).update(SHOWN)


def visible_strip(strip: Strip) -> Strip:
    """`strip` with every control character inside its text segments dropped (no cells: its length is the same)."""
    if not any(not segment.control and CONTROLS.search(segment.text) for segment in strip):
        return strip
    return Strip(
        (
            segment if segment.control else Segment(segment.text.translate(_DROPPED), segment.style, segment.control)
            for segment in strip
        ),
        strip.cell_length,
    )


def _visible_chops(chops: Iterable[Mapping[int, Strip | None]], rows: set[int]) -> list[Mapping[int, Strip | None]]:
    return [
        {x: None if strip is None else visible_strip(strip) for x, strip in row.items()} if y in rows else row
        for y, row in enumerate(chops)
    ]


def visible_update(update: CompositorUpdate) -> CompositorUpdate:
    """Textual's update with the control characters in its text dropped (only of the rows it writes)."""
    match update:
        case LayoutUpdate():
            return LayoutUpdate([[visible_strip(strip) for strip in line] for line in update.strips], update.region)
        case ChopsUpdate():
            rows = {y for y, _x1, _x2 in update.spans}
            return ChopsUpdate(_visible_chops(update.chops, rows), update.spans, update.chop_ends)
        case InlineUpdate():
            return InlineUpdate([visible_strip(strip) for strip in update.strips], update.clear)
        case _:
            return update
