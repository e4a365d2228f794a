"""Walking a project's files as git sees them: .gitignore files honoured at every level, `.git` and symlinks skipped.

Grep's Python fallback and Glob both walk this way, and the ripgrep flags in `search.py` ask rg for the same.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

import pathspec

from agentui.core.workspace import is_within

Rules = tuple[tuple[Path, pathspec.GitIgnoreSpec], ...]
"""(directory, spec of its .gitignore), outermost first."""


def _load(directory: Path) -> pathspec.GitIgnoreSpec | None:
    try:
        lines = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
    except (FileNotFoundError, NotADirectoryError, PermissionError, IsADirectoryError):
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines)


def _extend(rules: Rules, directory: Path) -> Rules:
    spec = _load(directory)
    return (*rules, (directory, spec)) if spec is not None else rules


def is_ignored(path: Path, is_dir: bool, rules: Rules) -> bool:
    """The deepest .gitignore with an opinion decides, as in git (a `!pattern` re-includes)."""
    for base, spec in reversed(rules):
        relative = path.relative_to(base).as_posix() + ("/" if is_dir else "")
        verdict = spec.check_file(relative).include
        if verdict is not None:
            return verdict
    return False


def starting_rules(start: Path, project_root: Path) -> Rules:
    """The .gitignore files above `start` that apply to it: those from the project root down to `start`."""
    rules: Rules = ()
    if is_within(start, project_root):
        chain = [start, *start.parents]
        for directory in reversed(chain[: chain.index(project_root) + 1]):
            rules = _extend(rules, directory)
    else:
        rules = _extend(rules, start)
    return rules


class IgnoreChecker:
    """Answers "would the walk have skipped this file?" for paths found some other way (ripgrep's results)."""

    def __init__(self, start: Path, project_root: Path) -> None:
        self._start = start
        self._rules: dict[Path, Rules] = {start: starting_rules(start, project_root)}

    def _rules_for(self, directory: Path) -> Rules:
        if directory not in self._rules:
            self._rules[directory] = _extend(self._rules_for(directory.parent), directory)
        return self._rules[directory]

    def ignored(self, path: Path) -> bool:
        if not is_within(path, self._start) or path == self._start:
            return False
        for directory in reversed(path.relative_to(self._start).parents[:-1]):
            folder = self._start / directory
            if folder.name == ".git" or is_ignored(folder, True, self._rules_for(folder.parent)):
                return True
        return is_ignored(path, False, self._rules_for(path.parent))


def walk_files(start: Path, project_root: Path) -> Iterator[Path]:
    """Every file under `start` that git would not ignore, in a stable order. A file `start` is yielded as is."""
    if start.is_file():
        yield start
        return
    stack: list[tuple[Path, Rules]] = [(start, starting_rules(start, project_root))]
    while stack:
        directory, rules = stack.pop()
        try:
            entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
        except OSError:
            continue
        subdirectories: list[tuple[Path, Rules]] = []
        for entry in entries:
            if entry.name == ".git" or entry.is_symlink():
                continue
            path = Path(entry.path)
            is_dir = entry.is_dir(follow_symlinks=False)
            if is_ignored(path, is_dir, rules):
                continue
            if is_dir:
                subdirectories.append((path, _extend(rules, path)))
            elif entry.is_file(follow_symlinks=False):
                yield path
        stack.extend(reversed(subdirectories))


def newest_first(paths: Iterable[Path]) -> list[Path]:
    """Most recently modified first (ties by path), as Claude Code lists matches."""

    def key(path: Path) -> tuple[float, str]:
        text = str(path)
        try:
            return (-os.stat(text).st_mtime, text)
        except OSError:
            return (0.0, text)

    return sorted(paths, key=key)
