"""Commands about the session at hand, as Claude Code's: /rename names it, /copy puts an answer on the clipboard,
/add-dir adds a working directory (for this session, or remembered in the project's local settings)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentui.frontends.tui.slash_command import SlashCommand, shown_path

if TYPE_CHECKING:
    from agentui.frontends.tui.host import AppHost


class Rename(SlashCommand):
    name, description = "rename", "Name this session (the status bar and /resume show it) <name>"

    async def run(self, app: AppHost, arguments: str) -> None:
        if (conversation := app.conversation) is None:
            app.say("There is no session to name yet.", "warning")
            return
        if not arguments.strip():
            app.say(
                "Say the session's name: /rename <name> (the status bar and the /resume picker show it).", "warning"
            )
            return
        from agentui.api import rename_session

        title = rename_session(conversation, arguments)
        app.status.set(title=title)
        app.say(f"Session renamed to: {title}")


COPY_USAGE = "Say which answer to copy: /copy for the last one, /copy 2 for the one before it, and so on."


class Copy(SlashCommand):
    name, description = "copy", "Copy the last answer to the clipboard as Markdown [N: the Nth-latest]"

    async def run(self, app: AppHost, arguments: str) -> None:
        from agentui.frontends.tui.clipboard import copy_text

        conversation = app.conversation
        answers = (
            [m.text for m in conversation.messages if m.role == "assistant" and m.text.strip()] if conversation else []
        )
        if not answers:
            app.say("There is no answer to copy yet.", "warning")
            return
        if arguments and not (arguments.isdigit() and int(arguments) >= 1):
            app.say(COPY_USAGE, "warning")
            return
        which = int(arguments or 1)
        if which > len(answers):
            count = len(answers)
            app.say(f"There {'is' if count == 1 else 'are'} only {count} answer{'' if count == 1 else 's'} to copy.")
            return
        what = "the last answer" if which == 1 else f"answer {which} from the end"
        app.say(copy_text(app, what, answers[-which]).replace("Copied ", "Copied to the clipboard: ", 1))


class AddDir(SlashCommand):
    name, description = "add-dir", "Add a working directory for this session (or remember it) <path>"

    async def run(self, app: AppHost, arguments: str) -> None:
        from agentui.api import DirectoryError, directory_to_add
        from agentui.frontends.tui.screens.add_dir import AddDirScreen

        if (conversation := app.conversation) is None:
            app.say("There is no session to add a directory to yet.", "warning")
            return
        try:
            directory = directory_to_add(conversation, arguments)
        except DirectoryError as exc:
            app.say(str(exc), "warning")
            return
        shown = shown_path(directory, conversation.root)

        def chosen(answer: str | None) -> None:
            from agentui.api import AgentuiError, DirectoryError, add_directory

            app.prompt_input.focus()
            if answer not in ("session", "remember") or app.conversation is not conversation:
                app.say(f"Did not add {shown} as a working directory.")
                return
            try:
                saved = add_directory(conversation, directory, remember=answer == "remember")
            except DirectoryError as exc:  # (checked again as the person answers: it changed meanwhile)
                app.say(str(exc), "warning")
                return
            except (OSError, AgentuiError) as exc:  # (a settings file that cannot be read is not rewritten)
                app.say(f"Added {shown} as a working directory, but it could not be remembered: {exc}", "warning")
                return
            where = f"and saved to {shown_path(saved, conversation.root)}" if saved else "for this session"
            app.say(f"Added {shown} as a working directory {where} (/permissions shows the rules).")

        app.push_screen(AddDirScreen(str(directory)), chosen)
