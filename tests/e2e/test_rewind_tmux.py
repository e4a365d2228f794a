"""Rewind in a real terminal: the installed `agentui` in tmux against the loopback Messages API. Three turns edit two
files and run a `sed -i` through Bash; Esc Esc on the empty prompt, pick the first turn, restore the files and the
conversation: every file is as it was before turn one, the conversation goes on from there on a new branch, and
`agentui --resume` shows the rewound conversation."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.test_day_tmux import _reply, _text, _tool
from tests.e2e.test_tui_tmux import Terminal, app_env
from tests.support.loopback import LoopbackServer
from tests.support.sessions import claude_code_log_reads, lines
from tests.support.work_tree import committed, files, git


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    committed(root, {"calc.py": "def add(a, b):\n    return a - b\n", "notes.md": "# Notes\n\nadd subtracts\n"})
    (root / "draft.txt").write_text("not committed, still rewound\n")
    return root


def test_esc_esc_rewinds_files_bash_changes_and_the_conversation(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    server.enqueue(
        # turn one: an edit
        _reply(_tool("r1", "Read", file_path="calc.py"), stop="tool_use"),
        _reply(_tool("e1", "Edit", file_path="calc.py", old_string="a - b", new_string="a + b"), stop="tool_use"),
        _reply(_text("Turn one done.")),
        # turn two: an edit of the other file, and a sed through Bash
        _reply(_tool("r2", "Read", file_path="notes.md"), stop="tool_use"),
        _reply(_tool("e2", "Edit", file_path="notes.md", old_string="subtracts", new_string="adds"), stop="tool_use"),
        _reply(_tool("b1", "Bash", command="sed -i 's/# Notes/# Calc notes/' notes.md"), stop="tool_use"),
        _reply(_text("Turn two done.")),
        # turn three: a new file and a command that removes one and changes another
        _reply(_tool("w1", "Write", file_path="test_calc.py", content="assert True\n"), stop="tool_use"),
        _reply(_tool("b2", "Bash", command="rm draft.txt && sed -i 's/add/plus/' calc.py"), stop="tool_use"),
        _reply(_text("Turn three done.")),
        # after the rewind
        _reply(_text("Turn one, the second time.")),
    )
    before = files(project)
    env = app_env(clean_env, server)
    terminal = Terminal(f"{agentui_bin} --permission-mode acceptEdits", env, project)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("one")
        terminal.keys("Enter")
        terminal.wait_for("Turn one done.")
        terminal.type("two")
        terminal.keys("Enter")
        # (acceptEdits runs the file commands, sed -i and rm, inside the project without a question, as Claude Code)
        terminal.wait_for("Turn two done.")
        terminal.type("three")
        terminal.keys("Enter")
        terminal.wait_for("Turn three done.")
        assert (project / "calc.py").read_text() == "def plus(a, b):\n    return a + b\n"
        assert (project / "notes.md").read_text() == "# Calc notes\n\nadd adds\n"
        assert not (project / "draft.txt").exists() and (project / "test_calc.py").exists()

        terminal.keys("Escape", "Escape")
        terminal.wait_for("Rewind to before a prompt")
        terminal.keys("End", "Enter")  # the oldest prompt: "one"
        screen = terminal.wait_for("Restore the files and the conversation")
        for name in ("calc.py", "notes.md", "draft.txt", "test_calc.py"):
            assert name in screen, screen
        terminal.keys("Enter")
        screen = terminal.wait_for("Rewound to before “one”: 4 files restored")
        assert "Turn two done." not in screen and "Turn three done." not in screen
        assert files(project) == before
        assert git(project, "status", "--porcelain") == "?? draft.txt\n"
        assert git(project, "stash", "list") == ""

        terminal.wait_for_line(r"│ one\s+│")  # the prompt is back in the input before it is edited
        terminal.keys("C-u")
        terminal.wait_for_line(r"│ Ask for something")
        terminal.type("one, differently")
        terminal.wait_for("one, differently")  # (in the box before Enter sends it: keys lag on a busy machine)
        terminal.keys("Enter")
        terminal.wait_for("Turn one, the second time.")
        terminal.quit()
    finally:
        terminal.close()

    [session] = (Path(clean_env["HOME"]) / ".claude" / "projects").glob("*/*.jsonl")
    prompts = [
        entry
        for entry in lines(session)
        if entry["type"] == "user" and entry["message"]["content"] in ("one", "one, differently")
    ]
    assert prompts[0]["parentUuid"] == prompts[1]["parentUuid"]  # the new prompt branches where the first one did
    claude_code_log_reads(session)

    terminal = Terminal(f"{agentui_bin} --resume {session.stem}", env, project)
    try:
        screen = terminal.wait_for("Turn one, the second time.")
        assert "Turn two done." not in screen and "Turn three done." not in screen
        assert "one, differently" in screen
        terminal.quit()
    finally:
        terminal.close()
