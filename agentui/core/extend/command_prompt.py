"""What a custom command brings to the run its prompt starts, as Claude Code 2.1.197's: its shell commands
(`!`command`` inline, ```! blocks) run first, each checked (and asked) as the model's Bash call would be, their output
in their place; one refused or failing stops the command in one sentence before the model is asked anything. And its
`model` answers that run (the conversation's own model again after it)."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from agentui.core.extend.hooks import PromptBlocked
from agentui.core.thinking import thinking_for

if TYPE_CHECKING:
    from agentui.core.thinking import Configured
    from agentui.core.tools.base import ToolResult

SHELL_BLOCK = re.compile(r"```!\s*\n?([\s\S]*?)\n?```")
SHELL_INLINE = re.compile(r"(?:(?<=\s)|^)!`([^`]+)`", re.M)
_CODE_SPAN = re.compile(r"`[^`\n]+`")


@dataclass(frozen=True)
class CommandPrompt:
    """The custom command a prompt was expanded from."""

    name: str
    prompt: str
    """The expanded prompt, as sent: the command's own only while it is this text."""
    model: str = ""
    """Its front matter's `model` ("" or "inherit": the conversation's)."""


class CommandRefused(PromptBlocked):
    """A custom command's shell command was refused or failed: the command is not run; the message says why."""

    def said(self) -> tuple[str, str]:
        return str(self), "command_refused"


def shell_parts(text: str) -> list[tuple[str, str]]:
    """Each shell command of a command's prompt: (as written, the command). An inline one is found outside other
    code spans only (`` `a!`b` `` is code, not a command), as Claude Code finds them."""
    found = [(m.group(0), m.group(1).strip()) for m in SHELL_BLOCK.finditer(text)]
    if "!`" in text:

        def blanked(span: re.Match[str]) -> str:
            before = text[span.start() - 1] if span.start() else ""
            return span.group(0) if before in ("!", "`") else "`" + " " * (len(span.group(0)) - 2) + "`"

        found += [(m.group(0), m.group(1).strip()) for m in SHELL_INLINE.finditer(_CODE_SPAN.sub(blanked, text))]
    return [(written, command) for written, command in found if command]


async def run_shell_parts(text: str, run: Callable[[str], Awaitable[ToolResult]]) -> str:
    """`text` with each shell command replaced by its output; `run` checks, asks and runs one as Bash. Raises
    CommandRefused (Claude Code's words) for the first refused or failing, one at a time (each may ask)."""
    for written, command in shell_parts(text):
        result = await run(command)
        content = result.content
        output = content if isinstance(content, str) else "\n".join(getattr(b, "text", "") for b in content)
        if result.denied:
            raise CommandRefused(f'Shell command permission check failed for pattern "{written}": permission denied.')
        if result.is_error:
            raise CommandRefused(f'Shell command failed for pattern "{written}": {output.strip()}')
        text = text.replace(written, output.strip(), 1)
    return text


class Holding(Protocol):
    """What holds the custom command the next prompt was expanded from (the project)."""

    next_command: CommandPrompt | None


async def expand_shell(text: str, run: Callable[[str], Awaitable[ToolResult]]) -> tuple[str, str | None]:
    """`text` with its shell commands' output in place, or as it is with the sentence saying which was refused or
    failed (for a caller that cannot catch the core's errors: a tool)."""
    try:
        return await run_shell_parts(text, run), None
    except CommandRefused as exc:
        return text, str(exc)


def take_command(project: Holding) -> CommandPrompt | None:
    """The custom command the next prompt was expanded from, once."""
    found, project.next_command = project.next_command, None
    return found


class Prompting(Protocol):
    """A conversation, as far as a prompt's run goes."""

    launch: Any
    env: Mapping[str, str] | None

    @property
    def agent(self) -> Configured: ...

    @property
    def project(self) -> Holding: ...


@contextmanager
def for_prompt(conversation: Prompting, text: str) -> Iterator[None]:
    """While `text`'s run goes on: the thinking its words ask for (`ultrathink`), and the model the custom command it
    came from names; then the conversation's own model again, unless it was changed meanwhile."""
    command = conversation.project.next_command
    with thinking_for(conversation.agent, text):
        if command is None or command.prompt != text or command.model.strip() in ("", "inherit"):
            yield
            return
        agent = conversation.agent
        before, during = agent.config.model, _resolved(conversation, command.model)
        agent.config = agent.config.model_copy(update={"model": during})
        try:
            yield
        finally:
            if agent.config.model == during:
                agent.config = agent.config.model_copy(update={"model": before})


def _resolved(conversation: Prompting, typed: str) -> str:
    """The model a command's `model` names (Claude Code's aliases resolved as /model resolves them)."""
    import os

    from agentui.core.model_aliases import resolve

    settings = conversation.launch.settings
    env = os.environ if conversation.env is None else conversation.env
    return resolve(typed, settings.provider, env, settings.default_model or settings.model).model
