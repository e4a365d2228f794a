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


def claude_signs_in(claude_bin: str, env: dict[str, str], project: Path, name: str) -> None:
    """Claude Code's own sign-in, asked for as an Agent SDK program asks (`mcp_authenticate`), its authorization URL
    followed by the test's "browser" (httpx, consenting) back to Claude Code's callback listener."""
    import httpx

    process = subprocess.Popen(
        [claude_bin, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"],
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
        url = ask({"subtype": "mcp_authenticate", "serverName": name})["response"]["authUrl"]
        page = httpx.get(url, follow_redirects=True, timeout=60)
        assert "Authentication successful" in page.text
        credentials = Path(env["CLAUDE_CONFIG_DIR"]) / ".credentials.json"
        for _ in range(600):  # (its token exchange follows the callback; a ceiling only for a broken run)
            if credentials.exists() and any(e.get("accessToken") for e in stored(credentials).values()):
                break
            time.sleep(0.1)
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
        claude_signs_in(claude_bin, env, project, "web")
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
