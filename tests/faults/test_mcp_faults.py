"""MCP servers that misbehave, in print mode against the loopback model: a banner or a stray line on stdout that is not
JSON-RPC is ignored (no pydantic traceback), and a call that is never answered ends after MCP_TOOL_TIMEOUT with a
one-sentence result the model sees, while the run goes on."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.test_mcp import answer, call, run, servers, tiny, tool_result
from tests.support.loopback import LoopbackServer

ALLOW = ("--allowedTools", "mcp__tiny__*")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def assert_no_traceback(stderr: str) -> None:
    assert "Traceback" not in stderr and "ValidationError" not in stderr and "pydantic" not in stderr, stderr


def test_a_banner_on_stdout_before_the_server_speaks_json_rpc_is_ignored(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    server.enqueue(call("mcp__tiny__add", a=2, b=3), answer())
    done = run(agentui_bin, clean_env, server, project, "--mcp-config", servers(tiny=tiny("noisy")), *ALLOW)
    assert done.returncode == 0, done.stderr
    assert_no_traceback(done.stderr)
    result = tool_result(server)
    assert not result.get("is_error") and "5" in str(result["content"])


def test_a_stray_line_on_stdout_during_a_call_is_ignored(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    server.enqueue(call("mcp__tiny__chatter"), call("mcp__tiny__add", a=1, b=1), answer())
    done = run(agentui_bin, clean_env, server, project, "--mcp-config", servers(tiny=tiny()), *ALLOW)
    assert done.returncode == 0, done.stderr
    assert_no_traceback(done.stderr)
    assert "chattered" in str(tool_result(server, 1)["content"])
    assert "2" in str(tool_result(server, 2)["content"])  # the server still answers after it


def test_a_call_never_answered_ends_after_mcp_tool_timeout(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, project: Path
) -> None:
    server.enqueue(call("mcp__tiny__wait"), call("mcp__tiny__add", a=1, b=2), answer("Still here."))
    env = {**clean_env, "MCP_TOOL_TIMEOUT": "1500"}
    done = run(agentui_bin, env, server, project, "--mcp-config", servers(tiny=tiny()), *ALLOW)
    assert done.returncode == 0 and done.stdout.strip().endswith("Still here."), done.stderr
    assert_no_traceback(done.stderr)
    waited = tool_result(server, 1)
    assert waited["is_error"] and "did not answer wait within 1.5 s" in str(waited["content"]), waited
    assert "3" in str(tool_result(server, 2)["content"])
