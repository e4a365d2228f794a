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
    "PreCompact", "PostToolBatch", "StopFailure", "InstructionsLoaded", "CwdChanged", "UserPromptExpansion",
    "TaskCreated", "TaskCompleted", "SubagentStart", "SubagentStop",
]  # fmt: skip
"""The events compared (not MessageDisplay, which agentui does not fire: Claude Code runs it for every answer)."""


def recording(home: Path) -> dict[str, Any]:
    """A hook that keeps its input in a file of its own, named by when it started: Claude Code runs some hooks while
    others run, so appending to one log could interleave them."""
    (home / "hooks").mkdir(parents=True)
    return {"hooks": [{"type": "command", "command": f"cat > {home}/hooks/$(date +%s%N)-$$.json"}]}


def recorded(home: Path) -> list[dict[str, Any]]:
    """The inputs the hooks of `recording` kept, in the order the hooks started."""
    return [json.loads(path.read_text()) for path in sorted((home / "hooks").iterdir())]


def hook_inputs(
    cli: str,
    server: LoopbackServer,
    home: Path,
    turns: list[list[dict[str, Any]]] | None = None,
    tools: str = "Read",
    prompt: str = "go",
) -> list[dict[str, Any]]:
    """The hooks' inputs of one `-p go` run (a call that reads, one that fails, an answer, unless `turns` says),
    with a CLAUDE.md in the project and one in a directory below it."""
    project = home / "project"
    (project / "sub").mkdir(parents=True)
    (project / "notes.txt").write_text("hello\n")
    (project / "CLAUDE.md").write_text("Be brief.\n")
    (project / "sub" / "CLAUDE.md").write_text("Below.\n")
    (project / "sub" / "a.txt").write_text("a\n")
    (project / ".claude" / "commands").mkdir(parents=True)
    (project / ".claude" / "commands" / "greet.md").write_text("Say hello to $ARGUMENTS.\n")
    turns = turns or [[tool("t1", "Read", file_path=str(project / "notes.txt"))],
                      [tool("t2", "Read", file_path=str(project / "missing.txt"))], [text("Done.")]]  # fmt: skip
    played(server, turns)
    hook = recording(home)
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": {event: [hook] for event in EVENTS}}))
    (home / ".claude").mkdir()
    trusted = {"projects": {str(project): {"hasTrustDialogAccepted": True}}}
    (home / ".claude" / ".claude.json").write_text(json.dumps(trusted))
    env = {**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "agentui")}
    done = subprocess.run(
        [cli, "-p", prompt, "--model", "claude-sonnet-4-5", "--allowedTools", tools],
        cwd=project, env=env, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "Done.", done.stderr
    return recorded(home)


UNAWAITED = frozenset({"InstructionsLoaded", "CwdChanged", "StopFailure"})
"""Claude Code starts these events' hooks without waiting for them: they may end after the next event's hooks."""


def names(inputs: list[dict[str, Any]]) -> list[str]:
    return [i["hook_event_name"] for i in inputs]


def same_events(ours: list[dict[str, Any]], theirs: list[dict[str, Any]], expected: list[str]) -> None:
    """agentui fires `expected` in its order, Claude Code the same events (in that order but for the ones it does not
    wait for), and each event's input has the same fields in the same order in both."""
    assert names(ours) == expected
    assert sorted(names(theirs)) == sorted(expected), names(theirs)
    steady = [name for name in expected if name not in UNAWAITED]
    assert [name for name in names(theirs) if name not in UNAWAITED] == steady, names(theirs)
    for event in set(expected):
        same_fields(
            [i for i in ours if i["hook_event_name"] == event], [i for i in theirs if i["hook_event_name"] == event]
        )


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
    same_events(ours, theirs, [
        "SessionStart", "InstructionsLoaded", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolBatch",
        "PreToolUse", "PostToolUseFailure", "PostToolBatch", "Stop", "SessionEnd",
    ])  # fmt: skip
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
    same_events(ours, theirs, [
        "SessionStart", "InstructionsLoaded", "UserPromptSubmit", "PreToolUse", "PostToolUse", "CwdChanged",
        "PostToolBatch", "PreToolUse", "PreToolUse", "PostToolUse", "PostToolUse", "PostToolBatch",
        "InstructionsLoaded", "Stop", "SessionEnd",
    ])  # fmt: skip
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
        home = tmp_path / name
        (home / "project" / ".claude").mkdir(parents=True)
        hook = recording(home)
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
        inputs[name] = recorded(home)
    ours, theirs = inputs["agentui"], inputs["claude"]
    same_events(ours, theirs, ["SessionStart", "UserPromptSubmit", "StopFailure", "SessionEnd"])
    (failure,) = [i for i in theirs if i["hook_event_name"] == "StopFailure"]
    assert ours[2]["error"] == failure["error"] == "unknown" and "bad thing" in ours[2]["last_assistant_message"]


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


def test_a_custom_command_and_the_task_list_fire_as_in_claude_code(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    """UserPromptExpansion before UserPromptSubmit for `/greet world`; TaskCreated as TaskCreate runs (before its
    PostToolUse), TaskCompleted as TaskUpdate completes the task (not as it starts it)."""
    turns = [[tool("t1", "TaskCreate", subject="Fix it", description="Fix the bug")],
             [tool("t2", "TaskUpdate", taskId="1", status="in_progress")],
             [tool("t3", "TaskUpdate", taskId="1", status="completed")], [text("Done.")]]  # fmt: skip
    ours = hook_inputs(agentui_bin, server, tmp_path / "agentui", turns, prompt="/greet world")
    theirs = hook_inputs(claude_bin, server, tmp_path / "claude", turns, prompt="/greet world")
    batch = ["PreToolUse", "PostToolUse", "PostToolBatch"]
    same_events(ours, theirs, [
        "SessionStart", "InstructionsLoaded", "UserPromptExpansion", "UserPromptSubmit",
        "PreToolUse", "TaskCreated", "PostToolUse", "PostToolBatch", *batch,
        "PreToolUse", "TaskCompleted", "PostToolUse", "PostToolBatch", "Stop", "SessionEnd",
    ])  # fmt: skip
    assert ours[0]["source"] == theirs[0]["source"] == "startup"  # (a command's record before it: still a new session)
    expanded = ours[2]
    assert (expanded["expansion_type"], expanded["command_name"], expanded["command_args"]) == (
        "slash_command", "greet", "world")  # fmt: skip
    (their_expansion,) = [i for i in theirs if i["hook_event_name"] == "UserPromptExpansion"]
    assert expanded["command_source"] == their_expansion["command_source"] == "projectSettings"
    assert expanded["prompt"] == their_expansion["prompt"] == ours[3]["prompt"] == theirs[3]["prompt"] == "/greet world"
    created, completed = ours[5], ours[12]
    assert created["task_id"] == completed["task_id"] == "1" and created["task_subject"] == "Fix it"
    assert completed["task_description"] == "Fix the bug"


def test_a_sub_agent_fires_subagent_start_and_stop_and_nothing_of_the_persons(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    """A sub-agent's prompt is the model's: no SessionStart, UserPromptSubmit or Stop of its own, as in Claude Code
    (agentui fired all three for each sub-agent)."""
    turns = [[tool("t1", "Agent", description="Say hi", prompt="Say hi", subagent_type="general-purpose")],
             [text("Hi from the child.")], [text("Done.")]]  # fmt: skip
    ours = hook_inputs(agentui_bin, server, tmp_path / "agentui", turns, tools="Agent")
    theirs = hook_inputs(claude_bin, server, tmp_path / "claude", turns, tools="Agent")
    person = {"SessionStart", "UserPromptSubmit", "Stop", "SubagentStart", "SubagentStop"}
    assert [name for name in names(ours) if name in person] == [name for name in names(theirs) if name in person] == [
        "SessionStart", "UserPromptSubmit", "SubagentStart", "SubagentStop", "Stop",
    ]  # fmt: skip
