"""Stand-ins for protected paths that do not exist yet. bubblewrap needs a mount point to keep a path read-only, and
one it creates itself stays behind in the person's project; so agentui creates the stand-in, binds it, and removes
it once the last command using it has ended, if it is still exactly what was made (same inode, same content, an
empty directory still empty). Commands that overlap share them (a count), and so do agentui processes (each lists
its own in a registry, under one lock: see `registry_in`); a crashed agentui's are removed at the next
start, once its process is gone."""

from __future__ import annotations

import atexit
import base64
import contextlib
import fcntl
import json
import logging
import os
import stat
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agentui.core.process_dir import start_ticks

log = logging.getLogger(__name__)

_LOCK = ".lock"


@dataclass(frozen=True)
class StandIn:
    path: Path
    directory: bool
    content: bytes = b""
    writable: bool = False
    """A missing parent of a protected path: a plain directory (pinned as a mount point, writable inside)."""


@dataclass
class _Held:
    standin: StandIn
    device: int
    inode: int
    count: int = 0


@dataclass
class Lease:
    """The stand-ins one command holds; `present` are the paths that exist now (made, or already there)."""

    keys: list[str] = field(default_factory=list)
    present: set[Path] = field(default_factory=set)
    released: bool = False


class StandIns:
    """This process's stand-ins, registered under `registry` (see `standins_for`)."""

    def __init__(self, registry: Path) -> None:
        self.registry = registry
        self._held: dict[str, _Held] = {}
        self._me = f"{os.getpid()}-{start_ticks(os.getpid()) or 0}"
        self._thread_lock = threading.RLock()
        self._depth = 0

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the registry while a command's mounts are planned and its stand-ins taken: otherwise another
        agentui's stand-in made in between would be planned as the person's file and could go before the command
        mounts it. (Re-entrant: `acquire` inside holds it already.)"""
        with self._locked():
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """The registry's lock (one agentui process, one thread at a time). Where the state directory cannot be
        written, the stand-ins still work, unregistered: only their removal after a crash is lost."""
        with self._thread_lock:
            if self._depth:  # (within `locked`: held already)
                yield
            else:
                with self._file_locked():
                    yield

    @contextlib.contextmanager
    def _file_locked(self) -> Iterator[None]:
        try:
            self.registry.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.registry / _LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        except OSError as exc:
            log.debug("the stand-ins' registry %s cannot be used: %s", self.registry, exc)
            yield
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def acquire(self, wanted: Sequence[StandIn]) -> Lease:
        """Make the missing ones (parents first) and count a use of each; a path that cannot be made here (a
        directory the person cannot write either) is left out of `present`."""
        lease = Lease()
        if not wanted:
            return lease
        with self._locked():
            others = self._others()
            changed = False
            for standin in sorted(wanted, key=lambda s: len(s.path.parts)):
                key = str(standin.path)
                held = self._held.get(key)
                if held is not None and not _same(held):
                    del self._held[key]  # (replaced from outside: no longer ours to remove)
                    held = None
                    changed = True
                if held is None:
                    held = self._make_or_borrow(standin, others)
                    if held is None:
                        if os.path.lexists(standin.path):
                            lease.present.add(standin.path)
                        continue
                    self._held[key] = held
                    changed = True
                held.count += 1
                lease.keys.append(key)
                lease.present.add(standin.path)
            if changed:
                self._write()
        return lease

    def _make_or_borrow(self, standin: StandIn, others: dict[str, list[dict[str, object]]]) -> _Held | None:
        path = standin.path
        try:
            if standin.directory:
                os.mkdir(path, 0o755)
            else:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
                inode = os.fstat(fd).st_ino
                try:
                    with os.fdopen(fd, "wb") as file:
                        file.write(standin.content)
                except OSError:  # (a full disk): made, but not as planned; not left behind as if the person's own
                    with contextlib.suppress(OSError):
                        if os.lstat(path).st_ino == inode:
                            os.unlink(path)
                    raise
        except FileExistsError:
            try:  # another agentui's stand-in: share it, so it is not removed while this one's command runs
                found = os.lstat(path)
            except OSError:
                return None
            for entries in others.values():
                for entry in entries:
                    if entry.get("path") == str(path) and (entry.get("dev"), entry.get("ino")) == (
                        found.st_dev,
                        found.st_ino,
                    ):
                        return _Held(standin, found.st_dev, found.st_ino)
            return None  # the person's own, made since the plan was drawn: it is bound as it is
        except OSError as exc:
            log.debug("stand-in %s not made: %s", path, exc)
            return None
        made = os.lstat(path)
        return _Held(standin, made.st_dev, made.st_ino)

    def held(self) -> list[Path]:
        """The stand-ins this process holds now."""
        return [held.standin.path for held in self._held.values()]

    def in_place(self) -> frozenset[str]:
        """The paths that are stand-ins now, this process's and other running agentui processes' (a command planned
        meanwhile takes its share of them instead of seeing them as the person's)."""
        paths = set(self._held)
        if os.path.isdir(self.registry):
            for entries in self._others().values():
                paths.update(str(entry.get("path")) for entry in entries)
        return frozenset(paths)

    def release(self, lease: Lease) -> list[Path]:
        """Count the command's uses off; remove what no one uses any more and is unchanged. Returns what was removed."""
        if lease.released:
            return []
        lease.released = True
        if not lease.keys:
            return []
        with self._locked():
            for key in lease.keys:
                if key in self._held:
                    self._held[key].count -= 1
            return self._remove_unused()

    def release_all(self) -> list[Path]:
        """agentui is exiting: every stand-in it holds goes (its commands have been stopped)."""
        if not self._held:
            return []
        with self._locked():
            for held in self._held.values():
                held.count = 0
            return self._remove_unused()

    def _remove_unused(self) -> list[Path]:
        unused = [key for key, held in self._held.items() if held.count <= 0]
        if not unused:
            return []
        others = self._others()
        in_use = {(str(e.get("path")), e.get("dev"), e.get("ino")) for entries in others.values() for e in entries}
        removed = []
        for key in sorted(unused, key=lambda k: -len(Path(k).parts)):  # children before their parents
            held = self._held.pop(key)
            if (key, held.device, held.inode) in in_use:
                continue  # another agentui's command still needs it; the last to finish removes it
            if _remove_if_unchanged(held.standin, held.device, held.inode):
                removed.append(held.standin.path)
        self._write()
        return removed

    def _entries(self) -> list[dict[str, object]]:
        return [
            {
                "path": key,
                "directory": held.standin.directory,
                "content": base64.b64encode(held.standin.content).decode(),
                "dev": held.device,
                "ino": held.inode,
            }
            for key, held in self._held.items()
        ]

    def _write(self) -> None:
        mine = self.registry / f"{self._me}.json"
        try:
            if not self._held:
                with contextlib.suppress(FileNotFoundError):
                    mine.unlink()
                return
            temporary = self.registry / f".{self._me}.json.tmp"
            temporary.write_text(json.dumps({"held": self._entries()}))
            os.replace(temporary, mine)
        except OSError as exc:
            log.debug("the stand-ins' registry %s cannot be written: %s", self.registry, exc)

    def _others(self) -> dict[str, list[dict[str, object]]]:
        """The registries of other agentui processes still running."""
        found: dict[str, list[dict[str, object]]] = {}
        for owner, entries in _registries(self.registry):
            if owner != self._me and _alive(owner):
                found[owner] = entries
        return found


def _registries(registry: Path) -> Iterator[tuple[str, list[dict[str, object]]]]:
    try:
        names = [name for name in os.listdir(registry) if name.endswith(".json") and not name.startswith(".")]
    except OSError:
        return
    for name in names:
        try:
            data = json.loads((registry / name).read_text())
            entries = [e for e in data.get("held", []) if isinstance(e, dict)]
        except (OSError, ValueError, AttributeError):
            entries = []
        yield name[: -len(".json")], entries


def _alive(owner: str) -> bool:
    pid_text, _, start = owner.partition("-")
    try:
        pid = int(pid_text)
    except ValueError:
        return False
    return str(start_ticks(pid)) == start


def _same(held: _Held) -> bool:
    try:
        found = os.lstat(held.standin.path)
    except OSError:
        return False
    return (found.st_dev, found.st_ino) == (held.device, held.inode)


def _remove_if_unchanged(standin: StandIn, device: int, inode: int) -> bool:
    path = standin.path
    try:
        found = os.lstat(path)
        if (found.st_dev, found.st_ino) != (device, inode):
            return False
        if standin.directory:
            if not stat.S_ISDIR(found.st_mode):
                return False
            os.rmdir(path)  # (fails, and so keeps it, if anything was put inside)
            return True
        if not stat.S_ISREG(found.st_mode) or found.st_size != len(standin.content):
            return False
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as file:
            if file.read(len(standin.content) + 1) != standin.content:
                return False
        os.unlink(path)
        return True
    except OSError:
        return False


def recover(registry: Path) -> list[Path]:
    """At start-up: remove the stand-ins of agentui processes that are gone (a crash, a kill), unless a live one shares
    them or someone changed them. Returns what was removed."""
    if not registry.is_dir():
        return []
    standins = standins_for(registry)
    removed: list[Path] = []
    with standins._locked():
        registries = dict(_registries(registry))
        live = {owner for owner in registries if owner == standins._me or _alive(owner)}
        in_use = {
            (str(e.get("path")), e.get("dev"), e.get("ino")) for owner in live for e in registries.get(owner, [])
        } | {(key, held.device, held.inode) for key, held in standins._held.items()}
        for owner, entries in registries.items():
            if owner in live:
                continue
            for entry in sorted(entries, key=lambda e: -len(Path(str(e.get("path"))).parts)):
                key = (str(entry.get("path")), entry.get("dev"), entry.get("ino"))
                if key in in_use:
                    continue
                try:
                    standin = StandIn(
                        Path(key[0]), bool(entry.get("directory")), base64.b64decode(str(entry.get("content", "")))
                    )
                    device, inode = int(str(entry.get("dev"))), int(str(entry.get("ino")))
                except ValueError:
                    continue
                if _remove_if_unchanged(standin, device, inode):
                    removed.append(standin.path)
            with contextlib.suppress(OSError):
                (registry / f"{owner}.json").unlink()
    return removed


_BY_REGISTRY: dict[Path, StandIns] = {}


def registry_in(env: Mapping[str, str] | None = None) -> Path:
    """Where this process registers its stand-ins: agentui's state directory, or as root one place for the machine,
    since root's stand-ins include /etc's, which every agentui run as root shares whatever HOME or state directory
    it was given (each would otherwise take another's stand-in for the person's file and lose it mid-command)."""
    from agentui.core.dirs import MACHINE_STATE, state_dir

    if os.geteuid() == 0:
        return MACHINE_STATE / "standins"

    return state_dir(env) / "standins"


def standins_in(env: Mapping[str, str] | None = None) -> StandIns:
    """The StandIns of this process (see `registry_in`)."""
    return standins_for(registry_in(env))


def standins_for(registry: Path) -> StandIns:
    """The one StandIns of this process for a registry directory."""
    found = _BY_REGISTRY.get(registry)
    if found is None:
        found = _BY_REGISTRY[registry] = StandIns(registry)
    return found


_BEFORE_EXIT: list[Callable[[], None]] = []


def before_release_at_exit(stop: Callable[[], None]) -> None:
    """Have `stop` run at exit before the stand-ins go (it ends the commands using them: background shells)."""
    if stop not in _BEFORE_EXIT:
        _BEFORE_EXIT.append(stop)


@atexit.register
def _release_everything() -> None:
    for stop in _BEFORE_EXIT:
        stop()
    for standins in list(_BY_REGISTRY.values()):
        try:
            standins.release_all()
        except OSError as exc:
            log.debug("stand-ins not released at exit: %s", exc)
