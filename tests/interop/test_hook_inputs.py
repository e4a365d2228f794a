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
from tests.support.loopback import LoopbackServer

EVENTS = [
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop", "SessionStart", "SessionEnd",
    "PreCompact",
]  # fmt: skip


def hook_inputs(cli: str, server: LoopbackServer, home: Path) -> list[dict[str, Any]]:
    project = home / "project"
    project.mkdir(parents=True)
    (project / "notes.txt").write_text("hello\n")
    turns = [[tool("t1", "Read", file_path=str(project / "notes.txt"))],
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
        [cli, "-p", "go", "--model", "claude-sonnet-4-5", "--allowedTools", "Read"],
        cwd=project, env=env, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "Done.", done.stderr
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def test_every_hook_reads_claude_codes_fields_in_its_order(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    theirs = hook_inputs(claude_bin, server, tmp_path / "claude")
    ours = hook_inputs(agentui_bin, server, tmp_path / "agentui")
    assert [i["hook_event_name"] for i in ours] == [i["hook_event_name"] for i in theirs] == [
        "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreToolUse", "PostToolUseFailure", "Stop",
        "SessionEnd",
    ]  # fmt: skip
    for mine, claude in zip(ours, theirs, strict=True):
        assert list(mine) == list(claude), claude["hook_event_name"]
    stop = ours[-2]
    assert stop["last_assistant_message"] == "Done." and stop["background_tasks"] == [] == stop["session_crons"]
    failed = ours[5]
    assert failed["error"] and failed["is_interrupt"] is False and isinstance(failed["duration_ms"], int)
    assert ours[-1]["reason"] == "other" and ours[0]["source"] == "startup"


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
