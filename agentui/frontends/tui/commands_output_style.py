"""/output-style [name]: the output styles (Claude Code's built-in ones, the person's and the project's), the one in use
marked; with a name, that one from the next request on (saved in the project's local settings)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentui.frontends.tui.slash_command import SlashCommand, idle_conversation, no_conversation

if TYPE_CHECKING:
    from agentui.frontends.tui.host import AppHost


class OutputStyles(SlashCommand):
    name, description = "output-style", "List the output styles, or answer in one from now on [name]"

    async def run(self, app: AppHost, arguments: str) -> None:
        from agentui.api import OutputStyleError, load_output_styles, output_style, use_output_style

        if app.conversation is None:
            app.say(no_conversation(app, "output style to set"), "warning")
            return
        conversation = app.conversation
        root, env, trusted = conversation.root, conversation.env, conversation.project.trusted
        if not arguments:
            current = output_style(root, env, trusted)
            styles = [("Default", "agentui's own instructions", current is None)]
            styles += [(s.name, s.description or s.source, current is not None and s.name == current.name)
                       for s in load_output_styles(root, env, trusted).values()]  # fmt: skip
            lines = ["Output styles (/output-style NAME to answer in one):"]
            lines += [f"{'*' if chosen else ' '} {name} — {meaning}" for name, meaning, chosen in styles]
            app.say("\n".join(lines))
            return
        if idle_conversation(app, "output-style") is None:
            return
        try:
            style = use_output_style(conversation, arguments)
        except OutputStyleError as exc:
            app.say(str(exc), "warning")
            return
        name = style.name if style is not None else "Default"
        later = "" if trusted else " (This project is not trusted yet: the next session starts without it.)"
        app.say(f"Output style set to {name}, from the next request on; saved in .claude/settings.local.json.{later}")
