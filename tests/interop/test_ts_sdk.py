"""The official TypeScript Agent SDK (@anthropic-ai/claude-agent-sdk, pinned, from npm) driving agentui through
`pathToClaudeCodeExecutable`, and the same program driving the real Claude Code CLI, against the loopback model
server, with the same assertions: it says more in `initialize` than the Python SDK (in-process MCP servers, system
prompts), and it reads every error result's `errors`."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.interop.conftest import claude_env
from tests.interop.test_agent_sdk import played, text, tool
from tests.support.loopback import LoopbackServer

PROGRAM = Path(__file__).with_name("ts_sdk") / "program.mjs"
CEILING = 180.0


@pytest.fixture(params=["agentui", "claude"])
def cli(request: pytest.FixtureRequest, agentui_bin: str) -> str:
    """Each program runs on agentui and on the real Claude Code (the pinned npm release)."""
    if request.param == "agentui":
        return agentui_bin
    return str(request.getfixturevalue("claude_bin"))


def run(ts_sdk: Path, cli: str, server: LoopbackServer, tmp_path: Path, *prompts: str, **spec: Any) -> list[Any]:
    """The program's messages, each as the SDK gave it, then its end (`done`, or `threw` with the error)."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir(exist_ok=True)
    project.mkdir(exist_ok=True)
    (project / "notes.txt").write_text("hello\n")
    env = {**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "agentui")}
    spec = {"cli": cli, "cwd": str(project), "env": env, "prompts": list(prompts), **spec}
    node = shutil.which("node")
    assert node, "node is needed for the TypeScript Agent SDK (apt-get install nodejs)"
    sdk = ts_sdk / "@anthropic-ai" / "claude-agent-sdk" / "sdk.mjs"
    done = subprocess.run(
        [node, str(PROGRAM), str(sdk), json.dumps(spec), str(ts_sdk / "zod" / "index.js")],
        capture_output=True, text=True, timeout=CEILING, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines and "end" in lines[-1], f"the program did not finish: {done.stdout[-2000:]} {done.stderr[-2000:]}"
    return lines


def results(lines: list[Any]) -> list[dict[str, Any]]:
    return [line for line in lines if line.get("type") == "result"]


def test_a_query_with_a_tool_runs_to_its_result(ts_sdk: Path, cli: str, server: LoopbackServer, tmp_path: Path) -> None:
    notes = tmp_path / "project" / "notes.txt"
    reading = [text("Let me read it."), tool("toolu_01", "Read", file_path=str(notes))]
    played(server, [reading, [text("It says hello.")]])
    lines = run(ts_sdk, cli, server, tmp_path, "read notes.txt", options={"allowedTools": ["Read"]})
    assert lines[-1] == {"end": "done"}
    [result] = results(lines)
    assert result["subtype"] == "success" and result["result"] == "It says hello." and result["num_turns"] == 2


def test_an_in_process_mcp_server_announced_in_initialize_serves_the_models_call(
    ts_sdk: Path, cli: str, server: LoopbackServer, tmp_path: Path
) -> None:
    seen = played(server, [[tool("m1", "mcp__calc__add", a=2, b=3)], [text("It is 5.")]])
    lines = run(ts_sdk, cli, server, tmp_path, "add 2 and 3", calc=True, options={"allowedTools": ["mcp__calc__add"]})
    assert "mcp__calc__add" in [offered["name"] for offered in seen[0].json()["tools"]]
    assert {"called": "add", "a": 2, "b": 3} in lines
    answer = seen[1].json()["messages"][-1]["content"][0]
    assert answer["type"] == "tool_result" and not answer.get("is_error") and "5" in json.dumps(answer["content"])
    [result] = results(lines)
    assert result["result"] == "It is 5."
    init = next(line for line in lines if line.get("subtype") == "init")
    assert {"name": "calc", "status": "connected"} in init["mcp_servers"]


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("Be a pirate.", "Be a pirate."),
        (["One.", "Two."], "One.\n\nTwo."),
        ({"type": "preset", "preset": "claude_code", "append": "Always rhyme."}, "Always rhyme."),
    ],
    ids=["string", "parts", "preset-with-append"],
)
def test_the_system_prompt_sent_in_initialize_reaches_the_model(
    ts_sdk: Path, cli: str, server: LoopbackServer, tmp_path: Path, given: Any, said: str
) -> None:
    seen = played(server, [[text("Arr.")]])
    lines = run(ts_sdk, cli, server, tmp_path, "hi", options={"systemPrompt": given})
    assert results(lines)[0]["result"] == "Arr."
    system = seen[0].json()["system"]
    parts = [system] if isinstance(system, str) else [block["text"] for block in system]
    assert any(said in part for part in parts), parts
    preset = isinstance(given, dict)
    # A prompt of the program's own replaces the tool's instructions; the preset keeps them.
    assert any(len(part) > 500 for part in parts) == preset
