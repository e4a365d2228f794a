"""A resumed 2,000-turn session read back in a real terminal (issue 34): its older parts are drawn as lines, and a
block there opens as a live one does. The Edits drawn as lines show their diffs; a click on a Read, far up, puts its
live block in its place, open on the file it read."""

from __future__ import annotations

import re
import time
import uuid
from pathlib import Path

import pytest

from agentui.core.session.paths import project_dir
from tests.e2e.test_tui_tmux import SIZES, Terminal, app_env
from tests.support.long_session import TURNS, write_long_session
from tests.support.loopback import LoopbackServer

READ_LINE = re.compile(r"● Read\s+\S*module_\d+\.py")
DIFF_LINE = re.compile(r"\+ +return None if value is None else value \* \d+")


def _prompts(screen: str) -> list[int]:
    return [int(n) for n in re.findall(r"prompt (\d+): make", screen)]


def _settled(terminal: Terminal) -> str:
    """The screen once it has stopped changing (the parts drawn ahead of the reader are laid out)."""
    deadline = time.monotonic() + 60
    screen, same = terminal.screen(), 0
    while same < 3:
        assert time.monotonic() < deadline, "the screen never settled"
        time.sleep(0.1)
        now = terminal.screen()
        same, screen = (same + 1 if now == screen else 0), now
    return screen


@pytest.mark.parametrize("size", SIZES)
def test_a_block_in_the_line_drawn_history_of_a_resumed_2000_turn_session_opens_with_its_diff_and_output(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path, size: tuple[int, int]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    session_id = str(uuid.uuid4())
    path = project_dir(project, {"HOME": clean_env["HOME"]}) / f"{session_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_long_session(path, session_id, project)
    terminal = Terminal(f"{agentui_bin} --resume {session_id}", app_env(clean_env, server), project, size)
    try:
        terminal.wait_for(f"function_{(TURNS - 1) % 33} now returns None for None")  # the latest answer
        # Up into the parts drawn as lines, well above the latest ones (live widgets), a page at a time
        screen = ""
        for _ in range(200):
            terminal.keys("PPage")
            screen = _settled(terminal)
            shown = _prompts(screen)
            if shown and max(shown) < TURNS - 8 and READ_LINE.search(screen) and DIFF_LINE.search(screen):
                break
        else:
            raise AssertionError(f"PageUp never reached the line-drawn history; the screen was:\n{screen}")
        # (an Edit drawn as lines shows its change: the loop ends on a screen with one)
        assert "def function_" not in screen  # a Read is one line until it is opened
        rows = screen.splitlines()
        row = next(n for n, line in enumerate(rows) if READ_LINE.search(line))
        column = rows[row].index("Read") + 1
        # A click on it (SGR mouse: press and release, 1-based cells) puts the live block there, open
        terminal.type(f"\x1b[<0;{column};{row + 1}M\x1b[<0;{column};{row + 1}m")
        opened = terminal.wait_for("def function_")
        lines = opened.splitlines()
        read = next(n for n, line in enumerate(lines) if READ_LINE.search(line))
        assert any("def function_" in line for line in lines[read + 1 : read + 4])  # the file it read, under it
        assert DIFF_LINE.search(opened) or any(DIFF_LINE.search(line) for line in rows)
        # Enter folds it again, as on any live block (the click gave it the focus)
        terminal.keys("Enter")
        terminal.wait_gone("def function_")
    finally:
        terminal.close()
