"""Memory files, read as Claude Code reads them: `~/.claude/CLAUDE.md`, then `CLAUDE.md` and `.claude/CLAUDE.md` in
every directory from the filesystem root down to the project, then `CLAUDE.local.md`. Each may import others with
`@path` (relative to it, or `~/`), up to four levels deep; cycles are ignored, and `@` inside code is just text.

CLAUDE.md files in directories below the project join later, when a tool first touches their directory.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from agentui.core.dirs import claude_config_dir
from agentui.core.workspace import is_within

MAX_IMPORT_DEPTH = 4
MAX_FILE_BYTES = 200_000
_IMPORT = re.compile(r"(?<![\w@`])@((?:~/|\.{1,2}/|/)?[\w.\-/~]+[\w\-])")
_FENCE = re.compile(r"^(```|~~~)")

Kind = Literal["user", "project", "local", "nested", "import"]


@dataclass(frozen=True)
class MemoryFile:
    path: Path
    kind: Kind
    text: str
    imported_by: Path | None = None


def _read(path: Path) -> str | None:
    try:
        if not path.is_file():
            return None
        with path.open("r", encoding="utf-8", errors="replace") as handle:
            return handle.read(MAX_FILE_BYTES)
    except OSError:
        return None


def imports_in(text: str) -> list[str]:
    """`@path` references outside code blocks and code spans, in order."""
    found: list[str] = []
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line.strip()):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        outside_code = re.sub(r"`[^`]*`", "", line)
        found.extend(match.group(1) for match in _IMPORT.finditer(outside_code))
    return found


class MemoryLoader:
    def __init__(self, cwd: Path, env: Mapping[str, str] | None = None) -> None:
        self.cwd = Path(os.path.realpath(cwd))
        self.env = os.environ if env is None else env
        self.home = Path(self.env.get("HOME") or Path.home())
        self._seen: set[Path] = set()
        self.files: list[MemoryFile] = []

    def load(self) -> list[MemoryFile]:
        """The memory of a session's start, in the order the model reads it."""
        self._add(claude_config_dir(self.env) / "CLAUDE.md", "user")
        for directory in [*reversed(self.cwd.parents), self.cwd]:
            self._add(directory / "CLAUDE.md", "project")
            self._add(directory / ".claude" / "CLAUDE.md", "project")
        self._add(self.cwd / "CLAUDE.local.md", "local")
        return list(self.files)

    def touch(self, path: Path) -> list[MemoryFile]:
        """A tool touched `path`: the CLAUDE.md files between the project and it not read yet, in order."""
        path = Path(os.path.realpath(path))
        directory = path if path.is_dir() else path.parent
        if not is_within(directory, self.cwd) or directory == self.cwd:
            return []
        before = len(self.files)
        chain = [directory, *directory.parents]
        for folder in reversed(chain[: chain.index(self.cwd)]):
            self._add(folder / "CLAUDE.md", "nested")
            self._add(folder / ".claude" / "CLAUDE.md", "nested")
        return self.files[before:]

    def _add(self, path: Path, kind: Kind, imported_by: Path | None = None, depth: int = 0) -> None:
        real = Path(os.path.realpath(path))
        if real in self._seen:
            return  # read already, or an import cycle
        text = _read(real)
        if text is None:
            return
        self._seen.add(real)
        self.files.append(MemoryFile(path, kind, text, imported_by))
        if depth >= MAX_IMPORT_DEPTH:
            return
        for reference in imports_in(text):
            target = self.home / reference[2:] if reference.startswith("~/") else (real.parent / reference)
            self._add(target, "import", path, depth + 1)


def render_memory(files: list[MemoryFile]) -> str:
    """The memory as the model reads it: each file's text under its path."""
    parts = []
    for memory in files:
        origin = f" (imported by {memory.imported_by})" if memory.imported_by else ""
        parts.append(f"Contents of {memory.path}{origin}:\n\n{memory.text.strip()}")
    return "\n\n".join(parts)
