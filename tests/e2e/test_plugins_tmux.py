"""A plugin installed from a local marketplace in the app (`/plugin`), in a real terminal at both sizes, and, at the
next start, each thing it brings used against a model the loopback server plays: its command `/hello:hi`, its hook
(UserPromptSubmit), its agent `hello:greeter`, its MCP server `plugin:hello:hellosrv` (approved with one key), and its
skill `hello:greet` (loaded with the Skill tool). And in print mode, its MCP server not yet approved is said to be the
plugin's and is not started."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_tui_tmux import SIZES, Terminal, app_env
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.plugins import write_marketplace
from tests.support.sse import anthropic_stream


def reply(*blocks: dict[str, Any]) -> Reply:
    uses = any(block["type"] == "tool_use" for block in blocks)
    return Reply(chunks=anthropic_stream(list(blocks), stop_reason="tool_use" if uses else "end_turn"))


def use(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def played() -> Any:
    """The model: the greeter agent answers; the main agent starts it, calls the MCP server, reads the skill, ends."""

    def model(request: RecordedRequest) -> Reply:
        body = request.json()
        if "You greet." in json.dumps(body.get("system")):
            return reply({"type": "text", "text": "Greetings from the greeter."})
        last = body["messages"][-1]["content"]
        done = (
            {block.get("tool_use_id") for block in last if isinstance(block, dict)} if isinstance(last, list) else set()
        )
        if "agent" in done:
            return reply(use("shout", "mcp__plugin_hello_hellosrv__shout", {"text": "hi"}))
        if "shout" in done:
            return reply(use("skill", "Skill", {"skill": "hello:greet"}))
        if "skill" in done:
            return reply({"type": "text", "text": "All four used."})
        return reply(
            use("agent", "Agent", {"description": "greet", "prompt": "Greet bob.", "subagent_type": "hello:greeter"})
        )

    return model


@pytest.mark.parametrize("size", SIZES)
def test_a_plugin_installed_in_the_app_brings_a_command_hook_agent_mcp_server_and_skill(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path, size: tuple[int, int]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    log = tmp_path / "hook.log"
    mkt = write_marketplace(tmp_path / "mkt", log)
    env = app_env(clean_env, server, CLAUDE_CONFIG_DIR=str(tmp_path / "claude"))
    root = mkt / "plugins" / "hello"  # (a folder marketplace's plugin is read where it is, as in Claude Code)
    server.responder = played()

    terminal = Terminal(agentui_bin, env, project, size)
    try:
        terminal.wait_for("Ask for something")
        terminal.type(f"/plugin marketplace add {mkt}")
        terminal.keys("Enter")
        terminal.wait_for("Successfully added marketplace")
        terminal.type("/plugin install hello@local-mkt")
        terminal.keys("Enter")
        terminal.wait_for("Successfully installed plugin")
        terminal.quit()
    finally:
        terminal.close()

    terminal = Terminal(agentui_bin, env, project, size)
    try:
        terminal.wait_for("plugin:hello:hellosrv?")  # (its MCP server waits for the person's approval)
        terminal.keys("y")
        terminal.wait_for("connected")
        terminal.type("/hello:hi bob")
        terminal.keys("Enter")
        terminal.wait_for("Yes, once")  # (the MCP tool is asked for, as any)
        terminal.keys("y")
        terminal.wait_for("All four used.")
    finally:
        terminal.close()

    main = [r.json() for r in server.requests if "You greet." not in json.dumps(r.json().get("system"))]
    first = json.dumps(main[0]["messages"])
    assert f"Say hi to bob from {root}" in first  # the command, expanded
    assert "hello:greeter" in json.dumps(main[0]["tools"]) and "- hello:greet: Greets people" in json.dumps(main[0])
    assert any("You greet." in json.dumps(r.json().get("system")) for r in server.requests)  # the agent ran
    results = [b for m in main[-1]["messages"] for b in m["content"] if isinstance(b, dict) and "tool_use_id" in b]
    said = {b["tool_use_id"]: json.dumps(b["content"]) for b in results}
    assert "Greetings from the greeter." in said["agent"]
    assert f"HI (from {root})" in said["shout"]  # the MCP server, with CLAUDE_PLUGIN_ROOT in its environment
    assert "Launching skill: hello:greet" in said["skill"]
    assert f"Base directory for this skill: {root / 'skills' / 'greet'}" in json.dumps(main[-1]["messages"])
    assert "Greet warmly." in json.dumps(main[-1]["messages"])
    assert log.read_text().splitlines() == [f"hook {root} {root}"]  # the hook, once for the one prompt


def test_in_print_mode_a_plugins_server_not_yet_approved_is_said_to_be_the_plugins_and_not_started(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    import subprocess

    project = tmp_path / "project"
    project.mkdir()
    env = app_env(clean_env, server, CLAUDE_CONFIG_DIR=str(tmp_path / "claude"))
    mkt = write_marketplace(tmp_path / "mkt", tmp_path / "hook.log")
    for words in (["marketplace", "add", str(mkt)], ["install", "hello@local-mkt"]):
        done = subprocess.run([agentui_bin, "plugin", *words], env=env, cwd=project, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    server.enqueue(reply({"type": "text", "text": "Fine."}))
    done = subprocess.run([agentui_bin, "-p", "hello"], env=env, cwd=project, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "Fine.", done.stderr
    assert "The MCP server plugin:hello:hellosrv from the plugin hello is not started" in done.stderr
    assert not [t for t in server.requests[0].json()["tools"] if t["name"].startswith("mcp__")]
