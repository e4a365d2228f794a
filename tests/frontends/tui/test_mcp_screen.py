"""/mcp in the app: each server's state in Claude Code's words (connected with its tools, failed and why, needs
authentication, pending approval), and its actions: authenticating an OAuth server through the browser (the test's,
which consents with httpx), reconnecting, approving a project's server, clearing a sign-in."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from textual.widgets import OptionList, Static

from agentui.frontends.tui.screens.mcp import McpScreen
from agentui.frontends.tui.screens.mcp_approval import McpApprovalScreen
from agentui.frontends.tui.widgets.transcript import Notice
from tests.frontends.tui.test_app import Harness, texts, type_and_send, until
from tests.support.oauth_fixture import browser_env, oauth_server

TINY = str(Path(__file__).resolve().parents[2] / "support" / "mcp_server.py")


def lines(screen: McpScreen) -> list[str]:
    listing = screen.query_one("#servers", OptionList)
    return [str(listing.get_option_at_index(at).prompt) for at in range(listing.option_count)]


def details(screen: McpScreen) -> str:
    return str(screen.query_one("#server-details", Static).render())


async def test_mcp_shows_each_state_and_authenticates_reconnects_and_approves(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [])
    harness.env.update({key: value for key, value in browser_env(tmp_path / "home").items() if key == "BROWSER"})
    claude = Path(harness.env["CLAUDE_CONFIG_DIR"])
    claude.mkdir(parents=True, exist_ok=True)
    with oauth_server(tmp_path / "oauth") as site:
        servers = {
            "web": {"type": "http", "url": site.url},
            "broken": {"command": sys.executable, "args": [TINY, "crash"]},
        }
        (claude / ".claude.json").write_text(json.dumps({"mcpServers": servers}))
        (harness.project / ".mcp.json").write_text(
            json.dumps({"mcpServers": {"tiny": {"command": sys.executable, "args": [TINY]}}})
        )
        app = harness.app()
        async with app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, McpApprovalScreen))
            await pilot.press("escape")  # not now: it waits, pending approval
            await until(
                pilot,
                lambda: (
                    app.conversation is not None
                    and [s.state for s in app.conversation.servers.mcp_status(awaiting=True)]
                    == ["needs-auth", "failed", "needs-approval"]
                ),
            )
            assert app.conversation is not None  # (Claude Code's SDK statuses have no "pending approval")
            assert [s.state for s in app.conversation.mcp_status()] == ["needs-auth", "failed"]
            await type_and_send(pilot, "/mcp")
            await until(pilot, lambda: isinstance(app.screen, McpScreen))
            screen = app.screen
            assert isinstance(screen, McpScreen)
            assert lines(screen) == [
                "△ web (user) · needs authentication",
                "✘ broken (user) · failed",
                "○ tiny (project) · pending approval",
            ]
            keys = "a authenticate · r reconnect · c clear authentication · Enter authenticate · Esc close"
            assert keys in details(screen)

            await pilot.press("enter")  # authenticate web: the browser consents, the server connects
            await until(pilot, lambda: any("Authentication successful" in n.message for n in texts(app, Notice)))
            assert texts(app, Notice)[-1].message == "Authentication successful. Connected to web."
            assert lines(screen)[0] == "✔ web (user) · connected · 1 tool" and "Tools: whoami" in details(screen)
            assert site.kinds() == ["registration", "authorization_code"]
            assert (claude / ".credentials.json").stat().st_mode & 0o777 == 0o600

            await pilot.press("down")
            assert "Error: the MCP server broken" in details(screen)
            await pilot.press("r")
            await until(pilot, lambda: texts(app, Notice)[-1].message.startswith("Failed to reconnect to broken:"))

            await pilot.press("down", "y")
            await until(pilot, lambda: lines(screen)[2] == "✔ tiny (project) · connected · 7 tools")
            assert texts(app, Notice)[-1].message == "MCP: tiny approved for this project and connected."

            await pilot.press("up", "up", "r")
            await until(pilot, lambda: texts(app, Notice)[-1].message == "Reconnected to web.")
            assert site.kinds() == ["registration", "authorization_code"]  # the stored token served again

            await pilot.press("c")  # the sign-in forgotten: it needs one again
            await until(pilot, lambda: texts(app, Notice)[-1].message == "Authentication cleared for web.")
            assert lines(screen)[0] == "△ web (user) · needs authentication"
            assert json.loads((claude / ".credentials.json").read_text())["mcpOAuth"] == {}
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, McpScreen))
