"""Elicitation hooks beside the real Claude Code: an MCP server (FastMCP over stdio) asks where to deploy; in print
mode nobody is there to answer, so without a hook the request is declined, but an Elicitation hook may answer it,
and an ElicitationResult hook sees the answer and may change it. The same settings, server and played model run on
both, and the server's result and the hooks' inputs come out alike."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.interop.conftest import claude_env
from tests.interop.test_agent_sdk import played, text, tool
from tests.interop.test_hook_inputs import recorded
from tests.support.loopback import LoopbackServer

NOTES = str(Path(__file__).resolve().parents[1] / "support" / "mcp_offers_server.py")
ACCEPT = {"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "accept",
                                 "content": {"place": "staging", "hurry": True}}}  # fmt: skip
CANCEL = {"hookSpecificOutput": {"hookEventName": "ElicitationResult", "action": "cancel"}}


def deployed(cli: str, server: LoopbackServer, home: Path, hooks: dict[str, list[dict[str, Any]]]) -> str:
    """What the server's `deploy` tool answered the model in one `-p` run with these hooks (each also keeps its
    input in home/hooks)."""
    project = home / "project"
    (project / ".claude").mkdir(parents=True)
    (home / "hooks").mkdir(parents=True)
    keep = f"cat > {home}/hooks/$(date +%s%N)-$$.json"
    settings = {
        "hooks": {
            event: [{"matcher": "notes", "hooks": [{"type": "command", "command": f"{keep}; {said}"}]}]
            for event, said in {"Elicitation": "true", "ElicitationResult": "true", **hooks}.items()
        }
    }
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"notes": {"command": sys.executable, "args": [NOTES]}}})
    )
    (home / ".claude").mkdir()
    trusted = {"projects": {str(project): {"hasTrustDialogAccepted": True, "enabledMcpjsonServers": ["notes"]}}}
    (home / ".claude" / ".claude.json").write_text(json.dumps(trusted))
    (home / ".claude" / "settings.json").write_text(json.dumps({"enabledMcpjsonServers": ["notes"]}))
    requests = played(server, [[tool("t1", "mcp__notes__deploy")], [text("Done.")]])
    env = {**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "agentui")}
    done = subprocess.run(
        [cli, "-p", "deploy it", "--model", "claude-sonnet-4-5", "--allowedTools", "mcp__notes__deploy"],
        cwd=project, env=env, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "Done.", done.stderr
    (result,) = [block for block in requests[1].json()["messages"][-1]["content"] if block["type"] == "tool_result"]
    content = result["content"]
    return content if isinstance(content, str) else "".join(block.get("text", "") for block in content)


def shapes(home: Path) -> list[tuple[str, list[str], Any]]:
    """Each hook's event, its input's fields in order, and what it was told (the message or the action)."""
    return [
        (i["hook_event_name"], list(i), i.get("message") or (i.get("action"), i.get("content"))) for i in recorded(home)
    ]


@pytest.mark.parametrize(
    ("hooks", "expected"),
    [
        ({}, '{"result":"not deployed: cancel"}'),
        ({"Elicitation": f"echo '{json.dumps(ACCEPT)}'"}, '{"result":"deploying to staging (hurry: True)"}'),
        ({"Elicitation": f"echo '{json.dumps(ACCEPT)}'", "ElicitationResult": f"echo '{json.dumps(CANCEL)}'"},
         '{"result":"deploying to staging (hurry: True)"}'),
        ({"Elicitation": "echo no >&2; exit 2"}, '{"result":"not deployed: decline"}'),
    ],
    ids=["nobody-answers", "a-hook-accepts", "a-hooks-answer-is-final", "a-hook-blocks"],
)  # fmt: skip
def test_elicitation_hooks_answer_and_change_a_servers_request_as_in_claude_code(
    claude_bin: str,
    agentui_bin: str,
    server: LoopbackServer,
    tmp_path: Path,
    hooks: dict[str, Any],
    expected: str,
) -> None:
    theirs = deployed(claude_bin, server, tmp_path / "claude", hooks)
    ours = deployed(agentui_bin, server, tmp_path / "agentui", hooks)
    assert theirs == expected
    assert ours == theirs
    assert shapes(tmp_path / "agentui") == shapes(tmp_path / "claude")
