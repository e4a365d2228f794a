"""/context: what fills the model's context window, part by part, as a grid of cells and a legend (the core counts,
`agentui.api.context_breakdown`; `widgets/context_view.py` draws)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentui.frontends.tui.slash_command import SlashCommand, no_conversation

if TYPE_CHECKING:
    from agentui.frontends.tui.host import AppHost

WIDE_WINDOW = 1_000_000
"""From this window on, Claude Code draws twice the columns (each cell half a percent), where the screen has room."""
WIDE_SCREEN = 100


class Context(SlashCommand):
    name, description = "context", "Show what fills the context window: each part's tokens, as a grid"

    async def run(self, app: AppHost, arguments: str) -> None:
        from agentui.api import context_breakdown
        from agentui.frontends.tui.widgets.context_view import ContextView

        if (conversation := app.conversation) is None:
            app.say(no_conversation(app, "context to show"), "warning")
            return
        breakdown = context_breakdown(conversation)
        wide = (breakdown.window or 0) >= WIDE_WINDOW and app.size.width >= WIDE_SCREEN
        app.transcript.add(ContextView(breakdown, conversation.root, columns=20 if wide else 10))
