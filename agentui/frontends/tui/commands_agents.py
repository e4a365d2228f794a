"""/agents: list, show, create and edit the sub-agent types the model's Agent tool can start (screens/agents.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentui.frontends.tui.slash_command import SlashCommand

if TYPE_CHECKING:
    from agentui.frontends.tui.host import AppHost


class Agents(SlashCommand):
    name, description = "agents", "List, show, create and edit the sub-agent types the model can start"

    async def run(self, app: AppHost, arguments: str) -> None:
        from agentui.frontends.tui.screens.agents import AgentsScreen

        if (conversation := app.conversation) is None:
            app.say("Agent types can be listed once the session has opened.", "warning")
            return

        def closed(_: None) -> None:
            app.prompt_input.focus()

        app.push_screen(AgentsScreen(app, conversation), closed)
