"""Which existing files and directories the Read-family deny rules cover: for the sandbox to mask, and, by inode, for
the file tools to recognise a hard link to one. A literal anchored pattern is one path; any other is a walk of its
root, bounded (`LIMIT` entries in all) and remembered between commands: only directories whose modification time
changed are listed again."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

LIMIT = 100_000
_GLOB = frozenset("*?[\\")
_RACY = 2.0  # seconds: a directory changed this close to its listing may have changed again within the same tick


class DenyPattern(Protocol):
    """A deny rule's path (`agentui.core.safety.permissions.rules.PathPattern`): gitignore semantics below `root`."""

    @property
    def root(self) -> Path: ...

    @property
    def pattern(self) -> str: ...

    def matches(self, path: Path | str) -> bool: ...


@dataclass(frozen=True)
class DeniedFiles:
    files: tuple[Path, ...] = ()
    """Real paths of denied non-directories (regular files, devices, sockets): each masked by /dev/null."""
    directories: tuple[Path, ...] = ()
    """Real paths of denied directories: each masked whole by an empty read-only tmpfs."""
    inodes: frozenset[tuple[int, int]] = frozenset()
    """(st_dev, st_ino) of the denied regular files, to refuse a hard link to one."""
    complete: bool = True
    reason: str | None = None
    """Why the enumeration is not complete (one sentence), when it is not."""
    cut: bool = False
    """The walk stopped at its limit: some denied files are not in `files` or `inodes` at all."""


@dataclass
class _Listing:
    mtime_ns: int
    listed_at: float
    subdirectories: list[str]
    matched: list[str]
    entries: int


@dataclass
class _Walk:
    listings: dict[str, _Listing] = field(default_factory=dict)


class DeniedFinder:
    """Finds what the patterns cover; keeps each walk's listings for the next command."""

    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self._walks: dict[tuple[str, tuple[str, ...]], _Walk] = {}

    def find(self, patterns: Sequence[DenyPattern]) -> DeniedFiles:
        found: dict[str, None] = {}
        walks: dict[str, list[DenyPattern]] = {}
        for pattern in patterns:
            literal = _literal(pattern)
            if literal is not None:
                if os.path.lexists(literal):
                    found[literal] = None
                continue
            start = _walk_start(pattern)
            if _covers_whole(pattern, start):
                if os.path.isdir(start):
                    found[start] = None
                continue
            walks.setdefault(start, []).append(pattern)  # (one walk for all the patterns that start there)
        budget = [self.limit]
        incomplete: str | None = None
        used: set[tuple[str, tuple[str, ...]]] = set()
        for start, group in walks.items():
            key = (start, tuple(sorted(f"{p.root}:{p.pattern}" for p in group)))
            used.add(key)
            walk = self._walks.setdefault(key, _Walk())
            if not _walk(group, start, walk, found, budget) and incomplete is None:
                incomplete = (
                    f"the deny rules cover more than {self.limit:,} files and directories to look through under "
                    f"{start}, too many to mask them all in the sandbox"
                )
        for key in list(self._walks):  # (rules taken back: their walks are forgotten)
            if key not in used:
                del self._walks[key]
        resolved = _resolve(found, incomplete)
        return replace(resolved, cut=True) if incomplete is not None else resolved


def _literal(pattern: DenyPattern) -> str | None:
    """The one path an anchored pattern without wildcards names (gitignore: a slash before the end anchors it)."""
    text = pattern.pattern.rstrip("/")
    if not text or "/" not in text or _GLOB & set(text):
        return None
    return os.path.normpath(os.path.join(pattern.root, text))


def _walk_start(pattern: DenyPattern) -> str:
    """Where a walk begins: the root, or, for an anchored pattern, the directory its literal leading parts name."""
    text = pattern.pattern.rstrip("/")
    parts = text.split("/")
    if len(parts) < 2 or pattern.pattern in ("", "**", "/**"):
        return str(pattern.root)
    leading = []
    for part in parts[:-1]:
        if _GLOB & set(part):
            break
        leading.append(part)
    return os.path.normpath(os.path.join(pattern.root, *leading))


def _covers_whole(pattern: DenyPattern, start: str) -> bool:
    """The directory and all below it are denied: mask it whole, without listing it."""
    if pattern.pattern in ("", "**", "/**"):
        return True
    text = pattern.pattern
    return (
        text.endswith("/**")
        and _GLOB.isdisjoint(text[:-3])
        and start == os.path.normpath(os.path.join(pattern.root, text[:-3]))
    )


def _walk(patterns: list[DenyPattern], start: str, walk: _Walk, found: dict[str, None], budget: list[int]) -> bool:
    """List `start` depth first, reusing listings whose directory did not change; False if the budget ran out."""
    listings: dict[str, _Listing] = {}
    seen: set[tuple[int, int]] = set()
    stack = [start]
    complete = True
    while stack:
        directory = stack.pop()
        try:
            info = os.stat(directory)  # (a followed link to a directory is listed under its own name)
        except OSError:
            continue
        if (info.st_dev, info.st_ino) in seen:  # a loop of links, or two names for one directory
            continue
        seen.add((info.st_dev, info.st_ino))
        listing = walk.listings.get(directory)
        if listing is None or listing.mtime_ns != info.st_mtime_ns or listing.listed_at - info.st_mtime < _RACY:
            listing = _list(patterns, directory, info.st_mtime_ns)
            if listing is None:
                continue
        listings[directory] = listing
        budget[0] -= listing.entries
        if budget[0] < 0:
            complete = False
            break
        found.update(dict.fromkeys(listing.matched))
        stack.extend(listing.subdirectories)
    walk.listings = listings
    return complete


def _list(patterns: list[DenyPattern], directory: str, mtime_ns: int) -> _Listing | None:
    listed_at = time.time()
    subdirectories: list[str] = []
    matched: list[str] = []
    entries = 0
    try:
        with os.scandir(directory) as scan:
            for entry in scan:
                entries += 1
                if any(pattern.matches(entry.path) for pattern in patterns):
                    matched.append(entry.path)  # (a matched directory is masked whole: nothing below is listed)
                    continue
                try:
                    if entry.is_dir(follow_symlinks=True):
                        subdirectories.append(entry.path)
                except OSError:
                    continue
    except OSError:
        return None
    return _Listing(mtime_ns, listed_at, subdirectories, matched, entries)


def _resolve(found: dict[str, None], incomplete: str | None) -> DeniedFiles:
    """Real paths (a denied link, or a path through a linked directory, is masked where it leads), by kind."""
    files: dict[Path, None] = {}
    directories: dict[Path, None] = {}
    inodes: set[tuple[int, int]] = set()
    for path in found:
        real = Path(os.path.realpath(path))
        try:
            info = os.stat(real)
        except OSError:
            continue  # (a dangling link: nothing to read)
        if stat.S_ISDIR(info.st_mode):
            directories[real] = None
            continue
        files[real] = None
        if stat.S_ISREG(info.st_mode):
            inodes.add((info.st_dev, info.st_ino))
            if info.st_nlink > 1 and incomplete is None:
                incomplete = (
                    f"{path} has other hard links, which the sandbox cannot find to mask, so a command could read "
                    "it through one of them"
                )
    return DeniedFiles(
        tuple(files), tuple(directories), frozenset(inodes), complete=incomplete is None, reason=incomplete
    )
