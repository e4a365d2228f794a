"""`agentui search` run as a person runs it: a real subprocess over real session files in a temporary home."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from agentui.core.session.paths import project_dir
from tests.support.search_sessions import answer, prompt, uuid_of, write

SESSION = "11111111-2222-4333-8444-555555555555"
OTHER = "66666666-7777-4888-8999-aaaaaaaaaaaa"


def agentui(tmp_path: Path, cwd: Path, *words: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "AGENTUI_STATE_DIR": str(tmp_path / "state"),
        "AGENTUI_DATA_DIR": str(tmp_path / "data"),
        "AGENTUI_CONFIG_DIR": str(tmp_path / "config"),
        "AGENTUI_CACHE_DIR": str(tmp_path / "cache"),
    }
    return subprocess.run(
        [sys.executable, "-m", "agentui", "search", *words],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def two_projects(tmp_path: Path) -> tuple[Path, Path, str]:
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir(), there.mkdir()
    said = answer("the flux capacitor needs 1.21 gigawatts", session=SESSION, cwd=str(here))
    write(
        project_dir(here, env) / f"{SESSION}.jsonl",
        prompt("fix the flux capacitor", session=SESSION, cwd=str(here)),
        said,
    )
    write(project_dir(there, env) / f"{OTHER}.jsonl", prompt("the flux of time", session=OTHER, cwd=str(there)))
    return here, there, uuid_of(said)


def test_a_hit_shows_its_session_date_kind_snippet_and_the_command_that_resumes_there(tmp_path: Path) -> None:
    here, _, said = two_projects(tmp_path)
    done = agentui(tmp_path, here, "gigawatts")
    assert done.returncode == 0, done.stderr
    project = project_dir(here, {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}).name
    assert f"{SESSION}  {project}  2026-01-01 10:00  answer" in done.stdout
    assert "the flux capacitor needs 1.21 [gigawatts]" in done.stdout
    assert f"\n  agentui --resume {SESSION} --resume-session-at {said}\n" in done.stdout
    assert "--fork-session" in done.stdout


def test_the_project_scope_all_and_json(tmp_path: Path) -> None:
    here, there, _ = two_projects(tmp_path)
    assert {hit["session_id"] for hit in json.loads(agentui(tmp_path, here, "flux", "--json").stdout)} == {SESSION}
    everywhere = json.loads(agentui(tmp_path, here, "flux", "--all", "--json", "--limit", "5").stdout)
    assert {hit["session_id"] for hit in everywhere} == {SESSION, OTHER}
    theirs = next(hit for hit in everywhere if hit["session_id"] == OTHER)
    assert theirs["kind"] == "prompt" and theirs["snippet"] == "the [flux] of time"
    assert theirs["resume"].startswith(f"cd {there} && agentui --resume {OTHER} --resume-session-at ")
    assert [
        hit["session_id"]
        for hit in json.loads(agentui(tmp_path, here, "flux", "--project", str(there), "--json").stdout)
    ] == [OTHER]
    assert len(json.loads(agentui(tmp_path, here, "flux", "--all", "--json", "--limit", "1").stdout)) == 1


def test_bad_usage_an_odd_query_and_no_match_are_one_sentence_each(tmp_path: Path) -> None:
    here, _, _ = two_projects(tmp_path)
    for words, code, says in (
        ((), 2, "the following arguments are required: query"),
        (("flux", "--limit", "0"), 2, "--limit must be 1 or more."),
        (("flux", "--project", str(tmp_path / "nowhere")), 2, "is not a directory."),
        (('"flux', "AND"), 1, "No match in this project's sessions"),
        (("zebra",), 1, "No match in this project's sessions (--all searches every project)."),
    ):
        done = agentui(tmp_path, here, *words)
        assert done.returncode == code and says in done.stderr and "Traceback" not in done.stderr, (words, done.stderr)
    assert agentui(tmp_path, here, '"flux capacitor', "--json").returncode == 0


def test_a_corrupt_index_is_said_in_one_sentence_and_made_again(tmp_path: Path) -> None:
    here, _, _ = two_projects(tmp_path)
    index = tmp_path / "state" / "search" / "sessions.db"
    index.parent.mkdir(parents=True)
    index.write_text("garbage " * 1000)
    done = agentui(tmp_path, here, "gigawatts")
    assert done.returncode == 0 and "[gigawatts]" in done.stdout
    assert done.stderr.count("\n") == 1 and "it was made again from the session files." in done.stderr


def test_an_index_that_cannot_be_made_is_one_sentence(tmp_path: Path) -> None:
    here, _, _ = two_projects(tmp_path)
    (tmp_path / "state").write_text("a file where the state directory should be")
    done = agentui(tmp_path, here, "gigawatts")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("agentui search: The search index at ") and done.stderr.count("\n") == 1
