"""MCP prompts as slash commands, as Claude Code offers them: `/mcp__<server>__<prompt> words`, the words given to the
prompt's declared arguments in order (split at spaces; a missing required one is refused with the usage), the
prompt's messages sent as the person's prompt (their text, images and resources) after the command as typed."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentui.core.errors import AgentuiError
from agentui.core.extend.mcp.client import McpRequestError, McpServer

if TYPE_CHECKING:
    from agentui.core.conversation import Conversation
    from agentui.core.messages import ImageBlock

PREFIX = "mcp__"


class McpPromptError(AgentuiError):
    """An MCP prompt command that could not be run, in one sentence."""


@dataclass(frozen=True)
class McpPromptCommand:
    name: str
    """`mcp__server__prompt`, as typed after the slash."""
    description: str
    arguments: tuple[str, ...]
    """The names of its arguments, in order (the usage's hint)."""


def command_name(server: str, prompt: str) -> str:
    """Claude Code's name: the server's name with anything but letters, digits, `_` and `-` made `_`."""
    return f"{PREFIX}{re.sub(r'[^a-zA-Z0-9_-]', '_', server)}__{prompt}"


def prompt_commands(servers: Sequence[McpServer]) -> list[McpPromptCommand]:
    """The prompts of the connected servers, as commands, in the servers' order."""
    return [
        McpPromptCommand(
            command_name(server.name, prompt.name),
            prompt.description,
            tuple(argument.name for argument in prompt.arguments),
        )
        for server in servers
        if server.state == "connected"
        for prompt in server.prompts
    ]


def mcp_commands(conversation: Conversation) -> list[McpPromptCommand]:
    """The conversation's MCP prompt commands as they are now (for /help and completion)."""
    hub = conversation.servers.mcp
    return prompt_commands(hub.servers) if hub is not None else []


async def expand_mcp_prompt(conversation: Conversation, text: str) -> tuple[str, list[ImageBlock]] | None:
    """`/mcp__server__prompt words`: the prompt's text and images, to send as the person's prompt, once the command
    as typed is recorded before it (as a custom command's is); None when `text` names no MCP prompt. Raises
    McpPromptError with the sentence when an argument is missing or the server fails."""
    from agentui.core.messages import command_record

    found = _find(conversation, text)
    if found is None:
        return None
    server, prompt, words, name, typed = found
    names = [argument.name for argument in prompt.arguments]
    missing = [argument.name for at, argument in enumerate(prompt.arguments) if argument.required and at >= len(words)]
    if missing:
        noun = "argument" if len(missing) == 1 else "arguments"
        usage = " ".join([f"/{name}", *names])
        raise McpPromptError(f"Missing required {noun}: {', '.join(missing)}. Usage: {usage}")
    arguments = dict(zip(names, words, strict=False))  # (words past the arguments are dropped, as in Claude Code)
    try:
        answer = await server.request("prompts/get", lambda session: session.get_prompt(prompt.name, arguments))
    except McpRequestError as exc:
        raise McpPromptError(str(exc)) from None
    texts, images = _content(server.name, [message.content for message in answer.messages])
    conversation.agent.add_context(command_record(name, typed))
    return "\n\n".join(texts), images


def _find(conversation: Conversation, text: str) -> tuple[McpServer, Any, list[str], str, str] | None:
    stripped = text.strip()
    if not stripped.startswith(f"/{PREFIX}"):
        return None
    name, _, typed = stripped[1:].partition(" ")
    hub = conversation.servers.mcp
    for server in hub.servers if hub is not None else []:
        for prompt in server.prompts if server.state == "connected" else []:
            if command_name(server.name, prompt.name) == name:
                return server, prompt, typed.split(), name, typed.strip()
    return None


def _content(server: str, blocks: list[Any]) -> tuple[list[str], list[ImageBlock]]:
    """The messages' content as Claude Code turns it into a prompt: text as it is, images as images, a resource's
    text after where it is from, a link as its name and address."""
    from agentui.core.messages import ImageBlock

    texts: list[str] = []
    images: list[ImageBlock] = []
    for block in blocks:
        kind = getattr(block, "type", "")
        if kind == "text":
            texts.append(block.text)
        elif kind == "image":
            images.append(ImageBlock(source={"type": "base64", "media_type": block.mimeType, "data": block.data}))
        elif kind == "resource":
            text = getattr(block.resource, "text", None)
            if text is not None:
                texts.append(f"[Resource from {server} at {block.resource.uri}] {text}")
        elif kind == "resource_link":
            said = f"[Resource link: {block.name}] {block.uri}"
            texts.append(said + (f" ({block.description})" if getattr(block, "description", None) else ""))
    return texts, images
