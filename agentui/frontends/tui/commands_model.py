"""/model: with no argument, a picker of what a person can choose (Claude Code's aliases, the configured model, the
routes); with one, that model or alias from the next request on. On an OpenAI-compatible server a name it does not
list is still used, with one sentence saying so."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentui.frontends.tui.slash_command import SlashCommand

if TYPE_CHECKING:
    from agentui.api import Conversation
    from agentui.frontends.tui.host import AppHost


class Model(SlashCommand):
    name, description = "model", "Pick the model, or switch to one [id or alias: sonnet, opus, haiku, opusplan]"

    async def run(self, app: AppHost, arguments: str) -> None:
        from agentui.frontends.tui.slash_command import no_model_help

        if (conversation := app.conversation) is None:
            app.say(no_model_help(app), "warning")
        elif arguments:
            await choose(app, conversation, arguments)
        else:
            from agentui.api import model_options
            from agentui.frontends.tui.screens.model_picker import ModelPicker

            async def picked(name: str | None) -> None:
                app.prompt_input.focus()
                if name is not None and app.conversation is conversation:
                    await choose(app, conversation, name)

            current = conversation.model
            app.push_screen(ModelPicker(model_options(conversation), current, app.status.status.alias), picked)


async def choose(app: AppHost, conversation: Conversation, typed: str) -> None:
    """`typed` from the next request on; the status bar and one line say what it is."""
    resolved = conversation.set_model(typed)
    app.chosen_model = typed
    app.status.set(model=conversation.model, alias=resolved.alias or "")
    app.say(f"Model set to {resolved.label} for the next requests.")
    if conversation.launch.settings.provider in ("openai", "openai-responses") and typed.strip().lower() != "default":
        from agentui.api import served_models

        listed = await served_models(conversation)
        if listed is not None and resolved.model not in listed:
            some = ", ".join(listed[:8]) + (", ..." if len(listed) > 8 else "") if listed else "no models"
            app.say(
                f"The server does not list {resolved.model} (it lists {some}); requests will ask for it all the same.",
                "warning",
            )
