"""Completing `@path` in a prompt: the project's files (as Glob sees them, ignores honoured), walked once and
ranked for what was typed."""

from __future__ import annotations

from pathlib import Path

from agentui.core.tools.walk import walk_files

MAX_FILES = 5000
"""The walk stops here: a huge tree must not stall the prompt (what is typed still narrows these)."""


class PathCompleter:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._files: list[str] | None = None

    def complete(self, typed: str) -> list[str]:
        """Project-relative paths containing `typed` (any case), best first."""
        typed = typed.lower()
        found = [path for path in self.files() if typed in path.lower()]
        return sorted(found, key=lambda path: rank(path, typed))

    def files(self) -> list[str]:
        if self._files is None:
            files: list[str] = []
            for path in walk_files(self.root, self.root):
                files.append(path.relative_to(self.root).as_posix())
                if len(files) >= MAX_FILES:
                    break
            self._files = sorted(files)
        return self._files


def rank(path: str, typed: str) -> tuple[int, bool, int, str]:
    """Best first: the file's name starts with what was typed, then a directory's does, then it is in the name,
    then anywhere; within each, visible before hidden, shorter before longer."""
    lowered = path.lower()
    name = lowered.rsplit("/", 1)[-1]
    if name.startswith(typed):
        order = 0
    elif any(part.startswith(typed) for part in lowered.split("/")[:-1]):
        order = 1
    elif typed in name:
        order = 2
    else:
        order = 3
    hidden = any(part.startswith(".") for part in lowered.split("/"))
    return order, hidden, len(path), path
