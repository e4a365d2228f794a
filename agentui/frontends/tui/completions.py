"""What the prompt offers to complete: `/` command names (built-in and custom), `@` the project's files."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from agentui.frontends.tui.slash_commands import COMMANDS
from agentui.frontends.tui.widgets.prompt_input import Completion

if TYPE_CHECKING:
    from agentui.api import Conversation, CustomCommand, McpPromptCommand


def completions(
    before_cursor: str, custom: Mapping[str, CustomCommand], conversation: Conversation | None
) -> list[Completion]:
    if before_cursor.startswith("/") and " " not in before_cursor:
        typed = before_cursor[1:].lower()
        names = {
            **_skills(conversation),
            **{name: command.description for name, command in COMMANDS.items()},
            **{name: _custom(command) for name, command in custom.items()},
            **{command.name: f"{command.description or command.name} (MCP)" for command in _mcp(conversation)},
        }
        return [
            Completion(f"/{name}", description) for name, description in sorted(names.items()) if name.startswith(typed)
        ]
    # (after a space the word is done: a completion just taken must not open the list again for the next Enter)
    word = "" if before_cursor[-1:].isspace() or not before_cursor.split() else before_cursor.split()[-1]
    if word.startswith("@") and conversation is not None:
        return [Completion(f"@{path}") for path in conversation.complete_path(word[1:])]
    return []


def _skills(conversation: Conversation | None) -> dict[str, str]:
    """The skills, which a person may type as commands too (a command of the same name wins)."""
    if conversation is None:
        return {}
    from agentui.api import load_skills

    return {skill.name: f"{skill.description} (skill)" for skill in load_skills(conversation.root, conversation.env)}


def _custom(command: CustomCommand) -> str:
    """A custom command's line: its `argument-hint` (what to type after it), then what it does."""
    hint = f"{command.argument_hint} " if command.argument_hint else ""
    return hint + (command.description or "custom command")


def _mcp(conversation: Conversation | None) -> list[McpPromptCommand]:
    if conversation is None:
        return []
    from agentui.api import mcp_commands

    return mcp_commands(conversation)
