"""The instructions at the head of the system prompt: agentui's own or a launch's (--system-prompt), what is appended
after them (--append-system-prompt, and how to answer with --json-schema), then the memory files and the skills; and
replacing them in an open conversation, as an Agent SDK's `initialize` asks."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agentui.core.context.prompt import SystemPrompt, build_system_prompt

if TYPE_CHECKING:
    from agentui.core.context.memory import MemoryFile
    from agentui.core.extend.skills import Skill
    from agentui.core.loop.agent_config import AgentConfig
    from agentui.core.loop.services import Services


class Launched(Protocol):
    @property
    def system_prompt(self) -> str | None: ...

    @property
    def append_system_prompt(self) -> str | None: ...

    @property
    def json_schema(self) -> dict[str, Any] | None: ...


class Configured(Protocol):
    config: AgentConfig

    @property
    def services(self) -> Services: ...


class Instructed(Protocol):
    """A conversation, as far as its instructions go."""

    launch: Any
    env: Mapping[str, str] | None

    @property
    def agent(self) -> Configured: ...

    @property
    def root(self) -> Path: ...


def system_prompt(launch: Launched, root: Path, memory: Sequence[MemoryFile], skills: Sequence[Skill]) -> SystemPrompt:
    """The system prompt of a launch: its instructions, what it appends, then the memory files and the skills."""
    return build_system_prompt(root, memory, skills=skills, base=launch.system_prompt, append=_appended(launch))


def _appended(launch: Launched) -> str | None:
    """What goes at the end of the instructions: --append-system-prompt, and how to answer with --json-schema."""
    if launch.json_schema is None:
        return launch.append_system_prompt
    from agentui.core.tools.structured_output import INSTRUCTIONS

    return "\n\n".join(part for part in (launch.append_system_prompt, INSTRUCTIONS) if part)


def set_instructions(conversation: Instructed, system: str | None, append: str | None) -> None:
    """The system prompt from the next request on, with `system` in place of the launch's instructions (None:
    agentui's own) and `append` after them (an SDK's initialize says these, not the command line)."""
    from agentui.core.extend.skills import load_skills

    launch = dataclasses.replace(conversation.launch, system_prompt=system, append_system_prompt=append)
    agent = conversation.agent
    memory = agent.services.memory
    skills = load_skills(conversation.root, conversation.env)
    prompt = system_prompt(launch, conversation.root, memory.files if memory else [], skills)
    conversation.launch = launch
    agent.config = agent.config.model_copy(update={"system_prompt": prompt.stable})
