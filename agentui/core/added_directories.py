"""/add-dir: one more working directory for the session, as `--add-dir` gives at start-up. The tools, the permission
engine, the sandbox's and the guard's writable paths and `@` completion all read the workspace's directories as they
are at each call, so the directory counts from the next one. Only the person adds one (a command they type, never a
tool of the model's), and never one that would open what agentui keeps protected: the whole file system, the
kernel's /proc, /sys and /dev (agentui's own environment, every process's command line), a directory holding the
project or the home directory, or one holding (or inside) the person's own configuration, start-up files or
credentials. In an added directory its own protected paths stay protected, as the project's, and a
credential file the environment names stays out of the tools' reach (the engine asks, the sandbox hides it)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from agentui.core.errors import AgentuiError
from agentui.core.safety.guarded_paths import home_targets
from agentui.core.safety.permissions.protected import protected_reason
from agentui.core.safety.sandbox import KERNEL_VIEWS
from agentui.core.safety.sandbox_hidden import hidden, pointed_credentials
from agentui.core.workspace import is_within

if TYPE_CHECKING:
    from agentui.core.loop.agent import Agent
    from agentui.core.project import Project


class DirectoryError(AgentuiError):
    """The directory cannot be added; one sentence says why."""


class Conversation(Protocol):
    """What adding a directory reads and changes of the conversation."""

    agent: Agent
    project: Project
    env: Mapping[str, str] | None


def directory_to_add(conversation: Conversation, typed: str) -> Path:
    """The directory `typed` names, resolved as the kernel resolves it (`~`, links, then `..` where they lead),
    relative to the project; DirectoryError when it cannot be added."""
    workspace = conversation.project.workspace
    text = typed.strip()
    if not text:
        raise DirectoryError("Say which directory to add: /add-dir <path>.")
    shown = text
    home = conversation.project.engine.home  # (the session's home, as the tools' `~` means it)
    expanded = str(home) + text[1:] if text == "~" or text.startswith("~/") else os.path.expanduser(text)
    try:
        real = Path(os.path.realpath(os.path.join(workspace.root, expanded)))
        is_directory = real.is_dir()
    except (OSError, ValueError) as exc:
        raise DirectoryError(f"{shown} could not be resolved ({getattr(exc, 'strerror', None) or exc}).") from None
    if not real.exists():
        raise DirectoryError(f"Path {real} was not found.")
    if not is_directory:
        raise DirectoryError(f"{shown} is not a directory; did you mean the directory it is in, {real.parent}?")
    for directory in workspace.directories:
        if is_within(real, directory):
            where = "the project" if directory == workspace.root else "the added working directory"
            raise DirectoryError(f"{shown} is already within {where} {directory}.")
    env = os.environ if conversation.env is None else conversation.env
    if (reason := protected_reason(real, conversation.project.engine.config_dirs)) is not None:
        raise DirectoryError(f"{shown} cannot be added: {reason}, which stays protected wherever it is.")
    if (why := too_wide(real, workspace.root, home, env)) is not None:
        if os.path.normpath(os.path.join(workspace.root, expanded)) != str(real):  # (a link: say where it leads)
            shown = f"{shown} (which leads to {real})"
        raise DirectoryError(f"{shown} cannot be added: {why}.")
    return real


def too_wide(real: Path, root: Path, home: Path, env: Mapping[str, str]) -> str | None:
    """Why adding the directory `real` would open what must stay closed, or None if it would not."""
    home = Path(os.path.realpath(home))
    if real == Path("/"):
        return "it is the whole file system; add the directory you need"
    if any(is_within(real, view) for view in KERNEL_VIEWS):
        return "it is the kernel's view of processes, settings or devices (the sandbox gives commands their own)"
    if is_within(root, real):
        return "it holds the project, whose protected files (.git, .claude) must not become replaceable"
    if is_within(home, real):
        what = "is" if real == home else "holds"
        return f"it {what} your home directory (its start-up files, keys and settings); add a directory inside it"
    pointed = {Path(os.path.realpath(p)) for p in pointed_credentials(env)}
    kept = [target.path for target in home_targets(home, env)] + list(hidden(home, env).paths)
    for path in dict.fromkeys(Path(os.path.realpath(p)) for p in kept):
        if is_within(real, path):
            where = "it is" if real == path else "it is inside"
            return f"{where} {path}, which agentui keeps out of the tools' reach"
        # (a credential file the environment names may be in it: it stays out of reach there, as in the project)
        if path not in pointed and os.path.lexists(path) and is_within(path, real):
            return f"it holds {path}, which agentui keeps out of the tools' reach; add a directory that does not"
    return None


def add_directory(conversation: Conversation, directory: Path, *, remember: bool = False) -> Path | None:
    """Add `directory` (as `directory_to_add` gave it) to the session's working directories, and tell the model;
    with `remember`, save it in the project's .claude/settings.local.json (`permissions.additionalDirectories`, as
    Claude Code does) and return that file. OSError when the file cannot be written (the directory is added);
    DirectoryError when it can no longer be added (replaced by a link since it was checked, say)."""
    workspace = conversation.project.workspace
    if directory_to_add(conversation, str(directory)) != directory:  # (checked again, as it is now)
        raise DirectoryError(f"{directory} changed since it was checked; add it again.")
    if directory not in workspace.additional_dirs:
        workspace.additional_dirs = (*workspace.additional_dirs, directory)
    _tell_model(conversation.agent, workspace.additional_dirs)
    if not remember:
        return None
    from agentui.core.claude_settings import add_permission_entry

    return add_permission_entry(workspace.root, "additionalDirectories", str(directory))


def _tell_model(agent: Agent, directories: tuple[Path, ...]) -> None:
    """The facts the model gets with each request name the added directories, as Claude Code's environment does."""
    line = "Additional working directories: " + ", ".join(str(d) for d in directories)
    facts = [f for f in agent.config.environment.splitlines() if not f.startswith("Additional working directories:")]
    at = facts.index("</env>") if "</env>" in facts else len(facts)
    agent.config = agent.config.model_copy(update={"environment": "\n".join([*facts[:at], line, *facts[at:]])})
