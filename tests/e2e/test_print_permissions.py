"""Print mode with real tools: nothing writes or executes without a rule or a mode that allows it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest


def tool_call(name: str, call_id: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "notes.txt").write_text("old line\n")
    return root


def agentui(
    agentui_bin: str, project: Path, env: dict[str, str], script: list[dict[str, Any]], *flags: str
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """Run `agentui -p` with a scripted model; returns the process and the tool_end events it reported."""
    script_file = project.parent / "script.json"
    script_file.write_text(json.dumps(script))
    done = subprocess.run(
        [
            agentui_bin,
            "-p",
            "do the work",
            "--provider",
            "scripted",
            "--script",
            str(script_file),
            "--output-format",
            "events",
            *flags,
        ],
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return done, [e for e in events if e["type"] == "tool_end"]


def work(project: Path) -> list[dict[str, Any]]:
    """A model that reads, edits, writes, runs a command, and writes outside the project, then stops."""
    outside = project.parent / "outside.txt"
    return [
        {"content": [tool_call("Read", "r1", file_path="notes.txt")]},
        {
            "content": [
                tool_call("Edit", "e1", file_path="notes.txt", old_string="old line", new_string="new line"),
                tool_call("Write", "w1", file_path="src/new.py", content="print('hi')\n"),
                tool_call("Bash", "b1", command='python3 -c \'open("ran.txt", "w")\''),
                tool_call("Write", "w2", file_path=str(outside), content="escaped\n"),
            ]
        },
        {"text": "Done."},
    ]


def by_id(ends: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {e["tool_call_id"]: e for e in ends}


def test_default_mode_cannot_write_or_execute(agentui_bin: str, clean_env: dict[str, str], project: Path) -> None:
    done, ends = agentui(agentui_bin, project, clean_env, work(project))
    assert done.returncode == 0, done.stderr
    results = by_id(ends)
    assert not results["r1"]["is_error"] and results["r1"]["content"] == "     1\told line"
    for call in ("e1", "w1", "b1", "w2"):
        assert results[call]["is_error"], call
        assert "cannot ask the user for permission" in results[call]["content"]
    assert (project / "notes.txt").read_text() == "old line\n"
    assert not (project / "src").exists() and not (project / "ran.txt").exists()
    assert not (project.parent / "outside.txt").exists()


def test_accept_edits_lets_edits_in_the_project_through_and_still_refuses_other_commands(
    agentui_bin: str, clean_env: dict[str, str], project: Path
) -> None:
    done, ends = agentui(agentui_bin, project, clean_env, work(project), "--permission-mode", "acceptEdits")
    assert done.returncode == 0, done.stderr
    results = by_id(ends)
    assert not results["e1"]["is_error"] and not results["w1"]["is_error"]
    assert (project / "notes.txt").read_text() == "new line\n"
    assert (project / "src" / "new.py").read_text() == "print('hi')\n"
    assert results["b1"]["is_error"] and not (project / "ran.txt").exists()
    assert results["w2"]["is_error"] and "is outside the project" in results["w2"]["content"]
    assert not (project.parent / "outside.txt").exists()


def test_an_allow_rule_on_the_command_line_lets_that_command_run(
    agentui_bin: str, clean_env: dict[str, str], project: Path
) -> None:
    script = [
        {"content": [tool_call("Bash", "b1", command="touch ran.txt && ls")]},
        {"content": [tool_call("Bash", "b2", command="touch ran.txt && rm notes.txt")]},
        {"text": "ok"},
    ]
    _done, ends = agentui(
        agentui_bin, project, clean_env, script, "--allowedTools", "Bash(touch:*)", "--disallowedTools", "Bash(rm:*)"
    )
    results = by_id(ends)
    assert not results["b1"]["is_error"] and results["b1"]["content"] == "notes.txt\nran.txt"
    assert results["b2"]["is_error"] and "the rule Bash(rm:*) denies `rm notes.txt`" in results["b2"]["content"]
    assert (project / "notes.txt").exists()


def test_project_settings_deny_always_apply_but_grant_only_once_trusted(
    agentui_bin: str, clean_env: dict[str, str], project: Path, tmp_path: Path
) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(touch:*)"], "deny": ["Read(./secret.txt)"]}})
    )
    (project / "secret.txt").write_text("s3cret\n")
    script = [
        {
            "content": [
                tool_call("Bash", "b1", command="touch ran.txt"),
                tool_call("Read", "r1", file_path="secret.txt"),
            ]
        },
        {"text": "ok"},
    ]
    env = {**clean_env, "AGENTUI_DATA_DIR": str(tmp_path / "data")}

    done, ends = agentui(agentui_bin, project, env, script)
    results = by_id(ends)
    assert results["b1"]["is_error"] and not (project / "ran.txt").exists()
    assert results["r1"]["is_error"] and "denies" in results["r1"]["content"]
    assert "are not applied because the project is not trusted yet" in done.stderr

    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "trusted-projects.json").write_text(json.dumps({str(project.resolve()): "now"}))
    done, ends = agentui(agentui_bin, project, env, script)
    results = by_id(ends)
    assert not results["b1"]["is_error"] and (project / "ran.txt").exists()
    assert results["r1"]["is_error"]  # still denied
    assert "not trusted" not in done.stderr


def test_a_malformed_settings_file_stops_with_one_sentence(
    agentui_bin: str, clean_env: dict[str, str], project: Path
) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text('{"permissions": {"deny": ["Bash(rm:*)"],}}')
    done, _ = agentui(agentui_bin, project, clean_env, [{"text": "never"}])
    assert done.returncode == 2
    assert done.stderr.startswith(
        f"agentui: The settings file {project.resolve()}/.claude/settings.json is not valid JSON"
    )
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_bad_permission_flags_are_bad_usage(agentui_bin: str, clean_env: dict[str, str], project: Path) -> None:
    done, _ = agentui(agentui_bin, project, clean_env, [{"text": "x"}], "--allowedTools", "Bash(unclosed")
    assert done.returncode == 2 and done.stderr.startswith("agentui: --allowedTools: ")
    done, _ = agentui(agentui_bin, project, clean_env, [{"text": "x"}], "--permission-mode", "yolo")
    assert done.returncode == 2


def test_plan_mode_only_reads(agentui_bin: str, clean_env: dict[str, str], project: Path) -> None:
    done, ends = agentui(agentui_bin, project, clean_env, work(project), "--permission-mode", "plan")
    results = by_id(ends)
    assert not results["r1"]["is_error"]
    assert all(results[c]["is_error"] and "plan mode" in results[c]["content"] for c in ("e1", "w1", "b1", "w2"))
    assert json.loads(done.stdout.splitlines()[0])["permissionMode"] == "plan"
