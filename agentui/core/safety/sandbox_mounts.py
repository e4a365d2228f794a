"""From what must stay unwritten and unread to bubblewrap's mount options: protected paths followed through their
links (each link a command could re-point is pinned, each directory on the way it could rename is made a mount
point), stand-ins where they are missing, and masks over what is hidden or denied."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agentui.core.safety.guarded_paths import Target
from agentui.core.safety.standins import StandIn

_MAX_LINKS = 40  # as the kernel: a longer chain is a loop


@dataclass
class Protection:
    pins: dict[str, None] = field(default_factory=dict)
    """Existing directories made mount points of their own, still writable inside (they cannot be renamed)."""
    read_only: dict[str, None] = field(default_factory=dict)
    """Existing paths bound read-only over themselves."""
    links: dict[str, None] = field(default_factory=dict)
    """Symbolic links a command could replace, pinned from inside the sandbox (`sandbox_pin.py`)."""
    standins: list[StandIn] = field(default_factory=list)
    """Missing paths to make before the command starts (read-only ones, and the writable parents they need)."""


def plan_protection(
    targets: Iterable[Target],
    can_replace: Callable[[str], bool],
    can_write: Callable[[str], bool],
    standins: frozenset[str] = frozenset(),
) -> Protection:
    """`can_replace(path)`: a command could remove, rename or create an entry at `path` (its directory is writable
    to it); `can_write(path)`: it could change the existing file or directory itself. `standins`: paths that exist
    only as stand-ins (of a command still running): planned as missing, so that this command holds them too."""
    plan = Protection()
    seen: set[str] = set()
    for target in targets:
        _follow(target, plan, seen, can_replace, can_write, standins)
    read_only = list(plan.read_only)
    plan.pins = {  # a pin inside what is read-only anyway would make it writable again
        pin: None for pin in plan.pins if not any(_within(pin, ro) for ro in read_only)
    }
    return plan


def _follow(
    target: Target,
    plan: Protection,
    seen: set[str],
    can_replace: Callable[[str], bool],
    can_write: Callable[[str], bool],
    standins: frozenset[str],
) -> None:
    remaining = [part for part in str(target.path).split("/") if part]
    current = "/"
    hops = 0
    while remaining:
        name = remaining.pop(0)
        if name == ".":
            continue
        if name == "..":
            current = os.path.dirname(current)
            continue
        path = os.path.join(current, name)
        try:
            info = os.lstat(path)
        except OSError:
            info = None
        if info is None or path in standins:
            _stand_in(target, path, remaining, plan, seen, can_replace)
            return
        if stat.S_ISLNK(info.st_mode):
            if can_replace(path):
                plan.links[path] = None
            hops += 1
            try:
                pointed = os.readlink(path)
            except OSError:
                return
            if hops > _MAX_LINKS:
                return
            if pointed.startswith("/"):
                current = "/"
            remaining = [part for part in pointed.split("/") if part] + remaining
            continue
        if remaining:
            if not stat.S_ISDIR(info.st_mode):
                return  # (nothing can exist below a file)
            if can_replace(path):
                plan.pins[path] = None  # a writable directory on the way: renaming it would move the protection
            current = path
            continue
        if not (can_replace(path) or can_write(path)):
            return
        if target.pin and stat.S_ISDIR(info.st_mode):
            plan.pins[path] = None
        else:
            plan.read_only[path] = None


def _stand_in(
    target: Target,
    first_missing: str,
    remaining: list[str],
    plan: Protection,
    seen: set[str],
    can_replace: Callable[[str], bool],
) -> None:
    """The first missing component: made by agentui, so that bubblewrap does not leave one of its own behind. Missing
    directories on the way are plain writable directories (pinned); the protected path itself is the stand-in."""
    if not can_replace(first_missing) or any(part in (".", "..") for part in remaining):
        return
    chain = [first_missing]
    for part in remaining:
        chain.append(os.path.join(chain[-1], part))
    for parent in chain[:-1]:
        if parent not in seen:
            seen.add(parent)
            plan.standins.append(StandIn(Path(parent), True, writable=True))
    last = chain[-1]
    if last not in seen:
        seen.add(last)
        plan.standins.append(StandIn(Path(last), target.directory, target.content))


def _within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def _operations(plan: Protection, present: set[Path]) -> list[tuple[bool, str]]:
    """(read-only, path) of each mount, shallowest first (a pin before what is inside it), pins before read-only
    binds at one depth."""
    operations: list[tuple[int, int, str]] = []
    for path in plan.pins:
        operations.append((path.count("/"), 0, path))
    for path in plan.read_only:
        operations.append((path.count("/"), 1, path))
    for standin in plan.standins:
        if standin.path in present:
            path = str(standin.path)
            operations.append((path.count("/"), 0 if standin.writable else 1, path))
    return [(bool(read_only), path) for _, read_only, path in sorted(set(operations))]


def protection_args(plan: Protection, present: set[Path]) -> list[str]:
    """The mounts as bubblewrap's options."""
    args: list[str] = []
    for read_only, path in _operations(plan, present):
        args += ["--ro-bind" if read_only else "--bind", path, path]
    return args


def protection_specs(
    plan: Protection, present: set[Path], *, hidden: Callable[[str], bool] = lambda path: False
) -> list[str]:
    """The mounts as the mount helper's specs (see mount_helper.c), the links last. The helper binds what the
    namespace shows: what is `hidden` by then (inside an empty read-only tmpfs) is not there to bind, and needs no
    holding."""
    specs = [("r" if read_only else "b") + path for read_only, path in _operations(plan, present)]
    specs += ["l" + link for link in plan.links]
    return [spec for spec in specs if not hidden(spec[1:])]


@dataclass
class Masks:
    """Mounts that hide: /dev/null over files, an empty tmpfs over directories (made read-only once everything inside
    is bound). Paths are resolved first (a hidden link hides where it leads); what does not exist is passed over.
    The same as bubblewrap's options (`args`, then `remount`) or as the mount helper's specs (`specs`)."""

    args: list[str] = field(default_factory=list)
    tmpfs: list[str] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)
    _specs: list[str] = field(default_factory=list)

    def hide(self, path: Path | str) -> None:
        real = _existing_real(path)
        if real is None:
            return
        # (inside what is hidden already, and not shown again: nothing there for the helper to mount on, nor to hide;
        # bubblewrap makes the mount point in the tmpfs)
        covered = any(_within(real, t) for t in self.tmpfs) and not any(_within(real, s) for s in self.shown)
        if os.path.isdir(real):
            self.args += ["--tmpfs", real]
            self.tmpfs.append(real)
            if not covered:
                self._specs.append("h" + real)
        else:
            self.args += ["--ro-bind", "/dev/null", real]
            if not covered:
                self._specs.append("n" + real)

    def expose(self, path: Path | str) -> None:
        """Bind an existing path back, read-only, inside something hidden."""
        real = _existing_real(path)
        if real is not None:
            self.args += ["--ro-bind", real, real]
            self.shown.append(real)
            self._specs.append("e" + real)

    @property
    def remount(self) -> list[str]:
        """bubblewrap's options that make the tmpfs read-only, once what is shown inside them is bound."""
        return [arg for real in self._in_sight(self.tmpfs) for arg in ("--remount-ro", real)]

    @property
    def specs(self) -> list[str]:
        """The mount helper's specs: the hiding (and showing) in order, then the tmpfs made read-only."""
        made = [spec[1:] for spec in self._specs if spec[0] == "h"]
        return [*self._specs, *("R" + real for real in self._in_sight(made))]

    def _in_sight(self, tmpfs: list[str]) -> list[str]:
        """Those no other covers (one hidden inside another, `a/b` then `a`, has no path to it any more), or shown
        again inside what is shown."""
        return [
            real
            for real in tmpfs
            if not any(t != real and _within(real, t) for t in tmpfs) or any(_within(real, s) for s in self.shown)
        ]


def mask_targets(paths: Iterable[Path | str], writable: Sequence[str]) -> list[Target]:
    """What is masked inside a `writable` directory, to hold there: each directory on the way pinned (renaming one
    would move the mask out of where the next command looks for it), the masked path itself read-only (a file) or
    pinned (a directory). Only what exists: nothing is made for it."""
    targets: list[Target] = []
    for path in paths:
        real = _existing_real(path)
        if real is not None and within_any(real, writable) and real not in writable:
            directory = os.path.isdir(real)
            targets.append(Target(Path(real), directory, pin=directory))
    return targets


def _existing_real(path: Path | str) -> str | None:
    if not os.path.lexists(path):  # (most hidden paths do not exist: one lstat, no resolving)
        return None
    real = os.path.realpath(path)
    return real if os.path.exists(real) else None


def split_masks(paths: Iterable[Path | str], directories: Sequence[str]) -> tuple[list[str], list[str]]:
    """The existing paths, resolved, in two lists: those that hold one of `directories` (to hide before those are
    bound, so their binds go over the mask) and the rest (hidden after)."""
    before: list[str] = []
    after: list[str] = []
    for path in paths:
        real = _existing_real(path)
        if real is not None:
            (before if any(_within(d, real) for d in directories) else after).append(real)
    return before, after


def holds_any(path: Path | str, directories: Sequence[str]) -> bool:
    """`path` (resolved) is one of `directories` or an ancestor of one."""
    real = os.path.realpath(path)
    return any(_within(directory, real) for directory in directories)


def within_any(path: str, directories: Sequence[str]) -> bool:
    return any(_within(path, directory) for directory in directories)


def capability_args(pinning: bool, *, drop_all: bool, escapes: Sequence[str] = (), own_dev: bool = False) -> list[str]:
    """bubblewrap's capability options. A root agentui's commands would keep root's capabilities, with which a mount
    can be undone: the sandbox drops them all, the guard the `escapes`. Mounting from inside (`pinning`: the mount
    helper, or `sandbox_pin.py` for links) needs two of them for a moment (the helper gives them up before the
    command runs); with a /dev of its own (`own_dev`), and not as root, it also needs bubblewrap to leave the command
    in the user namespace that owns the mounts (`--uid 0`)."""
    args: list[str] = []
    if os.geteuid() == 0:
        if drop_all:
            args += ["--cap-drop", "ALL"]
        else:
            for name in escapes:
                args += ["--cap-drop", name]
    if pinning:
        args += ["--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP"]
        if own_dev and os.geteuid() != 0:  # (mapping uid 0 back needs CAP_SETFCAP: Linux 5.12 and later)
            args += ["--uid", "0", "--gid", "0", "--cap-add", "CAP_SETFCAP"]
    return args


@dataclass(frozen=True)
class Launch:
    """How bubblewrap starts the command: `program` (through the mount helper or `sandbox_pin.py` where mounts are
    made from inside), whether those need the two capabilities they give up (`pinning`), and bubblewrap's
    `--chdir`."""

    program: list[str]
    pinning: bool
    chdir: str


def launch(
    helper: str | None,
    specs: Sequence[str],
    links: Sequence[str],
    program: list[str],
    *,
    cwd: str,
    drop: str,
    own_dev: bool = False,
) -> Launch:
    """The helper makes `specs` (which hold the links) and enters `cwd` once they are made (bubblewrap enters `/`:
    a directory entered before the mounts, its PID 1's, would lead under them); without a helper, `sandbox_pin.py`
    pins the `links` (bubblewrap made the rest). The capabilities are kept exactly when one of them runs first."""
    if helper is not None:
        if not specs:
            return Launch(program, False, cwd)
        argv = [helper, "--drop", drop, *user_options(own_dev), "--chdir", cwd, *specs, "--", *program]
        return Launch(argv, True, "/")
    if not links:
        return Launch(program, False, cwd)
    pin = Path(__file__).with_name("sandbox_pin.py")
    argv = [sys.executable, "-I", "-S", str(pin), "--drop", drop, *user_options(own_dev), *links, "--", *program]
    return Launch(argv, True, cwd)


def user_options(own_dev: bool) -> list[str]:
    """The mount helper's (or `sandbox_pin.py`'s) `--user`, where bubblewrap runs it as uid 0 of a namespace of its
    own (see `capability_args`)."""
    return ["--user", f"{os.getuid()}:{os.getgid()}"] if own_dev and os.geteuid() != 0 else []
