"""What a conversation lists to the model of its sub-agent types and skills, as Claude Code's listing attachments:
all of them with the first prompt, then only what changed since the history last listed them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentui.core.extend.skills import Skill
from agentui.core.extend.subagents import Task
from agentui.core.messages import Message
from agentui.core.session.attachments import agent_line, agent_listing, skill_listing, told
from agentui.core.tools.base import ToolRegistry


class Listings:
    """The listings a prompt brings: the agent types of the Agent tool (none when it is not offered) and the
    skills."""

    def __init__(self, tools: ToolRegistry, skills: Sequence[Skill]) -> None:
        self.tools = tools
        self.skills = {skill.name: skill.description for skill in skills}

    def __call__(self, history: Sequence[Message]) -> list[dict[str, Any]]:
        agents_told, skills_told = told(attachment for message in history for attachment in message.attachments)
        offered = "Skill" in self.tools.names()  # (the listing is for the Skill tool: without it, none)
        made = [skill_listing(self.skills, skills_told) if offered else None]
        if isinstance(task := self.tools.get(Task.name), Task):  # (without the Agent tool, nothing is said of agents)
            types = {name: agent_line(name, kind.description, kind.tools) for name, kind in task.types.items()}
            made.insert(0, agent_listing(types, agents_told))
        return [attachment for attachment in made if attachment is not None]
