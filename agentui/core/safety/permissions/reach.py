"""Where a path leads and what lies under a directory, as the kernel and the programs walking it see them: a
path resolved component by component (`link/../x` goes where the kernel goes), and a bounded walk of a tree a
recursive reader would read (`grep -r`, `rg`, `find | xargs`, `cp -r`, `rm -r`) to find what the checks must know:
a denied file, a hard link to one, a link leading out of the project, a protected name, a name xargs would split.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

from agentui.core.safety.permissions.once import once

WALK_LIMIT = 50_000
_MAGIC = ("/proc/", "/dev/fd/", "/dev/stdin", "/dev/stdout", "/dev/stderr")
"""Entries a walk looks at before it gives up (and the command asks)."""
_SPLIT_BY_XARGS = set(" \t\n\"'\\")


@dataclass(frozen=True)
class Resolved:
    written: Path
    """Absolute, with `.` and `..` folded by name (as a rule written for the path would name it)."""
    located: Path
    """The directory part resolved as the kernel resolves it, the last component as named (a link stays a link)."""
    real: Path
    """Every link followed: where a read or write lands."""

    @once
    def forms(self) -> tuple[Path, ...]:
        return tuple(dict.fromkeys((self.written, self.located, self.real)))


def resolve(value: str, cwd: Path, directories: dict[str, str] | None = None) -> Resolved:
    """`value` (already expanded by the shell: no tilde, no variables) as seen from `cwd`. `directories` keeps
    resolved directories for the rest of a check (a long command names many files in the same few places)."""
    joined = value if value.startswith("/") else os.path.join(cwd, value) if value else str(cwd)
    written = Path(os.path.normpath(joined))
    if str(written).startswith(_MAGIC):
        # (/proc/self/cwd, /dev/fd/3 and the like lead wherever the process that opens them is: not where they
        # lead for agentui; they stay what they are named, outside the project)
        return Resolved(written, written, written)
    trimmed = joined.rstrip("/") or "/"
    parent, name = os.path.split(trimmed)
    if name in ("", ".", "..") or trimmed != joined:
        # (`.`, `..` and a trailing slash name directories the kernel resolves whole)
        whole = Path(os.path.realpath(joined))
        return Resolved(written, whole, whole)
    parent = parent or "/"
    real_parent = directories.get(parent) if directories is not None else None
    if real_parent is None:
        real_parent = os.path.realpath(parent)
        if directories is not None:
            directories[parent] = real_parent
    located = os.path.join(real_parent, name)
    real = os.path.realpath(located) if os.path.islink(located) else located
    # (one Path for equal forms, the common case: a long command resolves thousands)
    located_path = written if located == str(written) else Path(located)
    return Resolved(written, located_path, located_path if real == located else Path(real))


@dataclass
class WalkChecks:
    """What a walk looks for; each returns why the command must ask (one sentence), or None."""

    inside: Callable[[Path], bool]
    """The path (real) is one the command may read without a question."""
    denied: Callable[[Path], bool] | None = None
    """A deny rule covers reading this file."""
    denied_inodes: Collection[tuple[int, int]] = ()
    protected: Callable[[Path], str | None] | None = None
    split_names: bool = False
    reads: Callable[[str], bool] = lambda name: True
    """Whether the program reads a file of this base name below the root (grep's --include and --exclude)."""
    enters: Callable[[str], bool] = lambda name: True
    """Whether the program enters a subdirectory of this base name (grep's --exclude-dir)."""
    opens_links: bool = False
    """Each name is opened by another program (find | xargs cat), which follows a link at its end even where the
    walk does not descend through links: the link's target must pass the checks too."""
    skip_hidden: bool = False
    """Names starting with a dot below the root are passed over (ripgrep's default)."""
    files_only: bool = False
    """Only regular files are given to the program (find -type f): a link below the root is not."""
    asked: Callable[[Path], bool] | None = None
    """An ask rule covers reading this file: the command then asks (it is not refused)."""
    masked: Callable[[Path], bool] = lambda real: False
    """The program opening this file (real path) gets a mask instead (the guard's or the sandbox's): what the file
    holds is out of its reach, so a deny rule on it needs no question."""
    kept: Callable[[Path], str | None] | None = None
    """Why this file (real path) must not be read unasked though no rule names it (git's objects holding a denied
    file's contents)."""


def walk_problem(root: Path, *, follow: bool, checks: WalkChecks, limit: int = WALK_LIMIT) -> str | None:
    """Why reading everything under `root` (following links below it or not) needs a question, or None."""
    if not os.path.lexists(root):
        return None  # (nothing there: the program reads nothing)
    seen_dirs: set[tuple[int, int]] = set()
    stack: list[tuple[Path, bool]] = [(root, True)]
    count = 0
    while stack:
        path, named = stack.pop()
        count += 1
        if count > limit:
            return f"{root} holds more than {limit:,} entries, too many to check one by one"
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if checks.skip_hidden and not named and path.name.startswith("."):
            continue
        if stat.S_ISLNK(info.st_mode):
            if not (follow or named):
                # (a link below the root that the program does not follow: only its name is read, unless each
                # name is opened by a program that follows it)
                if why := file_problem(path, info, checks):
                    return why
                opened = checks.opens_links and not checks.files_only and checks.reads(path.name)
                if opened and (why := opened_problem(path, Path(os.path.realpath(path)), checks)):
                    return why
                continue
            real = Path(os.path.realpath(path))
            if not checks.inside(real):
                return f"{path} is a link to {real}, outside what the command may read"
            try:
                info = os.stat(path)
            except OSError:
                continue
        if stat.S_ISDIR(info.st_mode) and not named and not checks.enters(path.name):
            continue
        if (named or stat.S_ISDIR(info.st_mode) or checks.reads(path.name)) and (
            why := file_problem(path, info, checks)
        ):
            return why
        if stat.S_ISDIR(info.st_mode):
            key = (info.st_dev, info.st_ino)
            if key in seen_dirs:
                continue
            seen_dirs.add(key)
            try:
                names = os.listdir(path)
            except OSError:
                continue
            stack.extend((path / name, False) for name in names)
    return None


def opened_problem(name: Path | str, real: Path, checks: WalkChecks) -> str | None:
    """Why a program opening `name`, which leads to `real`, needs a question: `real` is outside what it may read, or
    the file there is one the checks stop at; None where nothing is there."""
    if not checks.inside(real):
        return f"{name} leads to {real}, outside what the command may read"
    try:
        info = os.stat(real)
    except OSError:
        return None
    return file_problem(real, info, checks)


def file_problem(path: Path, info: os.stat_result, checks: WalkChecks) -> str | None:
    if checks.split_names and not xargs_keeps(path.name):
        return f"the name {path.name!r} would be split by xargs"
    if checks.protected is not None and (why := checks.protected(path)):
        return why
    if not stat.S_ISREG(info.st_mode) or (checks.denied is None and checks.asked is None and checks.kept is None):
        return None
    real = Path(os.path.realpath(path))  # (once: each check below wants where the name leads)
    if checks.denied is not None and not checks.masked(real):
        if checks.denied(path) or checks.denied(real):
            return f"{path} is a file a deny rule covers"
        if (info.st_dev, info.st_ino) in checks.denied_inodes:
            return f"{path} is another name for a file a deny rule covers"
    if checks.asked is not None and (checks.asked(path) or checks.asked(real)):
        return f"{path} is a file an ask rule covers"
    if checks.kept is not None and (why := checks.kept(real)):
        return f"{path} is in git's objects, and {why}"
    return None


def links_below(root: Path, limit: int = WALK_LIMIT) -> Path | None:
    """The first symbolic link at or below `root` (not followed), if any; `root` itself past `limit` entries (the
    walk gives up, and the caller asks)."""
    if os.path.islink(root):
        return root
    if not os.path.isdir(root):
        return None
    seen = 0
    for directory, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            seen += 1
            path = Path(directory, name)
            if seen > limit or os.path.islink(path):
                return path
    return None


def xargs_keeps(name: str) -> bool:
    """xargs without -0 reads this name (one per line) as it is: no blank or quote it splits on, and nothing git would
    quote in its listing without -z (a character outside printable ASCII)."""
    return not _SPLIT_BY_XARGS & set(name) and name.isascii() and name.isprintable()
