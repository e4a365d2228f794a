"""Stand-in files kept out of git's sight inside confined commands, so `git add -A && git commit` never records one:
a private excludes file (the person's own, plus a line per stand-in) named through GIT_CONFIG_COUNT's variables."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from agentui.core.scratch_files import ScratchFiles

_LIMIT = 1 << 20


def excludes_env(
    standin_files: Iterable[Path], person_excludes: Path | None, files: ScratchFiles, env: Mapping[str, str]
) -> tuple[dict[str, str], Path | None]:
    """Environment additions that point git's core.excludesFile at a private copy, and that copy (to delete once the
    command ends); nothing when no stand-in file lies in a git working tree."""
    lines = []
    tops: dict[Path, Path | None] = {}
    for path in standin_files:
        if path.parent not in tops:
            tops[path.parent] = _worktree(path.parent)
        top = tops[path.parent]
        if top is not None:
            lines.append("/" + _escape(str(path.relative_to(top))))
    if not lines:
        return {}, None
    own = b""
    if person_excludes is not None:
        try:
            with open(person_excludes, "rb") as file:
                own = file.read(_LIMIT)
        except OSError:
            own = b""
    if own and not own.endswith(b"\n"):
        own += b"\n"
    path, output = files.create_unique(None, "git-excludes")
    with output:
        output.write(own + "".join(line + "\n" for line in lines).encode("utf-8", "surrogateescape"))
    try:
        count = int(env.get("GIT_CONFIG_COUNT", "0"))
    except ValueError:
        count = 0
    added = {
        f"GIT_CONFIG_KEY_{count}": "core.excludesFile",
        f"GIT_CONFIG_VALUE_{count}": str(path),
        "GIT_CONFIG_COUNT": str(count + 1),
    }
    return added, path


def _worktree(directory: Path) -> Path | None:
    for candidate in (directory, *directory.parents):
        dot_git = candidate / ".git"
        if dot_git.is_file() or os.path.exists(dot_git / "HEAD"):
            return candidate
    return None


def _escape(relative: str) -> str:
    """A literal path as a gitignore line."""
    return "".join("\\" + char if char in "*?[]!#\\ " else char for char in relative)
