"""Ctrl+F's search of the transcript: the newest part holding the text first, then each one further up, scrolled
into view and marked. A part found in the line-drawn history is put back as its live widget first."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from agentui.frontends.tui.history_view import part_text
from agentui.frontends.tui.widgets.history_lines import HistoryLines
from agentui.frontends.tui.widgets.markdown_lines import MarkdownLines
from agentui.frontends.tui.widgets.tool_block import ToolBlock
from agentui.frontends.tui.widgets.transcript import PartGroup, Transcript

if TYPE_CHECKING:
    from textual.widget import Widget

    from agentui.frontends.tui.history_window import HistoryWindow

CONTEXT_ROWS = 3
"""Lines shown above the line of a match."""


class TranscriptFinder:
    def __init__(self, transcript: Transcript, window: HistoryWindow) -> None:
        self.transcript = transcript
        self.window = window
        self._found: list[Any] = []
        """What holds the text, newest first: widgets, and the indices of parts drawn as lines."""
        self._at = -1

    def find(self, text: str, again: bool) -> str:
        """Scroll to the newest part holding `text` (with `again`, the next one up) and mark it; returns the
        search's title, which says where it is."""
        self.unmark()
        if not text.strip():
            self._found = []
            return "Find"
        if not again or not self._found:
            needle = text.lower()
            self._found = list(self._holding(needle))
            self._at = -1
        if not self._found:
            return "Find: no match"
        self._at = (self._at + 1) % len(self._found)
        found = self._found[self._at]
        if isinstance(found, int):
            self._open(found, text)
        else:
            self._show(found, text)
        return f"Find: match {self._at + 1} of {len(self._found)}, newest first"

    def _holding(self, needle: str) -> Iterator[Any]:
        for child in reversed(list(self.transcript.children)):
            if isinstance(child, HistoryLines):
                history = child.source.history
                for index in range(child.end - 1, child.first - 1, -1):
                    if needle in part_text(history, *history.parts[index]).lower():
                        yield index
            else:
                for widget in reversed(list(child.children)) if isinstance(child, PartGroup) else [child]:
                    if needle in searchable(widget).lower():
                        yield widget

    def _open(self, index: int, text: str) -> None:
        """A part found in the line-drawn history: scrolled to where its lines are (the line of the match, as for
        a widget), then its live widget put in its place, marked."""
        runs = [child for child in self.transcript.children if isinstance(child, HistoryLines)]
        holding = next((run for run in runs if run.first <= index < run.end), None)
        if holding is None:
            return
        needle = text.lower()
        at = holding.y_of(index)
        if at is not None:
            rows = holding.plain(index).lower().split("\n")
            row = next((n for n, line in enumerate(rows) if needle in line), 0)
            top = holding.virtual_region.y + at + row - CONTEXT_ROWS
            self.transcript.scroll_to(y=max(0, top), animate=False, immediate=True)

        def opened(widgets: list[Widget]) -> None:
            widget = next((w for w in widgets if needle in searchable(w).lower()), widgets[0])
            self._found[self._at] = widget
            widget.add_class("-found")
            if isinstance(widget, MarkdownLines):
                widget.mark(text)

        self.window.open(holding, index, opened)

    def _show(self, widget: Any, text: str) -> None:
        widget.add_class("-found")
        row = widget.row_of(text) if isinstance(widget, MarkdownLines) else None
        if row is None:
            self.transcript.scroll_to_widget(widget, animate=False, top=True)
        else:  # the line of the match itself, a few lines down from the top, and the text marked on it
            widget.mark(text)
            top = widget.virtual_region.y + row - CONTEXT_ROWS
            self.transcript.scroll_to(y=max(0, top), animate=False, immediate=True)

    def unmark(self) -> None:
        for widget in self.transcript.query(".-found"):
            widget.remove_class("-found")
            if isinstance(widget, MarkdownLines):
                widget.mark("")


def searchable(widget: Any) -> str:
    """The text of a transcript part as a search sees it (the source of an answer, a block's call and result)."""
    for attribute in ("source", "text", "message"):
        value = getattr(widget, attribute, None)
        if isinstance(value, str):
            return value
    if isinstance(widget, ToolBlock):
        return widget.search_text
    return ""
