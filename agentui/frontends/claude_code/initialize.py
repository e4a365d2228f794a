"""What `initialize` answers an Agent SDK program, in Claude Code's shape and order: the slash commands a message may
start with, the agent types, the output styles, the models to pick from, the account, and the process id (the
TypeScript SDK's `supportedCommands()`, `supportedAgents()`, `supportedModels()` and `accountInfo()` read it)."""

from __future__ import annotations

import os
from typing import Any

from agentui.api import (
    Conversation,
    Settings,
    agent_types,
    load_custom_commands,
    load_skills,
    model_options,
    resolved_model,
    style_in_use,
    style_names,
)
from agentui.frontends.claude_code.stream import key_source

COMPACT = {
    "name": "compact",
    "description": "Free up context by summarizing the conversation so far",
    "argumentHint": "<optional custom summarization instructions>",
}
"""The built-in command agentui answers over the protocol, described as Claude Code describes its own."""


def skill_commands(conversation: Conversation) -> list[dict[str, str]]:
    """The skills as commands the person may type, each with its description, as Claude Code lists them."""
    skills = load_skills(conversation.root, conversation.env)
    return [{"name": skill.name, "description": skill.description, "argumentHint": ""} for skill in skills]


def initialize_response(conversation: Conversation, settings: Settings) -> dict[str, Any]:
    commands = [COMPACT]
    for name, command in sorted(load_custom_commands(conversation.root, conversation.env).items()):
        commands.append({"name": name, "description": command.description, "argumentHint": command.argument_hint})
    commands += skill_commands(conversation)
    agents = []
    for kind in agent_types(conversation):
        agents.append({"name": kind.name, "description": kind.description})
        if kind.model and kind.model != "inherit":
            agents[-1]["model"] = kind.model
    models = [
        {"value": option.name, "resolvedModel": resolved_model(conversation, option.name),
         "displayName": option.name, "description": option.meaning}
        for option in model_options(conversation) if option.pickable
    ]  # fmt: skip
    provider = "firstParty" if settings.provider == "anthropic" else settings.provider
    return {
        "commands": commands,
        "agents": agents,
        "output_style": style_in_use(conversation),
        "available_output_styles": style_names(conversation),
        "models": models,
        "account": {"tokenSource": "none", "apiKeySource": key_source(settings), "apiProvider": provider},
        "pid": os.getpid(),
    }
