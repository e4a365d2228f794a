"""The request for a built-in Explore sub-agent, from agentui and from the real Claude Code, on the same played model:
the same small, fast model, and the same tools withheld from it (of the tools both offer); and a background one's
launch and task lines in stream-json."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.interop.conftest import claude_env
from tests.interop.test_agent_sdk import played, text, tool
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream

EVERY_SUB_AGENTS = {"TaskOutput"}
"""What Claude Code withholds from every sub-agent, not only Explore (agentui gives its sub-agents TaskOutput)."""


def explore_requests(cli: str, server: LoopbackServer, home: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The parent's first request and the Explore sub-agent's, from one `-p` run."""
    project = home / "project"
    project.mkdir(parents=True)
    (project / "notes.txt").write_text("hello\n")
    (home / ".claude").mkdir()
    trusted = {"projects": {str(project): {"hasTrustDialogAccepted": True}}}
    (home / ".claude" / ".claude.json").write_text(json.dumps(trusted))
    call = tool("t1", "Agent", description="Find notes", prompt="Find the notes file", subagent_type="Explore")
    seen = played(server, [[call], [text("notes.txt")], [text("Done.")]])
    env = {**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "agentui")}
    done = subprocess.run(
        [cli, "-p", "go", "--model", "claude-sonnet-4-5", "--allowedTools", "Agent"],
        cwd=project, env=env, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "Done.", done.stderr
    parent, child = seen[0].json(), seen[1].json()
    assert "Find the notes file" in json.dumps(child["messages"][0]) and "Find the notes file" not in json.dumps(
        parent["messages"]
    )
    return parent, child


def names(body: dict[str, Any]) -> set[str]:
    return {t["name"] for t in body["tools"]}


def test_an_explore_sub_agent_gets_claude_codes_model_and_tools(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    ours_parent, ours = explore_requests(agentui_bin, server, tmp_path / "agentui")
    theirs_parent, theirs = explore_requests(claude_bin, server, tmp_path / "claude")
    assert ours["model"] == theirs["model"] == "claude-haiku-4-5-20251001"
    assert ours_parent["model"] == theirs_parent["model"] == "claude-sonnet-4-5"
    both = names(ours_parent) & names(theirs_parent) - EVERY_SUB_AGENTS
    assert {"Agent", "Edit", "Write", "NotebookEdit", "Read", "Bash"} <= both
    withheld_ours, withheld_theirs = (
        (names(ours_parent) - names(ours)) & both,
        (names(theirs_parent) - names(theirs)) & both,
    )
    assert withheld_ours == withheld_theirs == {"Agent", "Edit", "Write", "NotebookEdit"}


def background_run(cli: str, server: LoopbackServer, home: Path) -> list[dict[str, Any]]:
    """The stream-json lines of a `-p` run whose model sends an Explore sub-agent to the background, says it started,
    and answers its `<task-notification>`; the sub-agent answers at once."""
    project = home / "project"
    project.mkdir(parents=True)
    (home / ".claude").mkdir()
    trusted = {"projects": {str(project): {"hasTrustDialogAccepted": True}}}
    (home / ".claude" / ".claude.json").write_text(json.dumps(trusted))
    call = tool("t1", "Agent", description="Survey", prompt="Survey the code", subagent_type="Explore",
                run_in_background=True)  # fmt: skip
    parent = [[call], [text("Started.")], [text("It found three modules.")]]
    turns: list[int] = []

    def model(request: RecordedRequest) -> Reply:
        body = request.json()
        if "tools" not in body:
            return Reply(chunks=anthropic_stream([text("A title")]))
        if "Survey the code" in json.dumps(body["messages"][0]):  # (the sub-agent's)
            return Reply(chunks=anthropic_stream([text("Three modules.")], message_id="msg_child"))
        turns.append(len(turns))
        blocks = parent[min(len(turns), len(parent)) - 1]
        stop = "tool_use" if blocks[0]["type"] == "tool_use" else "end_turn"
        return Reply(chunks=anthropic_stream(blocks, stop_reason=stop, message_id=f"msg_{len(turns)}"))

    server.responder = model
    env = {**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "agentui")}
    done = subprocess.run(
        [cli, "-p", "go", "--model", "claude-sonnet-4-5", "--allowedTools", "Agent", "--output-format", "stream-json",
         "--verbose"],
        cwd=project, env=env, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def test_a_background_agents_task_lines_and_launch_are_claude_codes(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    """The launch's result (`tool_use_result`), and the `task_started`, `task_updated` and `task_notification` lines,
    field by field; and both answer the notification in a turn of its own."""
    ours = background_run(agentui_bin, server, tmp_path / "agentui")
    theirs = background_run(claude_bin, server, tmp_path / "claude")
    for lines in (ours, theirs):
        assert [line["result"] for line in lines if line["type"] == "result"] == ["Started.", "It found three modules."]
    for subtype in ("task_started", "task_updated", "task_notification"):
        [mine] = [line for line in ours if line.get("subtype") == subtype]
        [claude] = [line for line in theirs if line.get("subtype") == subtype]
        assert list(mine) == list(claude), subtype
        for key in ("description", "subagent_type", "task_type", "prompt", "tool_use_id", "status", "summary"):
            assert mine.get(key) == claude.get(key), key
        if subtype == "task_notification":
            assert list(mine["usage"]) == list(claude["usage"])
    [mine] = [line["tool_use_result"] for line in ours if line["type"] == "user" and "tool_use_result" in line]
    [claude] = [line["tool_use_result"] for line in theirs if line["type"] == "user" and "tool_use_result" in line]
    assert [key for key in mine if key != "backgroundTaskId"] == list(claude)  # (agentui's own key last)
    assert mine["status"] == claude["status"] == "async_launched"
    assert mine["resolvedModel"] == claude["resolvedModel"] == "claude-haiku-4-5-20251001"
