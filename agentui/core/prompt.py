"""The system prompt: stable instructions first (so prompt caching hits), then facts about this environment."""

from __future__ import annotations

import datetime
import platform
from pathlib import Path

BASE_INSTRUCTIONS = """\
You are agentui, a careful coding assistant working in the user's terminal, inside their project.
Read before you change: look at the code around a change and follow its conventions.
Prefer small, correct edits over large rewrites, and say plainly what you did and what you did not do.
Use the tools you are given to read, search, edit and run; never claim to have done something you did not do.
When a tool call is denied, do not try to get around it: ask the user how to proceed.
Keep answers short and in Markdown; put code, commands and paths in backticks."""


def build_system_prompt(cwd: Path, *, append: str | None = None, today: datetime.date | None = None) -> str:
    """Base instructions, then the environment. `append` (--append-system-prompt) goes last."""
    today = today or datetime.date.today()
    environment = "\n".join(
        [
            "<env>",
            f"Working directory: {cwd}",
            f"Platform: {platform.system().lower()}",
            f"Today's date: {today.isoformat()}",
            "</env>",
        ]
    )
    parts = [BASE_INSTRUCTIONS, environment]
    if append:
        parts.append(append)
    return "\n\n".join(parts)
