"""MCP beyond tools, beside the pinned Claude Code: with the same MCP server (tests/support/mcp_offers_server.py, which
declares resources and prompts), both offer the model ListMcpResourcesTool and ReadMcpResourceTool with the same
descriptions and arguments, and `-p "/mcp__notes__greet Ada cheerful"` sends the model the same words: the command
as typed, then the server's prompt."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.interop.conftest import claude_env
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream

NOTES = str(Path(__file__).resolve().parents[1] / "support" / "mcp_offers_server.py")
RESOURCE_TOOLS = ("ListMcpResourcesTool", "ReadMcpResourceTool")


def _asked(cli: str, server: LoopbackServer, tmp_path: Path, name: str, prompt: str) -> dict[str, Any]:
    """The first request of the conversation (the one that offers tools) `cli -p prompt` sends."""
    seen: list[RecordedRequest] = []

    def model(request: RecordedRequest) -> Reply:
        if "tools" in request.json():
            seen.append(request)
        return Reply(chunks=anthropic_stream([{"type": "text", "text": "Seen."}]))

    server.responder = model
    home, project = tmp_path / f"{name}-home", tmp_path / "project"
    home.mkdir(exist_ok=True)
    project.mkdir(exist_ok=True)
    env = {**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "agentui")}
    config = json.dumps({"mcpServers": {"notes": {"command": sys.executable, "args": [NOTES]}}})
    done = subprocess.run(
        [cli, "-p", prompt, "--model", "claude-sonnet-4-5", "--mcp-config", config],
        cwd=project, env=env, capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert done.returncode == 0, (name, done.stderr)
    assert seen, (name, done.stdout, done.stderr)
    return seen[0].json()


def _resource_tools(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    tools = {tool["name"]: tool for tool in body["tools"]}
    shown = {}
    for name in RESOURCE_TOOLS:
        schema = {key: value for key, value in tools[name]["input_schema"].items() if key != "$schema"}
        shown[name] = {"description": tools[name]["description"], "input_schema": schema}
    return shown


def _last_texts(body: dict[str, Any]) -> list[str]:
    content = body["messages"][-1]["content"]
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    return [block["text"] for block in blocks if block.get("type") == "text"]


def test_resource_tools_and_prompt_commands_are_claude_codes(
    agentui_bin: str, claude_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    prompt = "/mcp__notes__greet Ada cheerful"
    claude = _asked(claude_bin, server, tmp_path, "claude", prompt)
    agentui = _asked(agentui_bin, server, tmp_path, "agentui", prompt)
    assert _resource_tools(agentui) == _resource_tools(claude)

    def said(body: dict[str, Any]) -> list[str]:
        texts = [text.rstrip("\n") for text in _last_texts(body)]
        at = next(at for at, text in enumerate(texts) if text.startswith("<command-message>"))
        return texts[at:]

    assert (
        said(agentui)
        == said(claude)
        == [
            "<command-message>mcp__notes__greet</command-message>\n<command-name>/mcp__notes__greet</command-name>\n"
            "<command-args>Ada cheerful</command-args>",
            "Say hello to Ada in a cheerful way.",
        ]
    )
