"""`agentui search` fed hostile transcripts and careless arguments: what reaches the terminal and the exit code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from agentui.core.session.paths import project_dir
from tests.frontends.test_search_cli import SESSION, agentui
from tests.support.search_sessions import answer, prompt, write


def test_escape_sequences_in_a_transcript_never_reach_the_terminal(tmp_path: Path) -> None:
    here = tmp_path / "here"
    here.mkdir()
    write(
        project_dir(here, {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}) / f"{SESSION}.jsonl",
        prompt("retitle \x1b]0;owned\x07 the window", session=SESSION, cwd=str(here) + "\x1b[2J"),
        answer("clipboard \x1b]52;c;cHduZWQ=\x07 \x9b31m window", session=SESSION, cwd=str(here) + "\x1b[2J"),
    )
    done = agentui(tmp_path, here, "window")
    assert done.returncode == 0 and "window" in done.stdout
    assert not any(char in done.stdout for char in "\x1b\x07\x9b"), done.stdout


def test_a_limit_too_large_for_sqlite_is_one_sentence(tmp_path: Path) -> None:
    here = tmp_path / "here"
    here.mkdir()
    done = agentui(tmp_path, here, "anything", "--limit", "99999999999999999999")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and "--limit" in done.stderr


def test_a_query_that_is_not_utf8_is_searched_not_a_traceback(tmp_path: Path) -> None:
    here = tmp_path / "here"
    here.mkdir()
    write(
        project_dir(here, {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}) / f"{SESSION}.jsonl",
        prompt("café au lait", session=SESSION, cwd=str(here)),
    )
    done = agentui(tmp_path, here, "caf" + os.fsdecode(b"\xff"), "lait")  # (a Latin-1 terminal's é)
    assert "Traceback" not in done.stderr and done.returncode in (0, 1), done.stderr
    assert done.stderr.count("\n") <= 1


def test_json_output_carries_c1_controls_escaped_and_equal(tmp_path: Path) -> None:
    here = tmp_path / "here"
    here.mkdir()
    write(
        project_dir(here, {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}) / f"{SESSION}.jsonl",
        answer("an eight-bit \x9b2J clear and a \x7f", session=SESSION, cwd=str(here)),
    )
    done = agentui(tmp_path, here, "eight", "--json")
    assert done.returncode == 0 and not any(char in done.stdout for char in "\x1b\x9b\x7f")
    assert "\x9b2J" in json.loads(done.stdout)[0]["snippet"]


def test_a_current_directory_removed_before_the_search_is_one_sentence(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    env = {**os.environ, "HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    env["AGENTUI_STATE_DIR"] = str(tmp_path / "state")
    done = subprocess.run(
        ["sh", "-c", 'cd "$1" && rmdir "$1" && exec "$2" -m agentui search --all anything', "sh", gone, sys.executable],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and "no longer exists" in done.stderr
