"""The frame writer (tui/frame_writer.py) leaves a real terminal emulator (pyte) showing exactly what Textual's own
whole redraw of each frame shows, through scrolls, edits, wide characters, rows Textual rendered in part and a
forgotten terminal; and it writes far less than that redraw."""

from __future__ import annotations

import random
from pathlib import Path

import pyte
import pytest
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual._compositor import ChopsUpdate, CompositorUpdate, LayoutUpdate
from textual.geometry import Region
from textual.strip import Strip

from agentui.frontends.tui.frame_writer import FrameWriter, changed_span

W, H = 40, 16
COLOURS = ["#e0e0e0", "#ff8700", "#5fafff", "#87d787", None]
WORDS = ["def", "class", "return", "x", "agentui", "漢字", "→", "é", "frame", "  ", "a_b", "✓"]
THUMB, TRACK = Style(bgcolor="#5f5f5f"), Style(bgcolor="#1c1c1c")
CONSOLE = Console(width=W, color_system="truecolor", force_terminal=True, legacy_windows=False)

Row = tuple[Strip, Strip]
"""A row as the compositor cuts it: the content, and the scrollbar's one cell at the right edge."""


def _words(rng: random.Random) -> list[Segment]:
    segments, cells = [], 0
    while cells < W - 1 and rng.random() < 0.85:
        text = rng.choice(WORDS) + " "
        style = Style(color=rng.choice(COLOURS), bgcolor=rng.choice(COLOURS), bold=rng.random() < 0.3)
        segments.append(Segment(text, style))
        cells += len(text) * 2
    return segments


def _content(segments: list[Segment]) -> Strip:
    return Strip(segments).adjust_cell_length(W - 1, Style(bgcolor="#101010"))


def _row(rng: random.Random) -> Row:
    return _content(_words(rng)), Strip([Segment(" ", rng.choice([THUMB, TRACK]))])


def _next(rng: random.Random, frame: list[Row]) -> list[Row]:
    """The next frame: a band scrolled, lines grown or replaced, cells changed, or nothing."""
    frame = list(frame)
    for _ in range(rng.randint(0, 3)):
        match rng.choice(["scroll", "scroll", "grow", "replace", "bar", "same"]):
            case "scroll":
                top = rng.randrange(H - 3)
                bottom = rng.randrange(top + 2, H)
                shift = rng.choice([1, 1, 2, 3, -1, -2]) % (bottom - top + 1) or 1
                band = frame[top : bottom + 1]
                if rng.random() < 0.5:
                    band = band[shift:] + [_row(rng) for _ in range(shift)]
                else:
                    band = [_row(rng) for _ in range(shift)] + band[:-shift]
                bar = Strip([Segment(" ", rng.choice([THUMB, TRACK]))])
                frame[top : bottom + 1] = [(content, bar) for content, _ in band]
            case "grow":
                y = rng.randrange(H)
                content, bar = frame[y]
                frame[y] = (_content([*list(content.crop(0, rng.randrange(W - 1))), *_words(rng)]), bar)
            case "replace":
                y = rng.randrange(H)
                frame[y] = _row(rng)
            case "bar":
                y = rng.randrange(H)
                frame[y] = (frame[y][0], Strip([Segment(" ", rng.choice([THUMB, TRACK]))]))
    return frame


def _layout(frame: list[Row]) -> LayoutUpdate:
    return LayoutUpdate([list(row) for row in frame], Region(0, 0, W, H))


NOT_RENDERED = Strip([Segment(" ", Style(bgcolor="#000080"))])
"""What a chop holds when the widget there was not rendered again: what is behind it (Textual does not write it)."""


def _chops(rng: random.Random, before: list[Row], frame: list[Row]) -> ChopsUpdate:
    """Textual's partial update: the rows that changed, some of them rendered only in part (the scrollbar's cell left
    out when it did not change: its chop empty, or holding what is behind it), and some unchanged rows rendered
    again."""
    chops: list[dict[int, Strip | None]] = []
    spans = []
    for y, (row, old) in enumerate(zip(frame, before, strict=True)):
        changed = row != old or rng.random() < 0.1
        if not changed:
            chops.append({0: None, W - 1: None})
        elif row[1] == old[1] and rng.random() < 0.5:
            chops.append({0: row[0], W - 1: rng.choice([None, NOT_RENDERED])})
            spans.append((y, 0, W - 1))
        else:
            chops.append({0: row[0], W - 1: row[1]})
            spans.append((y, 0, W))
    return ChopsUpdate(chops, spans, [[W - 1, W] for _ in range(H)])


def _terminal() -> tuple[pyte.Screen, pyte.Stream]:
    screen = pyte.Screen(W, H)
    return screen, pyte.Stream(screen)


def _cells(screen: pyte.Screen) -> list[list[tuple[object, ...]]]:
    return [[tuple(screen.buffer[y][x]) for x in range(W)] for y in range(H)]


@pytest.mark.parametrize("seed", range(12))
def test_a_terminal_shows_each_frame_as_a_whole_redraw_would(seed: int) -> None:
    rng = random.Random(seed)
    writer = FrameWriter()
    ours, ours_in = _terminal()
    theirs, theirs_in = _terminal()
    frame = [_row(rng) for _ in range(H)]
    written = redrawn = scrolls = 0
    for step in range(150):
        before, frame = frame, _next(rng, frame)
        if step % 40 == 39:
            writer.forget()
            ours_in.feed("\x1b[2J")  # (what the terminal showed is gone; the app then repaints it all)
        whole_frame = step == 0 or step % 40 == 39 or rng.random() < 0.3
        update = _layout(frame) if whole_frame else _chops(rng, before, frame)
        out = writer.update(update, W, H).render_segments(CONSOLE)
        whole = _layout(frame).render_segments(CONSOLE)
        ours_in.feed(out)
        theirs_in.feed(whole)
        assert _cells(ours) == _cells(theirs), f"seed {seed}, frame {step}"
        written, redrawn, scrolls = written + len(out), redrawn + len(whole), scrolls + ("\x1b[r" in out)
    assert [line.rstrip() for line in theirs.display] == [
        "".join(segment.text for segment in Strip.join(row)).rstrip() for row in frame
    ]  # (pyte is read as the frame reads)
    assert scrolls > 0
    assert written < redrawn / 2


def test_a_frame_scrolled_by_a_line_is_a_scroll_and_one_row() -> None:
    rng = random.Random(7)
    writer = FrameWriter()
    frame = [_row(rng) for _ in range(H)]
    whole = writer.update(_layout(frame), W, H).render_segments(CONSOLE)
    frame = frame[:2] + frame[3:] + [_row(rng)]  # rows 2.. move up one; a new last row
    out = writer.update(_layout(frame), W, H).render_segments(CONSOLE)
    assert f"\x1b[3;{H}r" in out
    assert out.count("\x1b[") < 40
    assert len(out) < len(whole) / 8
    assert writer.update(_layout(frame), W, H).render_segments(CONSOLE) == ""  # nothing changed: nothing written


def test_a_grown_line_writes_only_its_new_cells() -> None:
    writer = FrameWriter()
    style = Style(color="#ff8700")
    rows = [_content([Segment("the answer so far", style)]) for _ in range(H)]
    writer.update(LayoutUpdate([[row] for row in rows], Region(0, 0, W - 1, H)), W - 1, H).render_segments(CONSOLE)
    rows[5] = _content([Segment("the answer so far grows", style)])
    out = writer.update(LayoutUpdate([[row] for row in rows], Region(0, 0, W - 1, H)), W - 1, H).render_segments(
        CONSOLE
    )
    assert out.startswith("\x1b[6;18H")  # row 6, from the cell after "far"
    assert "the answer" not in out
    assert " grows" in out


def test_a_changed_span_never_cuts_a_wide_character_or_a_combining_mark() -> None:
    style = Style(color="#5fafff")
    old = Strip([Segment("ab", style), Segment("漢字", style), Segment("cd", style)])
    new = Strip([Segment("ab", style), Segment("漢子", style), Segment("cd", style)])
    assert changed_span(old, new) == (2, 6)  # (the segment of wide characters, whole)
    assert changed_span(old, old) == (8, 8)
    assert changed_span(Strip([Segment("ab漢字cd", style)]), Strip([Segment("ab漢子cd", style)])) == (0, 8)
    # "cafe" becoming "café" as a letter and a combining mark (as decomposed text streams in): the mark is written
    assert changed_span(Strip([Segment("cafe", style)]), Strip([Segment("cafe\u0301", style)])) == (0, 4)
    assert changed_span(Strip([Segment("the answer", style)]), Strip([Segment("the answew", style)])) == (9, 10)


def test_a_row_the_update_leaves_alone_is_never_scrolled_away() -> None:
    """Rows 0-9 show what rows 1-10 showed, and row 10 is unchanged (so not in Textual's update): scrolling rows
    0-10 up would blank row 10, which nothing would then write."""
    rng = random.Random(3)
    writer = FrameWriter()
    ours, ours_in = _terminal()
    before = [_row(rng) for _ in range(H)]
    ours_in.feed(writer.update(_layout(before), W, H).render_segments(CONSOLE))
    frame = before[1:11] + before[10:]
    changed = [y for y in range(H) if frame[y] != before[y]]
    chops: list[dict[int, Strip | None]] = [
        {0: frame[y][0], W - 1: frame[y][1]} if y in changed else {0: None, W - 1: None} for y in range(H)
    ]
    update = ChopsUpdate(chops, [(y, 0, W) for y in changed], [[W - 1, W] for _ in range(H)])
    ours_in.feed(writer.update(update, W, H).render_segments(CONSOLE))
    theirs, theirs_in = _terminal()
    theirs_in.feed(_layout(frame).render_segments(CONSOLE))
    assert _cells(ours) == _cells(theirs)


async def test_the_app_s_own_frames_leave_the_terminal_as_a_whole_redraw_would(tmp_path: Path) -> None:
    """Every update the app makes while an answer streams, a command's output comes in, the transcript scrolls and
    keys are typed, written by the app's writer, leaves a terminal as a whole redraw of the screen leaves it."""
    from tests.frontends.tui.test_app import Harness, idle, ready, type_and_send, until

    answer = "".join(f"Line {n} of the answer, with `code` and **bold** words in it.\n\n" for n in range(60))
    calls = [{"content": [{"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "seq 1 40"}}]}]
    harness = Harness(tmp_path, [*calls, {"text": answer, "chunk_size": 7, "delay": 0.002}], allowed=("Bash(seq:*)",))
    app = harness.app()
    width, height = 90, 28
    ours, theirs = pyte.Screen(width, height), pyte.Screen(width, height)
    ours_in, theirs_in = pyte.Stream(ours), pyte.Stream(theirs)
    console = Console(width=width, color_system="truecolor", force_terminal=True, legacy_windows=False)
    seen = {"frames": 0, "scrolls": 0, "written": 0, "redrawn": 0}
    mismatch: list[str] = []

    class Watched(FrameWriter):
        def update(self, update: CompositorUpdate, width: int, height: int) -> CompositorUpdate:
            planned = super().update(update, width, height)
            out = planned.render_segments(console)  # (a test app is never written to a terminal: this stands in)
            whole = update.render_segments(console)  # (Textual's own writing of it)
            ours_in.feed(out)
            theirs_in.feed(whole)
            seen["frames"] += 1
            seen["scrolls"] += "\x1b[r" in out
            seen["written"] += len(out)
            seen["redrawn"] += len(whole)
            if not mismatch and [[tuple(c) for c in ours.buffer[y].values()] for y in range(height)] != [
                [tuple(c) for c in theirs.buffer[y].values()] for y in range(height)
            ]:
                diff = [
                    (y, x, ours.buffer[y][x], theirs.buffer[y][x])
                    for y in range(height)
                    for x in range(width)
                    if ours.buffer[y][x] != theirs.buffer[y][x]
                ]
                mismatch.append(f"frame {seen['frames']} ({type(update).__name__}): {diff[:3]}")
            return planned

    app.frames = Watched()
    async with app.run_test(size=(width, height)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "count, then say a lot")
        await until(pilot, lambda: idle(app) and "Line 59" in "\n".join(theirs.display))
        for key in ["pageup", "pageup", "up", "up", "down", "pagedown", "end", "h", "i"]:
            await pilot.press(key)
            await pilot.pause()
    assert not mismatch, mismatch[0]
    assert seen["frames"] > 20
    assert seen["scrolls"] > 0
    assert seen["written"] < seen["redrawn"] / 2


def test_rows_it_cannot_keep_are_written_as_textual_writes_them() -> None:
    """A row holding a control segment (whose text is not cells) or not as wide as the screen: written as Textual
    writes it, and forgotten (the next frame writes it whole)."""
    from rich.control import Control
    from rich.segment import ControlType

    style = Style(color="#87d787")
    control = Control((ControlType.CURSOR_FORWARD, 0)).segment
    ours, ours_in = _terminal()
    theirs, theirs_in = _terminal()
    writer = FrameWriter()
    frames = [
        [Strip([Segment("a" * W, style)]) for _ in range(H)],
        [Strip([control, Segment("b" * W, style)]), Strip([Segment("c" * (W - 1), style)])]
        + [Strip([Segment("a" * W, style)]) for _ in range(H - 2)],
        [Strip([Segment("d" * W, style)]) for _ in range(H)],
    ]
    for frame in frames:
        update = LayoutUpdate([[row] for row in frame], Region(0, 0, W, H))
        ours_in.feed(writer.update(update, W, H).render_segments(CONSOLE))
        theirs_in.feed(update.render_segments(CONSOLE))
        assert _cells(ours) == _cells(theirs)
