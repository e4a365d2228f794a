"""`agentui search` fed hostile transcripts and careless arguments: what reaches the terminal and the exit code."""

from __future__ import annotations

from pathlib import Path

from tests.frontends.test_search_cli import agentui


def test_a_limit_too_large_for_sqlite_is_one_sentence(tmp_path: Path) -> None:
    here = tmp_path / "here"
    here.mkdir()
    done = agentui(tmp_path, here, "anything", "--limit", "99999999999999999999")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and "--limit" in done.stderr
