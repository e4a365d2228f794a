"""The built-in slash commands, one object each, and `run_command`, which runs a typed `/name args` (a built-in, a
custom command from `.claude/commands`, or a sentence saying there is none)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from agentui.frontends.tui.commands_agents import Agents
from agentui.frontends.tui.commands_config import Config
from agentui.frontends.tui.commands_context import Context
from agentui.frontends.tui.commands_mcp import Mcp
from agentui.frontends.tui.commands_memory import Memory
from agentui.frontends.tui.commands_model import Model
from agentui.frontends.tui.commands_output_style import OutputStyles
from agentui.frontends.tui.commands_plugin import Plugin
from agentui.frontends.tui.commands_profile import ProfileCommand
from agentui.frontends.tui.commands_session import AddDir, Copy, Rename
from agentui.frontends.tui.commands_skills import Skills
from agentui.frontends.tui.commands_status import Doctor, Status
from agentui.frontends.tui.commands_tree import TreeCommand
from agentui.frontends.tui.history_view import INIT_PROMPT
from agentui.frontends.tui.slash_command import (
    SlashCommand,
    idle_conversation,
    no_model_help,
    shown_path,
)

if TYPE_CHECKING:
    from agentui.frontends.tui.host import AppHost


class Help(SlashCommand):
    name, description = "help", "Show the keys and commands"

    async def run(self, app: AppHost, arguments: str) -> None:
        from agentui.frontends.tui.keys_help import KEYS
        from agentui.frontends.tui.widgets.help_view import HelpView

        commands = [(f"/{name}", command.description) for name, command in COMMANDS.items()]
        custom = [(f"/{name}", c.description or "your command") for name, c in sorted(app.custom_commands.items())]
        app.transcript.add(HelpView(KEYS, [*commands, *custom, *mcp_prompt_commands(app)]))


class Clear(SlashCommand):
    name, description = "clear", "Start a new session (the current one stays saved)"

    async def run(self, app: AppHost, arguments: str) -> None:
        from agentui.api import SessionRequest

        app.transcript.clear()
        app.status.set(title="", tokens_in=0, tokens_out=0, cost_usd=0.0, context_percent=None)
        if app.launch is not None:
            await app.open_conversation(SessionRequest())
            app.say("New session started; the previous one is saved (/resume brings it back).")


class Compact(SlashCommand):
    name, description = "compact", "Summarise the conversation so far to free context [instructions]"

    async def run(self, app: AppHost, arguments: str) -> None:
        if (conversation := idle_conversation(app, self.name)) is None:
            return
        app.run_worker(conversation.compact(arguments or None), group="run", exit_on_error=False)


class Resume(SlashCommand):
    name, description = "resume", "Resume an earlier session of this project"

    async def run(self, app: AppHost, arguments: str) -> None:
        from agentui.api import SessionRequest

        if arguments:
            await app.open_conversation(SessionRequest(resume=arguments))
        else:
            from agentui.frontends.tui.screens.picker import pick_session

            pick_session(app, app.conversation.root if app.conversation else Path.cwd(), typed_ahead=True)


class Rewind(SlashCommand):
    name, description = "rewind", "Go back to before an earlier prompt: the files, the conversation, or both"

    async def run(self, app: AppHost, arguments: str) -> None:
        from agentui.api import RewindError, RewindRequest
        from agentui.frontends.tui.screens.rewind import RewindPicker

        if (conversation := idle_conversation(app, self.name)) is None:
            return
        if not (points := conversation.prompts()):
            app.say("There is no earlier prompt in this conversation to go back to.")
            return

        def chosen(choice: RewindRequest | None) -> None:
            if choice is None or app.conversation is not conversation:
                return
            try:
                rewound = conversation.rewind(
                    choice.to, code=choice.code, conversation=choice.conversation, overwrite=choice.overwrite
                )
            except RewindError as exc:
                app.say(str(exc), "error")
                return
            if choice.conversation:
                app.view.show_rewound(conversation.messages, rewound.tool_details)
            said = f"Rewound to before “{rewound.prompt.splitlines()[0][:80]}”"
            if choice.code:
                count = len(rewound.changes)
                said += f": {count} file{'' if count == 1 else 's'} restored"
            if choice.conversation:
                said += "; the conversation goes on from there (the prompt is back in the input to edit)"
                app.prompt_input.text = rewound.prompt
                app.prompt_input.move_cursor(app.prompt_input.document.end)
            app.prompt_input.focus()  # (the keys go back to the prompt, whatever the picker left focused)
            app.say(" ".join([said + ".", *rewound.notes]))

        app.push_screen(RewindPicker(points, conversation.changes_since, conversation.root), chosen)


class Tasks(SlashCommand):
    name, description = "tasks", "Show the background shells and agents: their status and output, and stop one"

    async def run(self, app: AppHost, arguments: str) -> None:
        from agentui.api import background_agents
        from agentui.frontends.tui.screens.background import BackgroundTasksScreen

        conversation = app.conversation
        if conversation is None or not (conversation.background_shells() or background_agents(conversation)):
            app.say(
                "No background shells or agents. The model starts one with Bash's or Agent's run_in_background; "
                "Ctrl+B sends a running command there."
            )
            return
        app.push_screen(BackgroundTasksScreen(conversation))


TRY_USAGE = (
    "Say how many ways (2 to 9) and what to try: /try 3 fix the failing test (--models a,b,c for a model each; "
    "--evaluate judge, tokens, first or elaborate)."
)


class Try(SlashCommand):
    name, description = (
        "try",
        "Try N ways at once, each in its own worktree, and keep the best: N [--models a,b] prompt",
    )

    async def run(self, app: AppHost, arguments: str) -> None:
        from agentui.api import AttemptConfig, ConfigError, attempt_config
        from agentui.frontends.tui.screens.attempts import AttemptsScreen

        if (conversation := idle_conversation(app, self.name)) is None:
            app.say("/try needs a model; " + no_model_help(app), "warning")
            return
        words = arguments.split()
        count = int(words.pop(0)) if words and words[0].isdigit() else 0
        models: list[str] = []
        evaluate = "judge"
        while words and words[0] in ("--models", "--evaluate") and len(words) > 1:
            flag, value = words.pop(0), words.pop(0)
            if flag == "--models":
                models = [m for m in value.split(",") if m]
            else:
                evaluate = value
        prompt = " ".join(words)
        count = count or len(models)
        if not 2 <= count <= 9 or not prompt:
            app.say(TRY_USAGE, "warning")
            return
        if evaluate not in ("judge", "tokens", "first", "elaborate"):
            app.say(f"There is no evaluation {evaluate!r}; choose judge, tokens, first or elaborate.", "warning")
            return
        try:
            configs = [attempt_config(models[n % len(models)]) if models else AttemptConfig() for n in range(count)]
        except ConfigError as exc:
            app.say(str(exc), "warning")
            return

        def done(said: str | None) -> None:
            if said:
                app.say(said)

        app.push_screen(AttemptsScreen(conversation, prompt, configs, evaluate), done)


class Cost(SlashCommand):
    name, description = "cost", "Show the tokens used and what they cost"

    async def run(self, app: AppHost, arguments: str) -> None:
        from agentui.api import shown_cost

        if app.conversation is None:
            return
        usage, cost = app.conversation.usage
        app.say(
            f"This session: {usage.input_tokens:,} input, {usage.cache_creation_input_tokens:,} cache write, "
            f"{usage.cache_read_input_tokens:,} cache read, {usage.output_tokens:,} output tokens; "
            f"about {shown_cost(cost)} at list prices."
        )
        by_model = app.conversation.usage_by_model
        if len(by_model) > 1:
            app.say(
                "By model: "
                + "; ".join(
                    f"{model} {spend.tokens:,} tokens, {shown_cost(spend.cost_usd)}"
                    for model, spend in by_model.items()
                )
                + "."
            )


class Permissions(SlashCommand):
    name, description = "permissions", "Show the permission rules and mode, or add one: allow, deny or ask <rule>"

    async def run(self, app: AppHost, arguments: str) -> None:
        if (conversation := app.conversation) is None:
            return
        behavior, _, rule = arguments.partition(" ")
        if behavior in ("allow", "deny", "ask") and rule.strip():
            try:
                path = conversation.add_rule(behavior, rule.strip())  # type: ignore[arg-type]
            except ValueError as exc:  # (RuleError: the rule does not parse)
                app.say(f"{exc}.", "error")
                return
            app.say(f"Added {behavior} rule {rule.strip()} (saved to {path}).")
            return
        lines = [f"Mode: {conversation.mode} (Shift+Tab cycles)."]
        for kind in ("deny", "ask", "allow"):
            rules = [f"{text} [{source}]" for behavior_, text, source in conversation.rules() if behavior_ == kind]
            lines.append(f"{kind}: " + (", ".join(rules) if rules else "none"))
        lines.append("Add one with /permissions allow|deny|ask <rule>, e.g. /permissions allow Bash(npm test:*).")
        app.say("\n".join(lines))


class Theme(SlashCommand):
    name, description = "theme", "Switch the theme [name]"

    async def run(self, app: AppHost, arguments: str) -> None:
        if not arguments:
            app.say("Themes: " + ", ".join(sorted(app.available_themes)) + f" (now {app.theme}).")
            return
        if arguments not in app.available_themes:
            app.say(f"There is no theme {arguments!r}; /theme lists them.", "warning")
            return
        app.theme = arguments
        from agentui.api import ConfigError, save_config_value

        try:
            save_config_value("theme", arguments, app.env)
        except (ConfigError, OSError) as exc:
            app.say(f"Theme set, but it could not be remembered: {exc}", "warning")
            return
        app.say(f"Theme set to {arguments}.")


class Vim(SlashCommand):
    name, description = "vim", "Switch the prompt between vim and normal editing modes (remembered)"

    async def run(self, app: AppHost, arguments: str) -> None:
        from agentui.api import EditorModeError, save_editor_mode

        vim = app.prompt_input.vim_keys is None
        app.prompt_input.set_editor_mode(vim)
        mode: Literal["vim", "normal"] = "vim" if vim else "normal"
        how = "Esc for NORMAL mode, i for INSERT mode" if vim else "the usual keys"
        try:
            save_editor_mode(mode, app.env)
        except EditorModeError as exc:
            app.say(f"Editor mode set to {mode} ({how}), for this run only: {exc}", "warning")
            return
        app.say(f"Editor mode set to {mode} ({how}).")


class Init(SlashCommand):
    name, description = "init", "Ask the model to write a CLAUDE.md for this project"

    async def run(self, app: AppHost, arguments: str) -> None:
        app.send(INIT_PROMPT + (f"\n\n{arguments}" if arguments else ""))


class Export(SlashCommand):
    name, description = "export", "Save the conversation as Markdown [file]"

    async def run(self, app: AppHost, arguments: str) -> None:
        if app.conversation is None:
            return
        try:
            path = app.conversation.export(arguments)
        except ValueError as exc:  # nothing to export
            app.say(str(exc), "warning")
        except OSError as exc:
            app.say(f"The conversation could not be exported ({exc.strerror or exc}).", "error")
        else:
            app.say(f"Exported to {path}.")


class Quit(SlashCommand):
    name, description = "quit", "Quit agentui"

    async def run(self, app: AppHost, arguments: str) -> None:
        await app.quit_now()


COMMANDS: dict[str, SlashCommand] = {
    command.name: command()
    for command in (
        Help,
        Clear,
        Compact,
        Context,
        Memory,
        Mcp,
        Resume,
        Rename,
        Rewind,
        TreeCommand,
        Tasks,
        Try,
        Model,
        Agents,
        Skills,
        OutputStyles,
        Plugin,
        AddDir,
        Copy,
        Cost,
        Status,
        ProfileCommand,
        Doctor,
        Permissions,
        Theme,
        Config,
        Vim,
        Init,
        Export,
        Quit,
    )
}


async def run_command(app: AppHost, text: str) -> None:
    name, _, arguments = text[1:].partition(" ")
    arguments = arguments.strip()
    if (command := COMMANDS.get(name)) is not None:
        await command.run(app, arguments)
    elif app.conversation is not None and await run_mcp_prompt(app, text):
        pass
    elif app.conversation is not None and (expanded := app.conversation.expand_command(text)) is not None:
        prompt, notices = expanded
        for notice in notices:
            app.say(notice, "warning")
        app.send(prompt)
    else:
        app.say(f"There is no command /{name}; /help lists them.", "warning")


def mcp_prompt_commands(app: AppHost) -> list[tuple[str, str]]:
    """The MCP servers' prompts, as /help and completion list them: `/mcp__server__prompt`, what it does."""
    if app.conversation is None:
        return []
    from agentui.api import mcp_commands

    return [
        (f"/{command.name}", f"{command.description or command.name} (MCP)")
        for command in mcp_commands(app.conversation)
    ]


async def run_mcp_prompt(app: AppHost, text: str) -> bool:
    """`/mcp__server__prompt words`: the server's prompt sent as the person's; False if no server has that prompt."""
    from agentui.api import McpPromptError, expand_mcp_prompt

    if app.conversation is None or not text.startswith("/mcp__"):
        return False
    try:
        expanded = await expand_mcp_prompt(app.conversation, text)
    except McpPromptError as exc:
        app.say(str(exc), "error")
        return True
    if expanded is None:
        return False
    prompt, images = expanded
    app.send(prompt, images)
    return True


def remember(app: AppHost, note: str) -> None:
    """`#note`: a line for the project's memory file."""
    if not note:
        return
    from agentui.api import remember_note

    root = app.conversation.root if app.conversation else (app.launch.cwd if app.launch else Path.cwd())
    try:
        path = remember_note(note, root, app.conversation)
    except OSError as exc:
        app.say(f"CLAUDE.md could not be written ({exc.strerror or exc}).", "error")
        return
    app.say(f"Added to {shown_path(path, root)}: {note}")
