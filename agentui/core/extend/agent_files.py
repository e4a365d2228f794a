"""/agents: the sub-agent types the model's Agent tool can start, where each comes from (built in, the project's
`.claude/agents/`, the person's `~/.claude/agents/`, `--agents`), and creating or changing one as Claude Code writes
them (`<name>.md`: quoted name and description, `tools`, `model`, then the prompt). The person asked for the write,
so it is made directly (the model's own writes to `.claude/` always ask); the name must be a plain identifier, and
the directory must be where it says (a `.claude` or `agents` link leading elsewhere is refused). A type saved is the
Agent tool's at once."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from agentui.core.dirs import claude_config_dir
from agentui.core.errors import AgentuiError
from agentui.core.extend.extension_files import extension_text
from agentui.core.extend.subagents import AgentType, Task, agent_type_from_file
from agentui.core.frontmatter import front_matter_lines, parse_front_matter, quoted
from agentui.core.workspace import is_within

if TYPE_CHECKING:
    from agentui.core.project import Project

Scope = Literal["project", "user"]
Source = Literal["built-in", "project", "user", "session", "plugin"]
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{1,48}[A-Za-z0-9]")
"""Claude Code's rule for an agent type's name: letters, digits and hyphens, 3 to 50, a letter or digit at each end."""
OWN_KEYS = ("name", "description", "tools", "model")
"""The front matter /agents writes; other keys of an edited file (color, effort, memory...) are kept as they are."""


class AgentFileError(AgentuiError):
    """The agent type cannot be saved; one sentence says why."""


class Conversation(Protocol):
    project: Project
    env: Mapping[str, str] | None


@dataclass(frozen=True)
class AgentTypeInfo:
    """One agent type as /agents shows it and its editor starts from."""

    name: str
    description: str
    tools: tuple[str, ...] | None
    """None: every tool of the parent's (but the Agent tool)."""
    model: str
    """As the file writes it ("sonnet", "inherit", an id), "" for none."""
    prompt: str
    source: Source
    path: Path | None

    @property
    def editable(self) -> bool:
        return self.source in ("project", "user") and self.path is not None


def agent_types(conversation: Conversation) -> list[AgentTypeInfo]:
    """Every type the Agent tool offers now, built-in first, then by name."""
    task = conversation.project.tools.get(Task.name)
    if not isinstance(task, Task):
        return []
    found = []
    for kind in task.types.values():
        source = _source(kind, conversation)
        raw = parse_front_matter(_read(kind.path))[0] if kind.path is not None else {}
        model = raw.get("model", kind.model or "")
        found.append(
            AgentTypeInfo(kind.name, kind.description, kind.tools, model, kind.instructions, source, kind.path)
        )
    return sorted(found, key=lambda info: (info.source != "built-in", info.name.lower()))  # (Claude Code's order)


def check_name(name: str) -> None:
    """AgentFileError unless `name` can name an agent type (and its file)."""
    if not NAME.fullmatch(name):
        raise AgentFileError(
            f"“{name}” cannot name an agent type: use 3 to 50 letters, digits and hyphens, starting and ending with a "
            "letter or digit (no slashes, dots or spaces)."
        )


def save_agent_type(
    conversation: Conversation,
    *,
    name: str,
    description: str,
    tools: Sequence[str] | None,
    model: str,
    prompt: str,
    scope: Scope = "project",
    editing: AgentTypeInfo | None = None,
) -> Path:
    """Write the type (a new file in `scope`'s directory, or over `editing`'s file) and give it to the Agent tool;
    the file written. AgentFileError, in one sentence, for a name, description or prompt that cannot be saved or a
    directory that is not where it should be; OSError when the file cannot be written."""
    name, description, prompt = name.strip(), description.strip(), prompt.strip()
    check_name(name)
    if not description:
        raise AgentFileError("Describe when the model should use this agent (the description is what it reads).")
    if not prompt:
        raise AgentFileError("Write the agent's prompt: the instructions it works by.")
    if editing is not None:
        if not editing.editable or editing.path is None:
            raise AgentFileError(f"The {editing.name} agent is {editing.source}, not a file /agents can change.")
        if name != editing.name:
            raise AgentFileError("An agent type keeps its name when it is edited; create a new one to rename it.")
        directory = _agents_directory(conversation, editing.source)
        if editing.path.parent != directory:
            raise AgentFileError(f"{editing.path} is not in {directory}, so /agents does not change it.")
        real = _real_directory(directory, _scope_base(conversation, editing.source))
        path, kept = real / editing.path.name, _other_keys(_read(editing.path))
    else:
        if any(info.name == name for info in agent_types(conversation)):
            raise AgentFileError(f"There is already an agent type named {name}; edit it, or choose another name.")
        directory = _agents_directory(conversation, scope)
        path, kept = _real_directory(directory, _scope_base(conversation, scope)) / f"{name}.md", []
        if os.path.lexists(path):
            raise AgentFileError(f"{path} already exists; edit it, or choose another name.")
    from agentui.core.atomic_write import atomic_write

    atomic_write(path, agent_file(name, description, tools, model, prompt, kept).encode())
    kind = agent_type_from_file(path)
    task = conversation.project.tools.get(Task.name)
    if kind is not None and isinstance(task, Task):
        task.add_type(kind)  # (the model is offered it from its next request)
    return path


def agent_file(
    name: str, description: str, tools: Sequence[str] | None, model: str, prompt: str, kept: Sequence[str] = ()
) -> str:
    """The file as Claude Code writes one: no `tools` line for every tool, no `model` line for the parent's."""
    lines = ["---", f'name: "{name}"', f"description: {quoted(description)}"]
    if tools:
        lines.append(f"tools: {', '.join(tools)}")
    if model:
        lines.append(f"model: {model}")
    return "\n".join([*lines, *kept, "---", "", prompt.strip(), ""])


def _other_keys(text: str) -> list[str]:
    """The front-matter lines of keys /agents does not write, with what continues each (a block list)."""
    lines, end = front_matter_lines(text)
    kept: list[str] = []
    keeping = False
    for line in lines[1:end] if end is not None else []:
        if line[:1] not in (" ", "\t", "-", "") and ":" in line:
            keeping = line.split(":", 1)[0].strip() not in OWN_KEYS
        if keeping:
            kept.append(line)
    return kept


def _scope_base(conversation: Conversation, scope: str) -> Path:
    """Where links are no longer followed for `scope`: below the project (its `.claude` included), or below Claude's
    configuration directory (which may itself be a link of the person's)."""
    return claude_config_dir(conversation.env) if scope == "user" else conversation.project.root


def _agents_directory(conversation: Conversation, scope: str) -> Path:
    base = _scope_base(conversation, scope)
    return base / "agents" if scope == "user" else base / ".claude" / "agents"


def _real_directory(directory: Path, base: Path) -> Path:
    """`directory` (below `base`), made if missing, as a real path; AgentFileError if a part of it below `base` is
    a link or a file (a project's `.claude` leading out of it, say)."""
    real = Path(os.path.realpath(base))
    for name in directory.relative_to(base).parts:
        real = real / name
        if real.is_symlink() or (os.path.lexists(real) and not real.is_dir()):
            raise AgentFileError(f"{real} is a link or a file, so no agent file is written through it.")
    real.mkdir(parents=True, exist_ok=True)
    return real


def _source(kind: AgentType, conversation: Conversation) -> Source:
    if kind.path is None:
        return "built-in" if kind.builtin else "session"
    if is_within(kind.path, conversation.project.root / ".claude" / "agents"):
        return "project"
    if ":" in kind.name:
        return "plugin"  # (`hello:greeter`: a plugin's, which /agents does not change)
    return "user"


def _read(path: Path | None) -> str:
    return (extension_text(path) or "") if path is not None else ""  # (a FIFO planted since: never waited on)
