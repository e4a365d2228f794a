"""/profile [instructions | clear]: the project's agent profile (each model's averages per model call, the standing
instructions); with text, that text as the standing instructions from the next request on; `clear` forgets them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentui.frontends.tui.slash_command import SlashCommand, idle_conversation, no_conversation

if TYPE_CHECKING:
    from agentui.frontends.tui.host import AppHost


class ProfileCommand(SlashCommand):
    name, description = "profile", "Show this project's agent profile, or set standing instructions [text, or clear]"

    async def run(self, app: AppHost, arguments: str) -> None:
        from agentui.api import ProfileError, load_profile, set_standing_instructions

        if app.conversation is None:
            app.say(no_conversation(app, "profile to show"), "warning")
            return
        conversation = app.conversation
        if not arguments.strip():
            profile = load_profile(conversation.root, conversation.env)
            lines = ["Agent profile of this project (/profile TEXT sets standing instructions, /profile clear):"]
            lines += [
                f"  {model}: {seen.tokens_per_round:,.0f} tokens, ${seen.cost_per_round:.4f} per model call "
                f"({seen.rounds} seen)"
                for model, seen in sorted(profile.models.items())
            ] or ["  no model calls seen yet"]
            lines.append(f"Standing instructions: {profile.instructions or 'none'}")
            app.say("\n".join(lines))
            return
        if idle_conversation(app, "profile") is None:
            return
        text = "" if arguments.strip() == "clear" else arguments
        try:
            kept = set_standing_instructions(conversation, text)
        except ProfileError as exc:
            app.say(str(exc), "warning")
            return
        app.say(
            f"Standing instructions set, from the next request on: {kept}" if kept else "Standing instructions cleared."
        )
