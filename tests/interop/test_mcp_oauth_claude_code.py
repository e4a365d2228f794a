"""MCP OAuth tokens shared with the real Claude Code, both ways: a sign-in made by agentui (to the SDK's MCP server
behind its loopback authorisation server) is stored where and as Claude Code 2.1.197 looks for it, so `claude mcp
list`, which said the server needs authentication, connects with agentui's token and asks the server for nothing new;
and a sign-in made by Claude Code serves agentui, which refreshes its token once expired."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from agentui.core.extend.mcp.client import McpServer
from agentui.core.extend.mcp.config import ServerConfig
from agentui.core.extend.mcp.oauth import authenticate
from tests.interop.conftest import claude_env
from tests.support.loopback import LoopbackServer
from tests.support.oauth_fixture import browser_env, oauth_server


def listed(claude_bin: str, env: dict[str, str], project: Path) -> str:
    done = subprocess.run(
        [claude_bin, "mcp", "list"], env=env, cwd=project, capture_output=True, text=True, timeout=180
    )
    return next((line for line in done.stdout.splitlines() if line.startswith("web:")), done.stdout + done.stderr)


async def test_claude_code_connects_with_the_token_agentui_obtained(
    tmp_path: Path, claude_bin: str, server: LoopbackServer
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = claude_env(home, server.url)
    config = Path(env["CLAUDE_CONFIG_DIR"])
    config.mkdir(parents=True)
    with oauth_server(tmp_path / "oauth") as site:
        (config / ".claude.json").write_text(json.dumps({"mcpServers": {"web": {"type": "http", "url": site.url}}}))
        assert listed(claude_bin, env, project).endswith("Needs authentication")

        await authenticate(ServerConfig(name="web", type="http", url=site.url), browser_env(home), lambda *_: None)
        granted = site.kinds()
        assert granted == ["registration", "authorization_code"]

        assert listed(claude_bin, env, project).endswith("✔ Connected")
        assert site.kinds() == granted


def signs_in(command: str, env: dict[str, str], project: Path, name: str, clear: bool = False) -> dict[str, Any]:
    """A sign-in asked of `command` (Claude Code or agentui) as an Agent SDK program asks for one (`mcp_authenticate`),
    its authorization URL followed by the test's "browser" (httpx, consenting) back to the tool's callback listener;
    returns the tool's answer once the server is connected with the new token. With `clear`, the sign-in is then
    cleared (`mcp_clear_auth`) until the server needs one again."""
    import httpx

    process = subprocess.Popen(
        [command, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"],
        env=env, cwd=project, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    asked = 0

    def ask(request: dict[str, object]) -> dict[str, Any]:
        nonlocal asked
        asked += 1
        line = {"type": "control_request", "request_id": f"r{asked}", "request": request}
        process.stdin.write(json.dumps(line) + "\n")  # type: ignore[union-attr]
        process.stdin.flush()  # type: ignore[union-attr]
        for said in process.stdout:  # type: ignore[union-attr]
            message = json.loads(said)
            if message.get("type") == "control_response" and message["response"]["request_id"] == f"r{asked}":
                return message["response"]  # type: ignore[no-any-return]
        raise AssertionError("Claude Code ended without answering")

    try:
        ask({"subtype": "initialize"})
        for _ in range(600):  # (until its own first connection has found the server needs a sign-in)
            statuses = ask({"subtype": "mcp_status"})["response"]["mcpServers"]
            if any(server.get("status") == "needs-auth" for server in statuses):
                break
            time.sleep(0.1)
        answered = ask({"subtype": "mcp_authenticate", "serverName": name})["response"]
        page = httpx.get(answered["authUrl"], follow_redirects=True, timeout=60)
        assert "Authentication successful" in page.text
        for _ in range(600):  # (the token exchange and the reconnection follow the callback)
            statuses = ask({"subtype": "mcp_status"})["response"]["mcpServers"]
            if any(server.get("status") == "connected" for server in statuses):
                break
            time.sleep(0.1)
        else:
            raise AssertionError(f"{command} did not connect after the sign-in: {statuses}")
        if clear:
            assert ask({"subtype": "mcp_clear_auth", "serverName": name}) == {
                "subtype": "success", "request_id": f"r{asked}", "response": {}
            }  # fmt: skip
            statuses = ask({"subtype": "mcp_status"})["response"]["mcpServers"]
            assert [server["status"] for server in statuses] == ["needs-auth"]
        return answered  # type: ignore[no-any-return]
    finally:
        process.kill()
        process.wait()


def stored(credentials: Path) -> dict[str, Any]:
    return json.loads(credentials.read_text()).get("mcpOAuth", {})  # type: ignore[no-any-return]


async def test_agentui_connects_with_and_refreshes_the_token_claude_code_obtained(
    tmp_path: Path, claude_bin: str, server: LoopbackServer
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = claude_env(home, server.url)
    config_dir = Path(env["CLAUDE_CONFIG_DIR"])
    config_dir.mkdir(parents=True)
    credentials = config_dir / ".credentials.json"
    with oauth_server(tmp_path / "oauth") as site:
        (config_dir / ".claude.json").write_text(json.dumps({"mcpServers": {"web": {"type": "http", "url": site.url}}}))
        signs_in(claude_bin, env, project, "web")
        assert site.kinds() == ["registration", "authorization_code"]
        [theirs] = stored(credentials).values()

        config = ServerConfig(name="web", type="http", url=site.url)
        ours = browser_env(home)
        assert (await started(config, ours, tmp_path)) == "connected"
        assert site.kinds() == ["registration", "authorization_code"]  # Claude Code's token, used as it is

        [key] = stored(credentials)
        data = json.loads(credentials.read_text())
        data["mcpOAuth"][key]["expiresAt"] = int(time.time() * 1000) - 1000  # (as if an hour had gone by)
        credentials.write_text(json.dumps(data))
        assert (await started(config, ours, tmp_path)) == "connected"
        assert site.kinds() == ["registration", "authorization_code", "refresh_token"]
        [refreshed] = stored(credentials).values()
        assert refreshed["accessToken"] == site.grants()[-1]["access_token"] != theirs["accessToken"]
        assert refreshed["clientId"] == theirs["clientId"] and refreshed["expiresAt"] > time.time() * 1000


async def started(config: ServerConfig, env: dict[str, str], logs: Path) -> str:
    server = McpServer(config, logs, env=env)
    await server.start()
    try:
        return server.state
    finally:
        await server.close()


@pytest.mark.parametrize("tool", ["claude", "agentui"])
async def test_an_sdk_program_signs_in_through_agentui_as_through_claude_code(
    tmp_path: Path, claude_bin: str, agentui_bin: str, server: LoopbackServer, tool: str
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = {**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "agentui")}
    config_dir = Path(env["CLAUDE_CONFIG_DIR"])
    config_dir.mkdir(parents=True)
    with oauth_server(tmp_path / "oauth") as site:
        (config_dir / ".claude.json").write_text(json.dumps({"mcpServers": {"web": {"type": "http", "url": site.url}}}))
        answered = signs_in(claude_bin if tool == "claude" else agentui_bin, env, project, "web", clear=True)
        assert site.kinds()[:2] == ["registration", "authorization_code"]  # (Claude Code registers again on
        assert site.kinds().count("authorization_code") == 1  # reconnecting after the clearing; agentui does not)
    assert answered["authUrl"].startswith(f"{site.issuer}/authorize?")
    assert {key: answered[key] for key in ("requiresUserAction", "callbackExpected", "redirectScheme")} == {
        "requiresUserAction": True,
        "callbackExpected": True,
        "redirectScheme": "localhost",
    }
    assert f"localhost%3A{answered['callbackPort']}%2Fcallback" in answered["authUrl"]
    credentials = config_dir / ".credentials.json"
    assert credentials.stat().st_mode & 0o777 == 0o600
    assert not any(entry.get("accessToken") for entry in stored(credentials).values())  # (cleared)
