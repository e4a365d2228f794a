"""MCP OAuth tokens shared with the real Claude Code: a sign-in made by agentui (to the SDK's MCP server behind its
loopback authorisation server) is stored where and as Claude Code 2.1.197 looks for it, so `claude mcp list`, which
said the server needs authentication, connects with agentui's token, and asks the server for nothing new."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

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
