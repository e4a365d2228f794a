"""/mcp: the MCP servers of the conversation, and authenticating, reconnecting or approving one (screens/mcp.py);
`/mcp reconnect <name>` without the list."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentui.frontends.tui.slash_command import SlashCommand

if TYPE_CHECKING:
    from agentui.frontends.tui.host import AppHost


class Mcp(SlashCommand):
    name, description = "mcp", "Manage MCP servers: their state and tools; authenticate, reconnect, approve"

    async def run(self, app: AppHost, arguments: str) -> None:
        servers = app.conversation.servers.mcp_status(awaiting=True) if app.conversation else []
        if not servers or app.conversation is None:
            app.say(
                "No MCP servers are in use. Configure them in .mcp.json (approved in your settings), "
                "~/.claude.json, or with --mcp-config."
            )
            return
        action, _, name = arguments.partition(" ")
        if action == "reconnect" and name.strip():
            try:
                connected, said = await app.conversation.servers.reconnect_mcp(name.strip())
            except ValueError as exc:
                connected, said = False, str(exc)
            app.say(said, "info" if connected else "warning")
            return
        from agentui.frontends.tui.screens.mcp import McpScreen

        app.push_screen(McpScreen(app.conversation, app.say))
