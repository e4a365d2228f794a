"""Dialogs that fit the terminal, from 80x24 up: the part of a dialog that can be long (a diff, a command, a plan,
a list of options) gives up rows so that everything else, the answer keys above all, stays on screen; it scrolls
inside the dialog instead."""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widget import Widget

DIALOG_SHARE = 0.9
"""The dialog's max-height, as a share of the screen (permission.tcss says the same)."""
LEAST_ROWS = 3


def fit_dialog(screen: Screen[Any], dialog: str, flexible: str, most: int | None = None) -> None:
    """Let the widget `flexible` (a selector) have at most `most` rows (None: as many as there is room for), and
    fewer where the rest of the widget `dialog` would otherwise not fit. Nothing, once the dialog has gone (this runs
    after a refresh, and an answer may have come first)."""
    found = screen.query(dialog)
    if not found:
        return
    outer = found.first()
    inner = outer.query(flexible)
    if inner:
        _fit(screen, outer, inner.first(), most if most is not None else screen.size.height)


def _fit(screen: Screen[Any], dialog: Widget, flexible: Widget, most: int) -> None:
    used = dialog.styles.gutter.height
    for child in dialog.children:
        if child is not flexible and child.display:
            used += child.outer_size.height + child.styles.margin.height
    around = flexible.styles.gutter.height + flexible.styles.margin.height
    room = int(screen.size.height * DIALOG_SHARE) - used - around
    flexible.styles.max_height = max(LEAST_ROWS, min(most, room)) + flexible.styles.gutter.height
