"""The /resume picker's full-text mode: the index's hits over this project's sessions, each drawn with its session's
title, the snippet with the matched words marked, its date and kind; picking one resumes at that message."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rich.text import Text

if TYPE_CHECKING:
    from agentui.api import SearchHit

MATCH_STYLE = "bold reverse"
START, END = "\x02", "\x03"
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def visible(text: str) -> str:
    """`text` with its control characters as `\\xNN`: Textual writes an escape sequence in a transcript's text to
    the terminal as it is, where it would clear the screen or retitle the window."""
    return _CONTROLS.sub(lambda found: f"\\x{ord(found.group()):02x}", text)


def marked(snippet: str) -> Text:
    """The snippet on one line, the words between START and END in MATCH_STYLE."""
    text = Text()
    flat = " ".join(snippet.split())
    for index, part in enumerate(flat.replace(END, START).split(START)):
        text.append(visible(part), style=MATCH_STYLE if index % 2 else "")
    return text


def hit_line(hit: SearchHit, width: int) -> Text:
    """Three lines: the session's title, the snippet, and when, what and which session; each cut to `width`."""
    line = Text()
    title = Text(visible(" ".join((hit.title or hit.session_id).split())), style="bold")
    title.truncate(width, overflow="ellipsis")
    line.append_text(title)
    line.append("\n  ")
    snippet = marked(hit.marked)
    snippet.truncate(max(10, width - 2), overflow="ellipsis")
    line.append_text(snippet)
    where = " · in a sub-agent's transcript" if hit.sidechain else ""
    line.append("\n  " + visible(f"{hit.date} · {hit.kind}{where} · {hit.session_id[:8]}"), style="dim")
    return line
