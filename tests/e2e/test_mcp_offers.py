"""What MCP servers offer besides tools, in print mode against a model the loopback server plays, with a real MCP
server (tests/support/mcp_offers_server.py, FastMCP over stdio): the resource tools reach the model and answer,
under the permission rules; `@server:uri` attaches a resource; `-p "/mcp__server__prompt words"` sends the server's
prompt; an elicitation is cancelled, since no one is there to answer (as Claude Code cancels it)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.e2e.test_mcp import answer, call, run, servers, tool_result
from tests.support.loopback import LoopbackServer

NOTES = str(Path(__file__).resolve().parents[1] / "support" / "mcp_offers_server.py")


def notes() -> str:
    return servers(notes={"command": sys.executable, "args": [NOTES]})


def user_texts(server: LoopbackServer, request: int = 0) -> list[str]:
    content: Any = json.loads(server.requests[request].body)["messages"][-1]["content"]
    return [content] if isinstance(content, str) else [block.get("text", "") for block in content]


def test_the_resource_tools_reach_the_model_and_answer_under_the_rules(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    server.enqueue(
        call("ListMcpResourcesTool"), call("ReadMcpResourceTool", server="notes", uri="notes://readme"), answer()
    )
    done = run(agentui_bin, clean_env, server, project, "--mcp-config", notes())
    assert done.returncode == 0, done.stderr
    tools = {tool["name"]: tool for tool in json.loads(server.requests[0].body)["tools"]}
    assert tools["ReadMcpResourceTool"]["description"].startswith(
        "\nReads a specific resource from an MCP server, identified by server name and resource URI.\n"
    )
    assert json.loads(tool_result(server, 1)["content"])[0]["uri"] == "notes://readme"  # (read: asked for nothing)
    assert tool_result(server, 2)["content"] == (
        '{"contents":[{"uri":"notes://readme","mimeType":"text/plain",'
        '"text":"Notes are kept in plain text, one per line."}]}'
    )

    server.requests.clear()
    server.enqueue(call("ReadMcpResourceTool", server="notes", uri="notes://readme"), answer())
    flags = ("--mcp-config", notes(), "--disallowedTools", "ReadMcpResourceTool")
    done = run(agentui_bin, clean_env, server, project, *flags)
    assert done.returncode == 0, done.stderr
    result = tool_result(server, 1)
    assert result.get("is_error") and "Notes are kept" not in str(result["content"])


def test_a_resource_mention_goes_with_the_prompt(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    server.enqueue(answer())
    done = prompt_run(agentui_bin, clean_env, server, project, "summarise @notes:notes://readme")
    assert done.returncode == 0, done.stderr
    texts = user_texts(server)
    at = texts.index("summarise @notes:notes://readme")
    assert texts[at + 1 : at + 4] == [
        "Full contents of resource:",
        "Notes are kept in plain text, one per line.",
        "Do NOT read this resource again unless you think it may have changed, since you already have the full "
        "contents.",
    ]


def prompt_run(agentui_bin: str, env: dict[str, str], server: LoopbackServer, project: Path, prompt: str) -> Any:
    import subprocess

    env = {**env, "ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "x", "AGENTUI_MAX_ATTEMPTS": "1"}
    return subprocess.run(
        [agentui_bin, "-p", prompt, "--mcp-config", notes()],
        env=env, cwd=project, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def test_a_servers_prompt_is_a_slash_command_in_print_mode(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    server.enqueue(answer("Hello, Ada!"))
    done = prompt_run(agentui_bin, clean_env, server, project, "/mcp__notes__greet Ada cheerful extra")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Hello, Ada!"
    messages = json.loads(server.requests[0].body)["messages"]
    said = json.dumps(messages)
    assert "<command-name>/mcp__notes__greet</command-name>" in said  # (the command as typed, then its prompt)
    assert "<command-args>Ada cheerful extra</command-args>" in said
    assert "Say hello to Ada in a cheerful way." in user_texts(server)

    missing = prompt_run(agentui_bin, clean_env, server, project, "/mcp__notes__greet")
    assert missing.returncode == 1 and len(server.requests) == 1  # (nothing was sent)
    assert "Missing required argument: name. Usage: /mcp__notes__greet name mood" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_an_elicitation_is_cancelled_in_print_mode_as_in_claude_code(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    server.enqueue(call("mcp__notes__deploy"), answer())
    done = run(agentui_bin, clean_env, server, project, "--mcp-config", notes(), "--allowedTools", "mcp__notes")
    assert done.returncode == 0, done.stderr
    assert tool_result(server, 1)["content"] == '{"result":"not deployed: cancel"}'


def test_an_elicitation_is_an_event_answered_with_a_command_over_the_commands_protocol(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    from tests.e2e.test_commands_stdio import Driver
    from tests.e2e.test_print_mode import anthropic_env

    server.enqueue(call("mcp__notes__deploy"), answer("Deployed."))
    flags = ("--mcp-config", notes(), "--allowedTools", "mcp__notes")
    agentui = Driver(agentui_bin, anthropic_env(clean_env, server), project, *flags)
    agentui.send({"type": "send", "id": "p1", "text": "deploy it"})
    asked = agentui.until("elicitation_request")
    assert (asked["server"], asked["message"]) == ("notes", "Where should it be deployed?")
    assert asked["requested_schema"]["required"] == ["place"]
    decision = {"behavior": "allow", "updated_input": {"place": "prod", "hurry": "no"}}
    agentui.send({"type": "answer", "id": "a1", "request_id": asked["request_id"], "decision": decision})
    assert agentui.until("command_done", id="a1")["outcome"] is True
    assert agentui.until("command_done", id="p1")["outcome"]["text"] == "Deployed."
    assert tool_result(server, 1)["content"] == '{"result":"deploying to prod (hurry: False)"}'
    code, stderr = agentui.close()
    assert code == 0, stderr
