"""The system prompt, stable part first so prompt caching keeps hitting: the instructions and the memory files,
which change rarely, then the environment (date, git status), which changes often and sits after the cache mark."""

from __future__ import annotations

import datetime
import platform
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agentui.core.context.memory import MemoryFile, render_memory
from agentui.core.extend.output_styles import OutputStyle
from agentui.core.safety.confined_git import GitError, run

INTRO = "You are agentui, a careful coding assistant working in the user's terminal, inside their project."
STYLED_INTRO = (
    "You are agentui, a careful assistant working in the user's terminal, inside their project, that helps users "
    'according to your "Output Style" below, which describes how you should respond to user queries.'
)
"""The first line under an output style (Claude Code changes its own so)."""

CODING_INSTRUCTIONS = """\
How to work:
- Read before you change: look at the code around a change and follow its conventions.
- Prefer small, correct edits over large rewrites; say plainly what you did and what you did not do.
- Never claim to have done something you did not do; run the tests when there are tests.
- When a tool call is denied, do not try to get around it: ask the user how to proceed."""
"""What an output style of the person's replaces, unless it keeps them (as Claude Code's "Doing tasks")."""

TOOL_INSTRUCTIONS = """\
Tools:
- Read files with Read (not cat), find files with Glob and search contents with Grep (not find or grep).
- Change files with Edit (exact text, read the file first) or Write (whole files); run commands with Bash.
- Keep a task list with TodoWrite for work of several steps.

Answer in short Markdown; put code, commands and paths in backticks."""

BASE_INSTRUCTIONS = f"{INTRO}\n\n{CODING_INSTRUCTIONS}\n\n{TOOL_INSTRUCTIONS}"

GIT_TIMEOUT = 2.0


def instructions(style: OutputStyle | None) -> str:
    """agentui's own instructions, as an output style changes them (Claude Code's way: the first line says to follow
    the style; a style of the person's drops the coding instructions unless it keeps them; the style comes last)."""
    if style is None:
        return BASE_INSTRUCTIONS
    coding = [CODING_INSTRUCTIONS] if style.keep_coding_instructions else []
    return "\n\n".join([STYLED_INTRO, *coding, TOOL_INSTRUCTIONS, f"# Output Style: {style.name}\n{style.prompt}"])


@dataclass(frozen=True)
class SystemPrompt:
    stable: str
    """Instructions and memory: the cached prefix."""
    volatile: str
    """Environment facts that change from one session (or hour) to the next."""


def git_facts(cwd: Path) -> str:
    """ "main; 2 changed, 1 untracked" from `git status`, or "" outside a repository (or if git is slow, or its
    configuration cannot be read). git runs confined: the repository's own config arrives with the code, and this
    runs before any question could be asked."""
    try:
        done = run(["status", "--porcelain=v1", "--branch"], cwd=cwd, timeout=GIT_TIMEOUT, reads=True)
    except GitError:
        return ""
    if done.returncode != 0:
        return ""
    lines = done.stdout.decode(errors="replace").splitlines()
    branch = lines[0][3:].split("...")[0] if lines and lines[0].startswith("## ") else "?"
    changed = sum(1 for line in lines[1:] if not line.startswith("??"))
    untracked = sum(1 for line in lines[1:] if line.startswith("??"))
    state = "clean" if not changed and not untracked else f"{changed} changed, {untracked} untracked"
    return f"{branch}; {state}"


def build_system_prompt(
    cwd: Path,
    memory: Sequence[MemoryFile] = (),
    *,
    style: OutputStyle | None = None,
    base: str | None = None,
    append: str | None = None,
    today: datetime.date | None = None,
    git: str | None = None,
    standing: str = "",
) -> SystemPrompt:
    """`base` replaces the built-in instructions (--system-prompt); `append` goes after them
    (--append-system-prompt); an output `style` follows them, as Claude Code's does. The person's `standing`
    instructions for the project (its agent profile's) follow the memory files: they change as rarely."""
    stable = [base if base is not None else instructions(style)]
    if append:
        stable.append(append)
    if memory:
        stable.append(
            "The user's instructions for this project (memory files); follow them:\n\n" + render_memory(list(memory))
        )
    if standing:
        stable.append("The user's standing instructions for this project; follow them:\n\n" + standing)
    git = git_facts(cwd) if git is None else git
    facts = [
        f"Working directory: {cwd}",
        f"Platform: {platform.system().lower()}",
        f"Today's date: {(today or datetime.date.today()).isoformat()}",
        f"Git repository: {'yes, ' + git if git else 'no'}",
    ]
    return SystemPrompt("\n\n".join(stable), "<env>\n" + "\n".join(facts) + "\n</env>")
