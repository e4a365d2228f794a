"""The /resume picker's search hits drawn from hostile transcripts: nothing of a transcript reaches the terminal as
a control character."""

from __future__ import annotations

from pathlib import Path

from agentui.api import SearchHit
from agentui.frontends.tui.screens.picker_search import hit_line


def test_escape_sequences_in_a_hit_are_drawn_as_visible_text() -> None:
    hit = SearchHit(
        session_id="11111111-2222-4333-8444-555555555555",
        project="-w",
        cwd="/w",
        title="retitle \x1b]0;owned\x07 me \x9b2J",
        sidechain=False,
        path=Path("/w/x.jsonl"),
        uuid="u",
        timestamp="2026-01-01T10:00:00\x1b[2J",
        kind="answer",
        marked="clear \x1b[2J the \x02screen\x03 \x7f",
    )
    drawn = hit_line(hit, 200)
    assert not any(char in drawn.plain for char in "\x1b\x07\x9b\x7f\x02\x03"), repr(drawn.plain)
    assert "screen" in drawn.plain and any(span.style == "bold reverse" for span in drawn.spans)
