"""The user message a prompt becomes: any images, the prompt's text, what it names with `@`, then the notes for the
model (a UserPromptSubmit hook's context, plan mode's reminder, background commands' ends)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Protocol

from agentui.core.events import EventBus
from agentui.core.extend.command_prompt import run_shell_parts
from agentui.core.loop.agent_config import AgentConfig
from agentui.core.loop.dispatch import ToolDispatcher
from agentui.core.loop.services import Services
from agentui.core.messages import ContentBlock, ImageBlock, Message, TextBlock, ToolUseBlock
from agentui.core.tools.base import ToolResult


class Prompted(Protocol):
    """The agent a prompt is for."""

    services: Services
    config: AgentConfig
    session_id: str
    bus: EventBus

    @property
    def lineage(self) -> object | None: ...

    @property
    def messages(self) -> list[Message]: ...

    _dispatcher: ToolDispatcher
    """(The agent's own: a custom command's shell commands are checked and asked as its model's calls are.)"""

    def warn(self, message: str) -> None: ...


async def prompt_message(agent: Prompted, prompt: str, images: Sequence[ImageBlock], *, first: bool) -> Message:
    """Raises PromptBlocked when a hook or an input filter refuses the prompt. Images come before the text that
    speaks of them, as the Messages API advises; what the prompt names with `@` after it, so the prompt stays the
    first text, which titles and lists of prompts read."""
    command = agent.services.command() if agent.lineage is None else None
    if command is not None and command.prompt == prompt and "!" in prompt:  # (a custom command's shell commands)
        prompt = await run_shell_parts(prompt, lambda line: unseen_bash(agent, command.name, line))
    hooks = agent.services.hooks
    if hooks is not None and hooks.input_filters and agent.lineage is None:  # (the person's prompts only)
        from agentui.core.extend.input_filters import check_prompt

        await check_prompt(hooks, agent.bus.emit, agent.session_id, prompt)
    start = ("resume" if agent.config.resumed else "startup") if first else None  # (SessionStart's source)
    # (a sub-agent's prompt is the model's, not the person's: Claude Code fires SubagentStart for it instead)
    context = (
        await hooks.before_prompt(agent.session_id, prompt, start=start) if hooks and agent.lineage is None else []
    )
    told = agent.services.notices()  # (background ends since the last tool result)
    notes = [TextBlock(text=text) for text in [*context, *agent.services.reminders(), *([told] if told else [])]]
    mentioned: list[TextBlock | ImageBlock] = []
    if agent.lineage is None and "@" in prompt:  # (the person's prompt; a sub-agent's is the model's words)
        from agentui.core.loop.mentions import attach_mentions
        from agentui.core.loop.resource_mentions import attach_resources

        attached = await attach_mentions(prompt, agent.config.cwd, agent.services.tools, agent.services.gate)
        await attach_resources(prompt, agent.config.cwd, agent.services.tools, agent.services.gate, attached)
        for notice in attached.notices:
            agent.warn(notice)
        mentioned = attached.blocks
    content: list[ContentBlock] = [*images, TextBlock(text=prompt), *mentioned, *notes]
    listed = agent.services.listings(agent.messages) if agent.lineage is None else []  # (a sub-agent lists none)
    return Message(role="user", content=content, attachments=tuple(listed))


async def unseen_bash(agent: Prompted, name: str, command: str) -> ToolResult:
    """A custom command's or a skill's shell command, run as Bash after the check (and question) a model's call
    would get."""
    call = ToolUseBlock(id=f"toolu_command_{uuid.uuid4().hex[:20]}", name="Bash",
                        input={"command": command, "description": f"/{name}"})  # fmt: skip
    return await agent._dispatcher.run_unseen(call)
