"""A line of a line-drawn widget (an answer, the line-drawn history) with what the mouse selected drawn as
selected: a widget that draws its own lines (Textual's line API) draws the selection on them itself."""

from __future__ import annotations

from textual.strip import Strip
from textual.widget import Widget


def with_selection(widget: Widget, strip: Strip, y: int) -> Strip:
    """Line `y` of a line-drawn `widget` with the part of it the mouse selected drawn as selected."""
    selection = widget.text_selection
    if selection is None or (span := selection.get_span(y)) is None:
        return strip
    start, end = span
    end = strip.cell_length if end == -1 else end
    if start >= end:
        return strip
    style = widget.screen.get_component_rich_style("screen--selection")
    before, middle, after = strip.divide([start, end, strip.cell_length])[:3]
    return Strip.join([before, middle.apply_style(style), after])
