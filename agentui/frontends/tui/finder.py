"""Ctrl+F's search of the transcript: the newest part holding the text first, then each one further up, scrolled
into view and marked."""

from __future__ import annotations

from typing import Any

from agentui.frontends.tui.widgets.markdown_lines import MarkdownLines
from agentui.frontends.tui.widgets.tool_block import ToolBlock
from agentui.frontends.tui.widgets.transcript import Transcript

CONTEXT_ROWS = 3
"""Lines shown above the line of a match."""


class TranscriptFinder:
    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript
        self._found: list[Any] = []
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
            self._found = [w for w in reversed(list(self.transcript.parts())) if needle in searchable(w).lower()]
            self._at = -1
        if not self._found:
            return "Find: no match"
        self._at = (self._at + 1) % len(self._found)
        widget = self._found[self._at]
        widget.add_class("-found")
        row = widget.row_of(text) if isinstance(widget, MarkdownLines) else None
        if row is None:
            self.transcript.scroll_to_widget(widget, animate=False, top=True)
        else:  # the line of the match itself, a few lines down from the top, and the text marked on it
            widget.mark(text)
            top = widget.virtual_region.y + row - CONTEXT_ROWS
            self.transcript.scroll_to(y=max(0, top), animate=False, immediate=True)
        return f"Find: match {self._at + 1} of {len(self._found)}, newest first"

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
