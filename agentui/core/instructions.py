"""The instructions at the head of the system prompt: agentui's own (as the output style changes them) or a launch's
(--system-prompt), what is appended after them (--append-system-prompt, and how to answer with --json-schema), then
the memory files; and replacing them in an open conversation, as an Agent SDK's `initialize` or /output-style asks."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agentui.core.context.prompt import SystemPrompt, build_system_prompt

if TYPE_CHECKING:
    from agentui.core.context.memory import MemoryFile
    from agentui.core.extend.output_styles import OutputStyle
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


class Trusting(Protocol):
    @property
    def trusted(self) -> bool: ...


class Instructed(Protocol):
    """A conversation, as far as its instructions go."""

    launch: Any
    env: Mapping[str, str] | None

    @property
    def project(self) -> Trusting: ...

    @property
    def agent(self) -> Configured: ...

    @property
    def root(self) -> Path: ...


def system_prompt(
    launch: Launched, root: Path, memory: Sequence[MemoryFile], style: OutputStyle | None, standing: str = ""
) -> SystemPrompt:
    """The system prompt of a launch: its instructions (as the output `style` changes them), what it appends, then
    the memory files and the project's `standing` instructions."""
    return build_system_prompt(
        root, memory, style=style, base=launch.system_prompt, append=_appended(launch), standing=standing
    )


def _appended(launch: Launched) -> str | None:
    """What goes at the end of the instructions: --append-system-prompt, and how to answer with --json-schema."""
    if launch.json_schema is None:
        return launch.append_system_prompt
    from agentui.core.tools.structured_output import INSTRUCTIONS

    return "\n\n".join(part for part in (launch.append_system_prompt, INSTRUCTIONS) if part)


def set_instructions(conversation: Instructed, system: str | None, append: str | None) -> None:
    """The system prompt from the next request on, with `system` in place of the launch's instructions (None:
    agentui's own) and `append` after them (an SDK's initialize says these, not the command line)."""
    from agentui.core.extend.output_styles import output_style

    launch = dataclasses.replace(conversation.launch, system_prompt=system, append_system_prompt=append)
    _instruct(conversation, launch, output_style(conversation.root, conversation.env, conversation.project.trusted))


def _instruct(conversation: Instructed, launch: Any, style: OutputStyle | None) -> None:
    """The system prompt of `launch` with `style`, from the next request on."""
    from agentui.core.profile import load_profile

    agent = conversation.agent
    memory = agent.services.memory
    standing = load_profile(conversation.root, conversation.env).instructions
    prompt = system_prompt(launch, conversation.root, memory.files if memory else [], style, standing)
    conversation.launch = launch
    agent.config = agent.config.model_copy(update={"system_prompt": prompt.stable})


def set_standing_instructions(conversation: Instructed, text: str) -> str:
    """/profile TEXT: keep `text` as the project's standing instructions ("" forgets them), in the system prompt from
    the next request on; what is kept. Raises ProfileError (one sentence) when they cannot be kept."""
    from agentui.core.extend.output_styles import output_style
    from agentui.core.profile import set_standing_instructions as keep

    kept = keep(conversation.root, text, conversation.env).instructions
    style = output_style(conversation.root, conversation.env, conversation.project.trusted)
    _instruct(conversation, conversation.launch, style)
    return kept


def use_output_style(conversation: Instructed, name: str) -> OutputStyle | None:
    """/output-style NAME: the style (None: the default) in force from the next request on, and saved in the
    project's local settings (which a project not trusted yet does not read at the next start). Raises
    OutputStyleError (one sentence) for a name there is no style of, or a file that cannot be written."""
    from agentui.core.extend.output_styles import find_style, load_output_styles, save_style_setting

    trusted = conversation.project.trusted
    style = find_style(load_output_styles(conversation.root, conversation.env, trusted), name)
    save_style_setting(conversation.root, style.name if style is not None else "default")
    _instruct(conversation, conversation.launch, style)  # (the person's own choice: in force whatever the trust)
    return style
