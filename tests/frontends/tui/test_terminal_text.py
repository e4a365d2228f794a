"""Control characters in the app's text never reach the terminal as controls (tui/terminal_text.py): every frame's
text segments lose them, with the cells and Textual's own control segments as they were, and a real terminal
emulator (pyte) shows the frame unmoved with its title unchanged; where text is laid out (Rich's Text, Textual's
Content, a widget in the app) they are drawn as `\\xNN`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyte
import pytest
import rich.control
import textual.content
from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual._compositor import ChopsUpdate, InlineUpdate, LayoutUpdate
from textual.content import Content
from textual.geometry import Region
from textual.strip import Strip

from agentui.frontends.tui.terminal_text import SHOWN, show_controls, visible_strip, visible_update
from agentui.frontends.tui.widgets.transcript import Notice
from tests.frontends.tui.test_app import Harness, ready, until

W = 60
CONSOLE = Console(width=W, color_system="truecolor", force_terminal=True, legacy_windows=False)
CONTROLS = [chr(code) for code in [*range(0x20), *range(0x7F, 0xA0)]]
"""Every C0 control, DEL and every C1 control."""

SEQUENCES = [
    "\x1b]2;PWNED\x1b\\",  # retitle the window
    "\x1b]0;PWNED\x07",  # the same, ended by BEL
    "\x1b]52;c;cm0gLXJmIH4K\x1b\\",  # write the clipboard
    "\x1b[2J\x1b[H",  # clear the screen, cursor home
    "\x9b2J",  # the same as an 8-bit CSI
    "\x9d2;PWNED\x9c",  # an 8-bit OSC and ST
    "\x1b]8;;http://127.0.0.1/\x1b\\link\x1b]8;;\x1b\\",  # a hyperlink
    "\x1bc",  # reset the terminal
]


@pytest.fixture
def pristine() -> Iterator[None]:
    """Rich's and Textual's tables as they ship (an app made earlier in this process changed them), and after the
    test as they were."""
    tables: list[dict[int, str | None]] = [
        rich.control._CONTROL_STRIP_TRANSLATE,
        textual.content._CONTROL_STRIP_TRANSLATE,
    ]  # type: ignore[list-item]
    saved = [dict(table) for table in tables]
    for table in tables:
        for code in SHOWN:
            table.pop(code, None)
    yield
    for table, was in zip(tables, saved, strict=True):
        table.clear()
        table.update(was)


def _terminal(output: str) -> pyte.Screen:
    screen = pyte.Screen(W, 4)
    screen.title = "before"
    pyte.Stream(screen).feed(output)
    return screen


def _row(text: str) -> Strip:
    """A row of the screen's width: `text` between two styled cells, and a control segment as Textual makes one."""
    strip = Strip([Segment("<", Style(color="red")), Segment(text), Segment(">", Style(bold=True))])
    return Strip([*strip.adjust_cell_length(W - 1), Segment("\x1b[1;1H", None, control=True), Segment("|")])


@pytest.mark.parametrize("char", CONTROLS, ids=[f"{ord(c):02x}" for c in CONTROLS])
def test_every_control_character_is_dropped_from_a_text_segment_and_nothing_else(char: str) -> None:
    strip = _row(f"a{char}b{char}")
    seen = visible_strip(strip)
    assert "".join(segment.text for segment in seen if not segment.control) == "<ab>" + " " * (W - 5) + "|"
    assert seen.cell_length == strip.cell_length == W
    assert [segment for segment in seen if segment.control] == [Segment("\x1b[1;1H", None, control=True)]
    assert [segment.style for segment in seen] == [segment.style for segment in strip]


def test_a_strip_without_control_characters_is_the_same_strip() -> None:
    strip = _row("plain é 漢字 ✓")
    assert visible_strip(strip) is strip


@pytest.mark.parametrize("sequence", SEQUENCES)
def test_a_frame_with_an_escape_sequence_in_its_text_shows_on_a_terminal_as_without_it(sequence: str) -> None:
    rows = [[_row(f"x{sequence}y")], [_row("second")]]
    printable = "".join(char for char in sequence if char not in CONTROLS)
    clean = [[_row(f"x{printable}y")], [_row("second")]]
    updates = [
        (LayoutUpdate(rows, Region(0, 0, W, 2)), LayoutUpdate(clean, Region(0, 0, W, 2))),
        (
            ChopsUpdate([{0: rows[0][0]}, {0: rows[1][0]}], [(0, 0, W), (1, 0, W)], [[W], [W]]),
            ChopsUpdate([{0: clean[0][0]}, {0: clean[1][0]}], [(0, 0, W), (1, 0, W)], [[W], [W]]),
        ),
        (InlineUpdate([row[0] for row in rows]), InlineUpdate([row[0] for row in clean])),
    ]
    for update, expected in updates:
        written = visible_update(update).render_segments(CONSOLE)
        assert written == expected.render_segments(CONSOLE)
        terminal = _terminal(written)
        assert terminal.title == "before"
        assert f"x{printable}y>" in terminal.display[0] and "<second>" in terminal.display[1]


def test_a_chops_update_leaves_the_rows_it_does_not_write_as_they_were() -> None:
    unwritten = _row("\x1b]2;other\x1b\\")
    update = ChopsUpdate([{0: _row("\x1b]2;T\x1b\\")}, {0: unwritten}], [(0, 0, W)], [[W], [W]])
    seen = visible_update(update)
    assert isinstance(seen, ChopsUpdate)
    written = seen.chops[0][0]
    assert seen.chops[1][0] is unwritten and written is not None
    assert all("\x1b" not in segment.text for segment in written if not segment.control)


@pytest.mark.usefixtures("pristine")
def test_where_text_is_laid_out_controls_are_drawn_as_hex_and_measured_so() -> None:
    show_controls()
    for char in CONTROLS:
        code = f"\\x{ord(char):02x}"
        text, content = Text(f"a{char}b"), Content(f"a{char}b")
        if char in "\x07\x08\x0b\x0c\x0d":  # (stripped by Rich and Textual as before: a CRLF shows no \x0d)
            assert text.plain == content.plain == "ab"
        elif char in "\t\n":  # (laid out by them)
            assert text.plain == content.plain == f"a{char}b"
        else:
            assert text.plain == content.plain == f"a{code}b"
            assert text.cell_len == content.cell_length == cell_len(f"a{code}b") == 6
    assert Text("\x1b]2;PWNED\x1b\\ \x9b2J").plain == "\\x1b]2;PWNED\\x1b\\ \\x9b2J"
    assert Content.from_markup("[b]a\x1b\x9bz[/b]").plain == "a\\x1b\\x9bz"


@pytest.mark.usefixtures("pristine")
async def test_an_escape_sequence_in_a_transcript_line_is_drawn_as_text_in_the_app(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "ok"}])
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.say("title \x1b]2;PWNED\x1b\\ and \x9b2J here")
        drawn = "\\x1b]2;PWNED\\x1b\\ and \\x9b2J here"
        await until(pilot, lambda: any(drawn in notice.render_line(0).text for notice in app.query(Notice)))
