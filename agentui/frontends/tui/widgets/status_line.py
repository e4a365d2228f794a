"""The status line a person's `statusLine` command prints, under the prompt as Claude Code draws it: one line, its
colours kept (SGR sequences and links only: any other escape or control character is dropped, so a command cannot
move the cursor, clear the screen or write the clipboard), cut at the width with an ellipsis; hidden while there is
nothing to show."""

from __future__ import annotations

import re

from rich.text import Text
from textual.widgets import Static

_ESCAPE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[PX^_][^\x1b]*(?:\x1b\\)?|.|$)", re.S)
"""An escape sequence: CSI, OSC (ended by BEL or ST, or not at all), DCS and the like, or a two-character one."""
_COLOUR = re.compile(r"\x1b\[[0-9;:]*m")
_LINK = re.compile(r"\x1b\]8;([^;\x07\x1b]*);([^\x07\x1b]*)")
_CONTROLS = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")
"""Control characters (C0 but the tab, DEL, and C1: \\x9b is a CSI to some terminals)."""


def status_text(line: str) -> Text:
    """The command's line as drawn: its colours and links, nothing else that would act on the terminal."""
    kept, start = [], 0
    for escape in _ESCAPE.finditer(line):
        kept += [_CONTROLS.sub("", line[start : escape.start()]), _harmless(escape.group())]
        start = escape.end()
    kept.append(_CONTROLS.sub("", line[start:]))
    text = Text.from_ansi("".join(kept), no_wrap=True, overflow="ellipsis", end="")
    text.expand_tabs(2)
    return text


def _harmless(escape: str) -> str:
    """A colour as it is, a link ended as the decoder reads it (by ST), anything else nothing. A link whose address
    holds a control character is dropped (its text stays): the terminal is given the address as it is, and a CAN in
    it would end the sequence early, letting what follows act."""
    if _COLOUR.fullmatch(escape):
        return escape
    if (link := _LINK.match(escape)) and not _CONTROLS.search(link[1] + link[2]) and "\t" not in link[1] + link[2]:
        return f"\x1b]8;{link[1]};{link[2]}\x1b\\"
    return ""


EDGE = 1
"""Columns always left on either side, as the status bar under it leaves them (Claude Code indents its own too)."""


class StatusLineBar(Static):
    DEFAULT_CSS = """
    StatusLineBar { height: 1; display: none; color: $text-muted; }
    """

    def __init__(self) -> None:
        super().__init__("", id="status-line")
        self.line: str | None = None
        """What the command printed last (its first line, escapes and all); None while nothing is shown."""

    def show(self, line: str | None, padding: int = 0) -> None:
        """`line` drawn with `padding` columns on either side beyond the status bar's own one; nothing (the row gone)
        for None."""
        self.line = line
        self.styles.padding = (0, EDGE + padding)
        if line is None:
            self.display = False
            return
        self.update(status_text(line))
        self.display = True
