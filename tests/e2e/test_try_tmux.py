"""/try in a real terminal: the installed `agentui` in tmux, in a git repository, against the loopback Messages API.
`/try 2` with a model each shows both attempts at work side by side, then the judge's choice and each one's changes;
pressing 2 applies the second attempt's changes to the project, and its answer continues the conversation."""

from __future__ import annotations

from pathlib import Path

from tests.core.test_attempts import BRANCH_TURNS, Played
from tests.e2e.test_tui_tmux import Terminal, app_env
from tests.support.loopback import LoopbackServer
from tests.support.work_tree import committed, git


def test_try_two_ways_then_pick_one_and_see_it_applied(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    committed(project, {"calc.py": "def add(a, b):\n    return a - b\n"})
    played = Played(server)
    played.judge_choice = "b1"  # (the judge prefers the first; the person picks the second)
    env = app_env(clean_env, server)
    terminal = Terminal(f"{agentui_bin} --permission-mode acceptEdits --model main", env, project)
    try:
        terminal.wait_for("Ask for something")
        terminal.type("/try 2 --models m1,m3 Write the answer.")
        terminal.keys("Enter")
        screen = terminal.wait_for("applies one")  # (the verdict, once both have finished)
        assert "b1 · m1" in screen and "b2 · m3" in screen  # side by side, each with its model
        assert "chosen: b1" in screen and "Longest." in screen
        assert "+one" in screen and "+three" in screen  # each one's changes
        assert "→ Write answer.txt" in screen and "{'" not in screen  # a call as its one line, not a Python dict
        assert not (project / "answer.txt").exists()  # nothing applied yet
        terminal.keys("2")
        screen = terminal.wait_for("Applied attempt 2")
        assert (project / "answer.txt").read_text() == "three\n" * 20
        terminal.wait_for(BRANCH_TURNS["m3"][1][:40])  # its answer, in the conversation
        assert git(project, "worktree", "list").count("\n") == 1  # the worktrees are gone
    finally:
        terminal.close()
