"""The JSON each hook reads on stdin, from agentui and from the real Claude Code, field by field: the same settings
hooks (every event), the same played model (a call that succeeds, one that fails, an answer), compared event by
event in the order they fire."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.interop.conftest import claude_env
from tests.interop.test_agent_sdk import played, text, tool
from tests.support.loopback import LoopbackServer, Reply

EVENTS = [
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop", "SessionStart", "SessionEnd",
    "PreCompact", "PostToolBatch", "StopFailure", "InstructionsLoaded", "CwdChanged",
]  # fmt: skip
"""The events compared (not MessageDisplay, which agentui does not fire: Claude Code runs it for every answer)."""


def hook_inputs(
    cli: str, server: LoopbackServer, home: Path, turns: list[list[dict[str, Any]]] | None = None, tools: str = "Read"
) -> list[dict[str, Any]]:
    """The hooks' inputs of one `-p go` run (a call that reads, one that fails, an answer, unless `turns` says),
    with a CLAUDE.md in the project and one in a directory below it."""
    project = home / "project"
    (project / "sub").mkdir(parents=True)
    (project / "notes.txt").write_text("hello\n")
    (project / "CLAUDE.md").write_text("Be brief.\n")
    (project / "sub" / "CLAUDE.md").write_text("Below.\n")
    (project / "sub" / "a.txt").write_text("a\n")
    turns = turns or [[tool("t1", "Read", file_path=str(project / "notes.txt"))],
                      [tool("t2", "Read", file_path=str(project / "missing.txt"))], [text("Done.")]]  # fmt: skip
    played(server, turns)
    log = home / "hooks.log"
    hook = {"hooks": [{"type": "command", "command": f"cat >> {log}; echo >> {log}"}]}
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": {event: [hook] for event in EVENTS}}))
    (home / ".claude").mkdir()
    trusted = {"projects": {str(project): {"hasTrustDialogAccepted": True}}}
    (home / ".claude" / ".claude.json").write_text(json.dumps(trusted))
    env = {**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "agentui")}
    done = subprocess.run(
        [cli, "-p", "go", "--model", "claude-sonnet-4-5", "--allowedTools", tools],
        cwd=project, env=env, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "Done.", done.stderr
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def same_fields(ours: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> None:
    for mine, claude in zip(ours, theirs, strict=True):
        assert list(mine) == list(claude), (claude["hook_event_name"], list(mine), list(claude))
        for key in ("tool_calls",):  # (each call of a batch, field by field too)
            for call, their_call in zip(mine.get(key, []), claude.get(key, []), strict=True):
                assert list(call) == list(their_call)


def test_every_hook_reads_claude_codes_fields_in_its_order(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    theirs = hook_inputs(claude_bin, server, tmp_path / "claude")
    ours = hook_inputs(agentui_bin, server, tmp_path / "agentui")
    assert [i["hook_event_name"] for i in ours] == [i["hook_event_name"] for i in theirs] == [
        "SessionStart", "InstructionsLoaded", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolBatch",
        "PreToolUse", "PostToolUseFailure", "PostToolBatch", "Stop", "SessionEnd",
    ]  # fmt: skip
    same_fields(ours, theirs)
    stop = ours[-2]
    assert stop["last_assistant_message"] == "Done." and stop["background_tasks"] == [] == stop["session_crons"]
    failed = ours[7]
    assert failed["error"] and failed["is_interrupt"] is False and isinstance(failed["duration_ms"], int)
    assert ours[-1]["reason"] == "other" and ours[0]["source"] == "startup"
    memory = ours[1]
    assert memory["memory_type"] == "Project" and memory["load_reason"] == "session_start"
    assert memory["file_path"] == str(tmp_path / "agentui" / "project" / "CLAUDE.md")
    (batch,) = ours[5]["tool_calls"]
    assert batch["tool_use_id"] == "t1" and "hello" in batch["tool_response"]


def test_a_cd_a_parallel_batch_and_a_nested_claude_md_fire_as_in_claude_code(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    """CwdChanged after the `cd`'s PostToolUse (every input's cwd the new directory from then on); one PostToolBatch
    for two reads that run together; InstructionsLoaded for the CLAUDE.md below the project after the batch whose
    read reached it."""
    inputs = {}
    for name, cli in (("claude", claude_bin), ("agentui", agentui_bin)):
        project = tmp_path / name / "project"
        turns = [[tool("t1", "Bash", command="cd sub")],
                 [tool("t2", "Read", file_path=str(project / "sub" / "a.txt")),
                  tool("t3", "Read", file_path=str(project / "notes.txt"))], [text("Done.")]]  # fmt: skip
        inputs[name] = hook_inputs(cli, server, tmp_path / name, turns, tools="Bash Read")
    ours, theirs = inputs["agentui"], inputs["claude"]
    assert [i["hook_event_name"] for i in ours] == [i["hook_event_name"] for i in theirs] == [
        "SessionStart", "InstructionsLoaded", "UserPromptSubmit", "PreToolUse", "PostToolUse", "CwdChanged",
        "PostToolBatch", "PreToolUse", "PreToolUse", "PostToolUse", "PostToolUse", "PostToolBatch",
        "InstructionsLoaded", "Stop", "SessionEnd",
    ]  # fmt: skip
    same_fields(ours, theirs)
    project = tmp_path / "agentui" / "project"
    moved = ours[5]
    assert moved["old_cwd"] == str(project) and moved["new_cwd"] == str(project / "sub")
    assert ours[4]["cwd"] == ours[-1]["cwd"] == str(project / "sub") and ours[3]["cwd"] == str(project)
    assert [call["tool_use_id"] for call in ours[11]["tool_calls"]] == ["t2", "t3"]
    nested = ours[12]
    assert nested["file_path"] == str(project / "sub" / "CLAUDE.md") and nested["load_reason"] == "nested_traversal"
    assert nested["trigger_file_path"] == str(project / "sub" / "a.txt")


def test_a_run_the_api_ends_runs_stop_failure_not_stop(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    inputs = {}
    refused = Reply.error(400, {"type": "error", "error": {"type": "invalid_request_error", "message": "bad thing"}})
    for name, cli in (("claude", claude_bin), ("agentui", agentui_bin)):
        home, log = tmp_path / name, tmp_path / name / "hooks.log"
        (home / "project" / ".claude").mkdir(parents=True)
        hook = {"hooks": [{"type": "command", "command": f"cat >> {log}; echo >> {log}"}]}
        hooks = {event: [hook] for event in EVENTS}
        (home / "project" / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
        (home / ".claude").mkdir()
        trusted = {"projects": {str(home / "project"): {"hasTrustDialogAccepted": True}}}
        (home / ".claude" / ".claude.json").write_text(json.dumps(trusted))
        server.responder = lambda request: refused
        env = {**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "agentui")}
        done = subprocess.run([cli, "-p", "go", "--model", "claude-sonnet-4-5"], cwd=home / "project", env=env,
                              capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)  # fmt: skip
        assert done.returncode == 1
        inputs[name] = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    ours, theirs = inputs["agentui"], inputs["claude"]
    assert [i["hook_event_name"] for i in ours] == [i["hook_event_name"] for i in theirs] == [
        "SessionStart", "UserPromptSubmit", "StopFailure", "SessionEnd"]  # fmt: skip
    same_fields(ours, theirs)
    assert ours[2]["error"] == theirs[2]["error"] == "unknown" and "bad thing" in ours[2]["last_assistant_message"]


def test_a_resumed_session_starts_with_source_resume(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    sources = {}
    for name, cli in (("claude", claude_bin), ("agentui", agentui_bin)):
        home = tmp_path / name
        project = home / "project"
        (project / ".claude").mkdir(parents=True)
        log = home / "hooks.log"
        hook = {"hooks": [{"type": "command", "command": f"cat >> {log}; echo >> {log}"}]}
        (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"SessionStart": [hook]}}))
        (home / ".claude").mkdir()
        trusted = {"projects": {str(project): {"hasTrustDialogAccepted": True}}}
        (home / ".claude" / ".claude.json").write_text(json.dumps(trusted))
        env = {**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "agentui")}
        played(server, [[text("One.")], [text("Two.")]])
        flags = ["--model", "claude-sonnet-4-5", "--output-format", "json"]
        first = subprocess.run([cli, "-p", "go", *flags], cwd=project, env=env, capture_output=True, text=True,
                               timeout=180, stdin=subprocess.DEVNULL)  # fmt: skip
        session_id = json.loads(first.stdout)["session_id"]
        subprocess.run([cli, "-p", "again", "--resume", session_id, *flags], cwd=project, env=env, timeout=180,
                       capture_output=True, stdin=subprocess.DEVNULL, check=True)  # fmt: skip
        sources[name] = [json.loads(line)["source"] for line in log.read_text().splitlines() if line.strip()]
    assert sources["agentui"] == sources["claude"] == ["startup", "resume"]
