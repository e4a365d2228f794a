"""Plan mode's change queue in a real terminal: the installed `agentui --permission-mode plan-queue` in tmux against
the loopback Messages API. The model plans three file changes, which are queued, not made; the plan's dialog shows
their diffs; the person unchecks one file and approves; two files change, the third does not; Esc Esc rewinds the
prompt and both changes are undone."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.test_day_tmux import _reply, _text, _tool
from tests.e2e.test_tui_tmux import Terminal, app_env
from tests.support.loopback import LoopbackServer
from tests.support.sessions import claude_code_log_reads


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (root / "notes.md").write_text("# Notes\n\nadd subtracts\n")
    return root


def test_plan_queue_approve_two_of_three_files_then_rewind(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    plan = "# Fix add\n\n1. calc.py: add\n2. notes.md: say so\n3. test_calc.py: a test\n"
    server.enqueue(
        _reply(_tool("r1", "Read", file_path="calc.py"), stop="tool_use"),
        _reply(_tool("e1", "Edit", file_path="calc.py", old_string="a - b", new_string="a + b"), stop="tool_use"),
        _reply(_tool("r2", "Read", file_path="notes.md"), stop="tool_use"),
        _reply(_tool("e2", "Edit", file_path="notes.md", old_string="subtracts", new_string="adds"), stop="tool_use"),
        _reply(_tool("w1", "Write", file_path="test_calc.py", content="assert True\n"), stop="tool_use"),
        _reply(_tool("p1", "ExitPlanMode", plan=plan), stop="tool_use"),
        _reply(_text("Two of three applied.")),
    )
    before = {path.name: path.read_text() for path in project.iterdir()}
    env = app_env(clean_env, server)
    terminal = Terminal(f"{agentui_bin} --permission-mode plan-queue", env, project)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("fix add")
        terminal.keys("Enter")
        screen = terminal.wait_for("The model's plan: approve it?")
        terminal.wait_for_line(r"c \[x\] test_calc\.py")
        assert {path.name: path.read_text() for path in project.iterdir()} == before  # queued, nothing made
        terminal.keys("b")  # notes.md stays as it is
        terminal.wait_for_line(r"b \[ \] notes\.md")
        terminal.keys("1")
        terminal.wait_for("Two of three applied.")
        assert (project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
        assert (project / "test_calc.py").read_text() == "assert True\n"
        assert (project / "notes.md").read_text() == before["notes.md"]

        terminal.keys("Escape", "Escape")
        terminal.wait_for("Rewind to before a prompt")
        terminal.keys("End", "Enter")
        screen = terminal.wait_for("Restore the files and the conversation")
        assert "calc.py" in screen and "test_calc.py" in screen, screen
        terminal.keys("Enter")
        terminal.wait_for("Rewound to before “fix add”: 2 files restored")
        assert {path.name: path.read_text() for path in project.iterdir()} == before
        terminal.wait_for_line(r"│ fix add\s+│")  # the prompt is back in the input
        terminal.keys("C-u")
        terminal.wait_for_line(r"│ Ask for something")
        terminal.quit()
    finally:
        terminal.close()
    [session] = (Path(clean_env["HOME"]) / ".claude" / "projects").glob("*/*.jsonl")
    claude_code_log_reads(session)
