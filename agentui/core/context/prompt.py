"""The system prompt, stable part first so prompt caching keeps hitting: the instructions and the memory files,
which change rarely, then the environment (date, git status), which changes often and sits after the cache mark."""

from __future__ import annotations

import datetime
import platform
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agentui.core.context.memory import MemoryFile, render_memory
from agentui.core.extend.skills import Skill
from agentui.core.safety.confined_git import GitError, run

BASE_INSTRUCTIONS = """\
You are agentui, a careful coding assistant working in the user's terminal, inside their project.

How to work:
- Read before you change: look at the code around a change and follow its conventions.
- Prefer small, correct edits over large rewrites; say plainly what you did and what you did not do.
- Never claim to have done something you did not do; run the tests when there are tests.
- When a tool call is denied, do not try to get around it: ask the user how to proceed.

Tools:
- Read files with Read (not cat), find files with Glob and search contents with Grep (not find or grep).
- Change files with Edit (exact text, read the file first) or Write (whole files); run commands with Bash.
- Keep a task list with TodoWrite for work of several steps.

Answer in short Markdown; put code, commands and paths in backticks."""

GIT_TIMEOUT = 2.0


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
    skills: Sequence[Skill] = (),
    base: str | None = None,
    append: str | None = None,
    today: datetime.date | None = None,
    git: str | None = None,
) -> SystemPrompt:
    """`base` replaces the built-in instructions (--system-prompt); `append` goes after them
    (--append-system-prompt)."""
    stable = [base if base is not None else BASE_INSTRUCTIONS]
    if append:
        stable.append(append)
    if memory:
        stable.append(
            "The user's instructions for this project (memory files); follow them:\n\n" + render_memory(list(memory))
        )
    git = git_facts(cwd) if git is None else git
    facts = [
        f"Working directory: {cwd}",
        f"Platform: {platform.system().lower()}",
        f"Today's date: {(today or datetime.date.today()).isoformat()}",
        f"Git repository: {'yes, ' + git if git else 'no'}",
    ]
    return SystemPrompt("\n\n".join(stable), "<env>\n" + "\n".join(facts) + "\n</env>")
