"""Rules files, as Claude Code 2.1.197 reads them: every `*.md` under a `.claude/rules/` directory (the person's, and
each directory's from the filesystem root down to the project and below) is memory. A rule whose front matter names
`paths:` is conditional: it joins only once the conversation touches a file its globs match, gitignore-style,
relative to the directory that holds that `.claude/` (the person's rules: relative to the project)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import pathspec


def rule_files(directory: Path) -> list[Path]:
    """The `.md` files under `directory`, in name order, subdirectories (linked ones too, each once) walked in place."""
    found: list[Path] = []
    seen: set[str] = set()

    def walk(folder: Path) -> None:
        real = os.path.realpath(folder)
        if real in seen:
            return  # (a link back up: a cycle)
        seen.add(real)
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            return
        for entry in entries:
            try:
                if entry.is_dir():
                    walk(Path(entry.path))
                elif entry.is_file() and entry.name.endswith(".md"):
                    found.append(Path(entry.path))
            except OSError:
                continue

    walk(directory)
    return found


def rule_globs(paths: str | None) -> tuple[str, ...]:
    """The globs a rule's `paths:` names ("src/**/*.ts, lib/{a,b}/**", or a YAML list, which the front matter reader
    joins with commas): split at commas outside braces, braces expanded, a trailing `/**` dropped (the directory
    itself then matches, gitignore-style, with all below it). None of them, or only `**`: the rule always applies."""
    from agentui.core.tools.globs import expand_braces

    if not paths:
        return ()
    parts: list[str] = []
    depth, current = 0, ""
    for char in paths:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    globs = [glob[:-3] if glob.endswith("/**") else glob for part in parts for glob in expand_braces(part.strip())]
    kept = tuple(glob for glob in globs if glob)
    return () if all(glob == "**" for glob in kept) else kept


@dataclass
class ConditionalRule:
    """A rule with `paths:`, waiting for a file it matches."""

    path: Path
    base: Path
    """The directory its globs are relative to."""
    globs: tuple[str, ...]
    kind: Literal["user", "project"]
    """Whose rule it is (the kind of memory file it becomes)."""
    _spec: pathspec.GitIgnoreSpec | None = field(default=None, repr=False)

    def matches(self, touched: Path) -> bool:
        """Whether the file `touched` (resolved) is one the rule is for: inside its base, and matched by a glob."""
        import pathspec

        relative = os.path.relpath(touched, self.base)
        if relative == "." or relative.startswith("..") or os.path.isabs(relative):
            return False
        if self._spec is None:
            self._spec = pathspec.GitIgnoreSpec.from_lines(self.globs)
        return self._spec.match_file(relative.replace(os.sep, "/"))
