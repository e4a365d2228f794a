"""Completing `@path` in a prompt: the project's files (as Glob sees them, ignores honoured) and those of the
directories added to the session (`--add-dir`, `/add-dir`), walked once, and the MCP servers' resources
(`server:uri`, as Claude Code offers them), ranked for what was typed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from agentui.core.tools.walk import walk_files

MAX_FILES = 5000
"""The walk stops here: a huge tree must not stall the prompt (what is typed still narrows these)."""


class Resources(Protocol):
    def resource_names(self) -> list[str]:
        """`server:uri` for each resource a connected MCP server lists now."""
        ...


class PathCompleter:
    def __init__(
        self, root: Path, added: Callable[[], Sequence[Path]] = tuple, resources: Resources | None = None
    ) -> None:
        self.root = root
        self.added = added
        """The added directories as they are now: their files are offered as absolute paths."""
        self.resources = resources
        self._files: list[str] | None = None
        self._walked: tuple[Path, ...] = ()

    def complete(self, typed: str) -> list[str]:
        """Project-relative paths (absolute ones in an added directory) containing `typed` (any case), best first."""
        typed = typed.lower()
        named = self.resources.resource_names() if self.resources is not None else []
        found = [path for path in [*self.files(), *named] if typed in path.lower()]
        return sorted(found, key=lambda path: rank(path, typed))

    def files(self) -> list[str]:
        added = tuple(self.added())
        if self._files is None or added != self._walked:  # (a directory added since: walked once more)
            files: list[str] = []
            for path in walk_files(self.root, self.root):
                files.append(path.relative_to(self.root).as_posix())
                if len(files) >= MAX_FILES:
                    break
            for directory in added:
                for path in walk_files(directory, directory):
                    if len(files) >= MAX_FILES:
                        break
                    files.append(str(path))
            self._files, self._walked = sorted(files), added
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
