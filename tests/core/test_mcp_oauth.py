"""OAuth for HTTP MCP servers, against the official SDK's MCP server behind its own authorisation server on loopback
(tests/support/mcp_oauth_server.py), signed in through a test "browser" that consents by following the
authorization URL with httpx: discovery, registration, PKCE and the loopback redirect; tokens kept in Claude Code's
`.credentials.json` (0600), reused by the next start, refreshed once expired; a refusal told in one sentence."""

from __future__ import annotations

import hashlib
import json
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from agentui.core.extend.mcp.client import McpServer
from agentui.core.extend.mcp.config import ServerConfig
from agentui.core.extend.mcp.oauth import AuthenticationFailed, authenticate
from tests.support.oauth_fixture import browser_env, oauth_server


@dataclass
class Started:
    state: str
    error: str
    tools: list[str]


async def started(config: ServerConfig, env: dict[str, str], logs: Path) -> Started:
    """How the server's start went (it is closed again)."""
    server = McpServer(config, logs, env=env)
    await server.start()
    try:
        return Started(server.state, server.error, [tool.name for tool in server.tools])
    finally:
        await server.close()


def stored(env: dict[str, str]) -> dict[str, object]:
    return json.loads((Path(env["CLAUDE_CONFIG_DIR"]) / ".credentials.json").read_text())


def quiet(url: str, opened: bool) -> None:
    assert opened, "the test's browser should have been opened"


@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_first_sign_in_discovers_registers_uses_pkce_and_keeps_claude_codes_entry(
    tmp_path: Path, transport: str
) -> None:
    env = browser_env(tmp_path / "home", tmp_path / "browser.log")
    with oauth_server(tmp_path / "server", transport) as site:
        config = ServerConfig(name="tiny", type=transport, url=site.url)  # type: ignore[arg-type]
        before = await started(config, env, tmp_path)
        assert before.state == "needs-auth" and "needs authentication" in before.error
        assert site.grants() == []  # connecting alone neither registers a client nor opens a browser

        await authenticate(config, env, quiet)

        [registration, grant] = site.grants()
        assert registration["client_name"] == "agentui (tiny)"
        [redirect] = registration["redirect_uris"]  # type: ignore[misc]
        assert str(redirect).startswith("http://localhost:") and str(redirect).endswith("/callback")
        [url] = (tmp_path / "browser.log").read_text().splitlines()
        asked = parse_qs(urlsplit(url).query)
        assert url.startswith(f"{site.issuer}/authorize?")
        assert asked["code_challenge_method"] == ["S256"] and len(asked["code_challenge"][0]) >= 43
        assert asked["redirect_uri"] == [redirect]
        after = await started(config, env, tmp_path)
        assert after.state == "connected" and after.tools == ["whoami"]

    described = json.dumps({"type": transport, "url": site.url, "headers": {}}, separators=(",", ":"))
    key = f"tiny|{hashlib.sha256(described.encode()).hexdigest()[:16]}"
    entry = stored(env)["mcpOAuth"][key]  # type: ignore[index]
    assert entry["serverName"] == "tiny" and entry["serverUrl"] == site.url
    assert entry["accessToken"] == grant["access_token"] and entry["refreshToken"]
    assert abs(entry["expiresAt"] - (time.time() + 3600) * 1000) < 600_000  # milliseconds, as Claude Code's
    assert entry["clientId"] and entry["redirectUri"] == redirect
    assert entry["discoveryState"]["authorizationServerUrl"].rstrip("/") == site.issuer


async def test_the_credentials_file_is_the_owners_alone_and_keeps_what_else_it_holds(tmp_path: Path) -> None:
    env = browser_env(tmp_path / "home")
    credentials = Path(env["CLAUDE_CONFIG_DIR"]) / ".credentials.json"
    credentials.parent.mkdir(parents=True)
    credentials.write_text(json.dumps({"claudeAiOauth": {"accessToken": "the person's login"}}))
    credentials.chmod(0o644)
    with oauth_server(tmp_path / "server") as site:
        await authenticate(ServerConfig(name="tiny", type="http", url=site.url), env, quiet)
    assert stat.S_IMODE(credentials.stat().st_mode) == 0o600
    data = json.loads(credentials.read_text())
    assert data["claudeAiOauth"] == {"accessToken": "the person's login"} and len(data["mcpOAuth"]) == 1


async def test_a_stored_token_is_used_by_the_next_start_without_signing_in_again(tmp_path: Path) -> None:
    env = browser_env(tmp_path / "home", tmp_path / "browser.log")
    with oauth_server(tmp_path / "server") as site:
        config = ServerConfig(name="tiny", type="http", url=site.url)
        await authenticate(config, env, quiet)
        granted = site.kinds()
        for _ in range(2):
            assert (await started(config, env, tmp_path)).state == "connected"
        assert site.kinds() == granted == ["registration", "authorization_code"]
        assert len((tmp_path / "browser.log").read_text().splitlines()) == 1


async def test_an_expired_token_is_refreshed_and_the_new_one_kept(tmp_path: Path) -> None:
    env = browser_env(tmp_path / "home")
    with oauth_server(tmp_path / "server") as site:
        config = ServerConfig(name="tiny", type="http", url=site.url)
        site.token_lifetime(0)  # the first token is expired as soon as it is granted
        await authenticate(config, env, quiet)
        [old] = [entry["accessToken"] for entry in stored(env)["mcpOAuth"].values()]  # type: ignore[attr-defined]
        site.token_lifetime(3600)
        server = await started(config, env, tmp_path)
        assert server.state == "connected", server.error
        assert site.kinds() == ["registration", "authorization_code", "refresh_token"]
        [entry] = stored(env)["mcpOAuth"].values()  # type: ignore[attr-defined]
        assert entry["accessToken"] == site.grants()[-1]["access_token"] != old
        assert entry["expiresAt"] > time.time() * 1000


async def test_a_refused_sign_in_is_one_sentence_and_stores_no_token(tmp_path: Path) -> None:
    env = browser_env(tmp_path / "home")
    with oauth_server(tmp_path / "server", "http", "refuse") as site:
        config = ServerConfig(name="tiny", type="http", url=site.url)
        with pytest.raises(AuthenticationFailed) as refused:
            await authenticate(config, env, quiet)
        assert str(refused.value) == (
            "Authenticating with tiny failed: OAuth error: access_denied - "
            "The person declined to share their tiny tools."
        )
        assert "\n" not in str(refused.value)
        assert (await started(config, env, tmp_path)).state == "needs-auth"
    assert not any(entry.get("accessToken") for entry in stored(env).get("mcpOAuth", {}).values())  # type: ignore[attr-defined]


@pytest.mark.parametrize("browser", [None, "false"])
async def test_without_a_browser_the_url_is_shown_for_the_person_to_open(tmp_path: Path, browser: str | None) -> None:
    env = {key: value for key, value in browser_env(tmp_path / "home").items() if key != "BROWSER"}
    if browser is not None:  # (one that fails: the URL is shown just the same)
        env["BROWSER"] = browser
    shown: list[tuple[str, bool]] = []

    async def person_opens(url: str, opened: bool) -> None:
        shown.append((url, opened))
        async with httpx.AsyncClient(follow_redirects=True) as browser:  # (the person, in a browser elsewhere)
            assert (await browser.get(url)).status_code == 200

    with oauth_server(tmp_path / "server") as site:
        config = ServerConfig(name="tiny", type="http", url=site.url)
        await authenticate(config, env, person_opens)
        [(url, opened)] = shown
        assert not opened and url.startswith(f"{site.issuer}/authorize?")
        assert (await started(config, env, tmp_path)).state == "connected"


async def test_a_server_wanting_a_sign_in_is_told_at_start_with_what_to_do(tmp_path: Path) -> None:
    from agentui.core.extend.mcp.tools import McpHub
    from agentui.core.tools.base import ToolRegistry

    env = browser_env(tmp_path / "home", tmp_path / "browser.log")
    with oauth_server(tmp_path / "server") as site:
        hub = McpHub([ServerConfig(name="web", type="http", url=site.url)], ToolRegistry(), tmp_path, env=env)
        try:
            assert await hub.start() == [
                "The MCP server web needs authentication: run /mcp and choose Authenticate; "
                "its tools are not available."
            ]
        finally:
            await hub.aclose()
        assert site.grants() == [] and not (tmp_path / "browser.log").exists()


async def test_a_token_the_server_stops_taking_makes_it_need_authentication_again(tmp_path: Path) -> None:
    from agentui.core.extend.mcp.tools import McpHub
    from agentui.core.tools.base import ToolContext, ToolRegistry
    from tests.support.waiting import eventually

    env = browser_env(tmp_path / "home")
    with oauth_server(tmp_path / "server") as site:
        config = ServerConfig(name="web", type="http", url=site.url)
        await authenticate(config, env, quiet)
        tools = ToolRegistry()
        hub = McpHub([config], tools, tmp_path, env=env)
        try:
            assert await hub.start() == []
            whoami = tools.get("mcp__web__whoami")
            assert whoami is not None
            ctx = ToolContext(cwd=tmp_path, session_id="s", tool_call_id="t")
            assert (await whoami.run(whoami.Args.model_validate({}), ctx)).content == '{"result":"signed in"}'
            site.forget_tokens()
            assert (await whoami.run(whoami.Args.model_validate({}), ctx)).is_error
            [server] = hub.servers
            await eventually(lambda: server.state == "needs-auth")
            assert "needs authentication" in server.error
        finally:
            await hub.aclose()


async def test_the_registered_callback_port_is_reused_and_a_taken_one_means_registering_again(tmp_path: Path) -> None:
    import socket

    env = browser_env(tmp_path / "home")
    with oauth_server(tmp_path / "server") as site:
        config = ServerConfig(name="tiny", type="http", url=site.url)
        await authenticate(config, env, quiet)
        await authenticate(config, env, quiet)  # (again: the port it was registered with is free, and used)
        assert site.kinds() == ["registration", "authorization_code", "authorization_code"]
        [registered] = site.grants()[0]["redirect_uris"]  # type: ignore[misc]
        with socket.socket() as taken:
            taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # (the port may be in TIME_WAIT)
            taken.bind(("127.0.0.1", urlsplit(str(registered)).port or 0))
            taken.listen()
            await authenticate(config, env, quiet)
        assert site.kinds()[3:] == ["registration", "authorization_code"]
        [entry] = stored(env)["mcpOAuth"].values()  # type: ignore[attr-defined]
        assert entry["redirectUri"] == site.grants()[3]["redirect_uris"][0] != registered  # type: ignore[index]


async def test_mcp_oauth_callback_port_is_used_and_when_taken_is_one_sentence(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken, oauth_server(tmp_path / "server") as site:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**browser_env(tmp_path / "home"), "MCP_OAUTH_CALLBACK_PORT": str(port)}
        config = ServerConfig(name="tiny", type="http", url=site.url)
        with pytest.raises(AuthenticationFailed) as refused:
            await authenticate(config, env, quiet)
        assert str(refused.value).startswith(f"Authenticating with tiny failed: the OAuth callback port {port} is")
        assert str(refused.value).endswith("set MCP_OAUTH_CALLBACK_PORT to a free one.")
        taken.close()
        await authenticate(config, env, quiet)
        assert site.grants()[0]["redirect_uris"] == [f"http://localhost:{port}/callback"]
