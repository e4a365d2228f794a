"""A project set up for Claude Code, run in agentui in a real terminal: a `.mcp.json` server (approved with one key),
an agent in `.claude/agents/`, a skill and a custom command, against a model the loopback server plays."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.e2e.test_tui_tmux import Terminal, app_env
from tests.support.listings import without_listings
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream

TINY = str(Path(__file__).resolve().parents[1] / "support" / "mcp_server.py")


def reply(*blocks: dict[str, object]) -> Reply:
    uses = any(block["type"] == "tool_use" for block in blocks)
    return Reply(chunks=anthropic_stream(list(blocks), stop_reason="tool_use" if uses else "end_turn"))


def test_a_claude_code_project_with_mcp_an_agent_a_skill_and_a_command(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    (project / ".claude" / "agents").mkdir(parents=True)
    (project / ".claude" / "skills" / "sums").mkdir(parents=True)
    (project / ".claude" / "commands").mkdir(parents=True)
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"tiny": {"command": sys.executable, "args": [TINY]}}})
    )
    (project / ".claude" / "agents" / "adder.md").write_text(
        "---\nname: adder\ndescription: Adds numbers with the tiny server.\ntools: mcp__tiny__add\n---\nYou add.\n"
    )
    (project / ".claude" / "skills" / "sums" / "SKILL.md").write_text(
        "---\nname: sums\ndescription: How this project checks its sums.\n---\nAsk the adder agent.\n"
    )
    (project / ".claude" / "commands" / "check.md").write_text(
        "---\ndescription: Check a sum\n---\nCheck that $0 plus $1 is right.\n"
    )
    server.enqueue(
        reply(
            {"type": "text", "text": "Asking the adder."},
            {
                "type": "tool_use",
                "id": "toolu_task",
                "name": "Task",
                "input": {"description": "add", "prompt": "Add 19 and 23.", "subagent_type": "adder"},
            },
        ),
        reply({"type": "tool_use", "id": "toolu_add", "name": "mcp__tiny__add", "input": {"a": 19, "b": 23}}),
        reply({"type": "text", "text": "19 + 23 = 42"}),
        reply({"type": "text", "text": "The adder says the sum is 42."}),
    )
    env = app_env(clean_env, server)
    terminal = Terminal(agentui_bin, env, project)
    try:
        terminal.wait_for("Use the MCP server tiny?")
        terminal.keys("y")
        terminal.wait_for("MCP: tiny connected.")
        terminal.type("/check 19 23")
        terminal.keys("Enter")
        terminal.wait_for("Yes, once")  # the child's MCP call is asked for, through the parent
        terminal.keys("y")
        terminal.wait_for("The adder says the sum is 42.")
    finally:
        terminal.close()

    first, child, child_after, last = (json.loads(request.body) for request in server.requests)
    typed, expanded = (block["text"] for block in without_listings(first["messages"][0]["content"])[:2])
    assert typed.endswith("<command-args>19 23</command-args>") and expanded == "Check that 19 plus 23 is right.\n"
    assert "- sums: How this project checks its sums." in json.dumps(first["messages"][0])  # the skill, listed
    assert "Skill" in {tool["name"] for tool in first["tools"]}  # (for the model to load it with)
    tools = {tool["name"]: tool for tool in first["tools"]}
    assert "mcp__tiny__add" in tools and "adder: Adds numbers with the tiny server." in tools["Agent"]["description"]
    assert [tool["name"] for tool in child["tools"]] == ["mcp__tiny__add"]  # the agent's own tool list
    assert child_after["messages"][-1]["content"][0]["content"] == '{"result":42}'
    assert last["messages"][-1]["content"][0]["content"] == "19 + 23 = 42"
