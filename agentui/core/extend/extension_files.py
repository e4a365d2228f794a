"""Reading the Markdown files that extend agentui (agents, commands, skills): a project's arrive with its code, so
each is read only when it is a regular file lying in the project. A FIFO would hold whoever opens it for ever (the
app, at start-up), and a link to a file elsewhere would send that file to the model (~/.git-credentials as a skill's
description). Text that is not UTF-8 is read with replacement characters, as Claude Code reads it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from agentui.core.workspace import is_within


def extension_text(path: Path, project_root: Path | None = None) -> str | None:
    """The text of the file at `path`, or None when it is not one to read: not a regular file, unreadable, or (with
    `project_root`, for a project's own) a link to a file out of the project."""
    if project_root is not None and not is_within(os.path.realpath(path), os.path.realpath(project_root)):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # (a FIFO opens at once, and is refused)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read().decode("utf-8", errors="replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def in_project(directory: Path, project_root: Path) -> Path | None:
    """`project_root` when `directory` is the project's own (its files are held to it), else None."""
    return project_root if is_within(directory, project_root) else None
