"""Files that are never written without asking, whatever the rules and the mode say: version control internals,
agent and editor configuration (settings, hooks, MCP servers), and shell startup files. A write there can turn into
code that runs later, outside any permission check."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agentui.core.workspace import is_within

SHELL_STARTUP = frozenset(
    {
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".bash_logout",
        ".profile",
        ".zshrc",
        ".zprofile",
        ".zshenv",
        ".zlogin",
        ".zlogout",
        ".inputrc",
        ".cshrc",
        ".tcshrc",
        ".kshrc",
        "config.fish",
    }
)
_PROTECTED_DIRS = {
    ".git": "a .git directory",
    ".claude": "Claude Code and agentui settings",
    ".husky": "git hooks",
    ".vscode": "editor configuration (its tasks can run when the folder is opened)",
    ".idea": "editor configuration (run configurations)",
    ".devcontainer": "dev container configuration",
}
_PROTECTED_FILES = {
    ".mcp.json": "MCP server configuration",
    ".claude.json": "Claude Code configuration",
    ".gitconfig": "git configuration",
    ".pre-commit-config.yaml": "git hooks",
    ".envrc": "a direnv file (run when a shell enters the directory)",
    "CLAUDE.md": "instructions the model reads at every start",
    "CLAUDE.local.md": "instructions the model reads at every start",
    "AGENTS.md": "instructions coding agents read at every start",
}


def protected_reason(path: Path, config_dirs: Sequence[Path] = ()) -> str | None:
    """Why writing `path` always needs the person's answer, or None."""
    for part in path.parts[:-1]:
        if part in _PROTECTED_DIRS:
            return f"{path} is in {_PROTECTED_DIRS[part]}"
    if path.name in _PROTECTED_DIRS:
        return f"{path} is {_PROTECTED_DIRS[path.name]}"
    if path.name in SHELL_STARTUP:
        return f"{path} is a shell startup file"
    if path.name in _PROTECTED_FILES:
        return f"{path} is {_PROTECTED_FILES[path.name]}"
    for directory in config_dirs:
        if is_within(path, directory):
            return f"{path} is in agentui's own configuration"
    return None
