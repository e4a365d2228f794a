"""One temporary directory per agentui process, removed when the process ends however it ends, and what a process
that could not clean up (SIGKILL, a power cut) left behind, removed at the next start.

Everything temporary lives in `$TMPDIR/agentui-run-XXXXXXXX` (made by mkdtemp: a random name, 0700, ours alone):
command output, background shells' output, parallel attempts' working copies, evaluation clones. Its owner holds an
exclusive lock on its `lock` file for as long as it lives; a directory whose lock can be taken is a dead process's
(pids cannot tell: another pid namespace, no /proc, a TMPDIR shared between machines). Two journals in it name what
has to live elsewhere: the files an Edit writes beside its target before renaming them into place (`beside`), and
the worktrees registered in a repository for attempts (`worktrees`), whose registrations are dropped once their
directory is gone (only those: never the person's own worktrees)."""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import re
import shutil
import signal
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import FrameType
from typing import Any

PREFIX = "agentui-run-"
_LOCK = "lock"
_BESIDE = re.compile(r"\.[^/]+\.agentui-[0-9a-f]{8}\.tmp")
"""What an Edit's temporary file is named; a journal naming anything else is not followed (it could be forged)."""
SIGNAL_GRACE = 5.0
"""Seconds a front end has to end on its own after SIGTERM or SIGHUP before the process cleans up and ends."""
UNLOCKED_GRACE = 60.0
"""A directory with no lock file yet is being made (or its maker died at once): left alone while this young."""
_JOURNAL_LIMIT = 1 << 20
SPAWN_MARK = "AGENTUI_SPAWN"
"""The variable that carries a started program's mark in its environment (and its children's)."""


class ProcessDir:
    """The temporary directory of one agentui process: made when first needed, and made again if something removed
    it meanwhile (a tmp cleaner on a long session)."""

    def __init__(self, root: Path, path: Path | None = None) -> None:
        self.root = root
        self.path: Path | None = path
        self._lock = threading.Lock()
        self._lock_fd = -1

    @classmethod
    @contextlib.contextmanager
    def for_test(cls, root: Path) -> Iterator[ProcessDir]:
        """A directory as a process that has since died would leave it (its lock released), for a test to fill."""
        made = cls(root)
        made.made()
        try:
            yield made
        finally:
            made._release()

    def made(self) -> Path:
        """The directory, made (and locked) if it is not there."""
        with self._lock:
            if self.path is None or self._lock_fd < 0 or not self.path.is_dir():
                self._release()
                path = Path(tempfile.mkdtemp(prefix=PREFIX, dir=self.root))
                fd = os.open(path / _LOCK, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
                fcntl.flock(fd, fcntl.LOCK_EX)
                self.path, self._lock_fd = path, fd
            return self.path

    def _release(self) -> None:
        if self._lock_fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._lock_fd)
            self._lock_fd = -1

    def temporary(self, prefix: str) -> Path:
        """A new directory of its own in this process's directory."""
        return Path(tempfile.mkdtemp(prefix=prefix, dir=self.made()))

    def temporary_beside(self, target: Path) -> Path:
        """A name for a temporary file beside `target`, journalled (where the journal can be written) before it
        exists, so that it is removed if the process ends before the file is renamed into place."""
        # (os.urandom, as secrets.token_hex does, without importing secrets and hmac on the way to the first frame)
        temp = target.with_name(f".{target.name}.agentui-{os.urandom(4).hex()}.tmp")
        with contextlib.suppress(OSError):  # (a full or missing TMPDIR must not stop the write itself)
            self._journal("beside", str(temp))
        return temp

    def worktree_at(self, repository: Path, worktree: Path) -> None:
        """A worktree of `repository` is about to be registered at `worktree`, inside this directory."""
        with contextlib.suppress(OSError):
            self._journal("worktrees", f"{repository}\0{worktree}")

    def about_to_start(self, env: Mapping[str, str]) -> tuple[str, dict[str, str]]:
        """A program is about to be started in a session of its own: a mark for it, journalled before it exists, and
        its environment carrying the mark. Its group is journalled only once it has started (own_group), which is a
        few turns of the event loop later; if this process dies between the two, the next start ends the session of
        whatever carries an unmatched mark."""
        mark = os.urandom(8).hex()
        with contextlib.suppress(OSError):
            self._journal("marks", mark)
        return mark, {**env, SPAWN_MARK: mark}

    def own_group(self, leader: int, mark: str | None = None) -> None:
        """A process group (and session) this process started, led by `leader` (and given `mark` by
        about_to_start): whatever is left of it when the directory is cleaned is ended (a command whose bubblewrap
        lost its parent at the wrong moment outlives a SIGKILL; the next start ends it)."""
        start = start_ticks(leader)
        with contextlib.suppress(OSError):
            if start is not None:
                self._journal("groups", f"{leader} {start}")
            if mark is not None:
                self._journal("started", mark)

    def _journal(self, name: str, line: str) -> None:
        if "\n" in line:
            return  # (a name with a newline cannot be journalled; such a file is left to the person)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        fd = os.open(self.made() / name, flags, 0o600)
        try:
            if _ours(os.fstat(fd)):
                os.write(fd, (line + "\n").encode(errors="surrogateescape"))
        finally:
            os.close(fd)

    def clean(self) -> None:
        """Remove the journalled files, the worktree registrations made here, and the directory."""
        path = self.path
        if path is None or _our_directory(path) is None:
            return  # (gone, a link, or someone else's: not ours to remove)
        for line in self._read(path, "beside"):
            if _BESIDE.fullmatch(Path(line).name):
                with contextlib.suppress(OSError):
                    os.unlink(line)
        _end_groups(self._read(path, "groups"))
        _end_marked(set(self._read(path, "marks")) - set(self._read(path, "started")))
        for line in self._read(path, "worktrees"):
            repository, _, worktree = line.partition("\0")
            if worktree and _within(Path(worktree), path):
                _drop_registration(Path(repository), Path(worktree))
        _remove_tree(path)
        self._release()

    @staticmethod
    def _read(path: Path, name: str) -> list[str]:
        try:
            fd = os.open(path / name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            return []
        with os.fdopen(fd, "rb") as handle:
            if not _ours(os.fstat(fd)):
                return []
            return [line for line in handle.read(_JOURNAL_LIMIT).decode(errors="surrogateescape").splitlines() if line]


def _stat_fields(pid: int | str) -> list[str] | None:
    """/proc/PID/stat's fields after the command name (state is [0], pgrp [2], session [3], start time [19])."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def start_ticks(pid: int | str) -> int | None:
    """The process's start time (clock ticks after boot), which tells it from a later process given the same pid."""
    fields = _stat_fields(pid)
    return int(fields[19]) if fields and len(fields) > 19 else None


def _end_groups(lines: list[str]) -> None:
    """SIGKILL to what is left of each journalled session. A session id is not given to a new process while any
    member of the old session lives; so a session whose leader is gone, or is still the same process (same start
    time), is ours, and one whose leader is another process (the id given again) is not."""
    recorded: dict[int, int] = {}
    for line in lines:
        with contextlib.suppress(ValueError):
            leader, start = (int(part) for part in line.split())
            recorded[leader] = start
    if not recorded:
        return
    for session, pids in _sessions().items():
        if session not in recorded:
            continue
        leader_start = start_ticks(session)
        if leader_start is not None and leader_start != recorded[session]:
            continue  # (the id belongs to another process now)
        _kill(pids)


def _end_marked(marks: set[str]) -> None:
    """SIGKILL to the processes whose environment carries one of `marks` (programs started just before this process
    died, whose groups it never journalled), and to the whole session of each whose leader carries it too (or is
    gone): what the program started there. A session whose leader does not carry the mark (a daemon the program fed
    its environment to) loses only its marked processes. Never this process's own session, and never a process that
    is not the one found (its start time is checked again before the signal)."""
    if not marks:
        return
    wanted = {f"{SPAWN_MARK}={mark}".encode() for mark in marks}
    own = os.getsid(0)
    found: dict[int, tuple[int, int]] = {}  # (pid -> its start time and session)
    with contextlib.suppress(OSError):
        for name in filter(str.isdigit, os.listdir("/proc")):
            with contextlib.suppress(OSError), open(f"/proc/{name}/environ", "rb") as environ:
                if wanted.intersection(environ.read(_JOURNAL_LIMIT).split(b"\0")):
                    fields = _stat_fields(name)
                    if fields is not None and len(fields) > 19 and int(fields[3]) != own:
                        found[int(name)] = (int(fields[19]), int(fields[3]))
    sessions = _sessions()
    for session in {session for _, session in found.values()}:
        leader = start_ticks(session)
        if leader is None or (session in found and found[session][0] == leader):
            _kill(sessions.get(session, []))
    for pid, (started, _) in found.items():
        if start_ticks(pid) == started:
            _kill([pid])


def _sessions() -> dict[int, list[int]]:
    """The live (not zombie) processes of each session, by session id."""
    members: dict[int, list[int]] = {}
    with contextlib.suppress(OSError):
        for name in filter(str.isdigit, os.listdir("/proc")):
            fields = _stat_fields(name)
            if fields is None or len(fields) < 4 or fields[0] == "Z":
                continue
            with contextlib.suppress(ValueError):
                members.setdefault(int(fields[3]), []).append(int(name))
    return members


def _kill(pids: list[int]) -> None:
    for pid in pids:
        if pid != os.getpid():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def _our_directory(path: Path) -> os.stat_result | None:
    """The directory's own status (a link is not followed) if it is a directory of this user's, else None."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() else None


def _ours(info: os.stat_result) -> bool:
    """A regular file of this user's (a journal that is a FIFO would hang whoever opens it to read)."""
    return stat.S_ISREG(info.st_mode) and info.st_uid == os.getuid()


def _within(path: Path, directory: Path) -> bool:
    return os.path.normpath(path).startswith(os.path.normpath(directory) + os.sep)


def _drop_registration(repository: Path, worktree: Path) -> None:
    """Remove `repository`'s registration of `worktree` (its `.git/worktrees/<id>` entry, found by the `gitdir` file
    that points into it), and no other: `git worktree prune` would drop every worktree whose directory is missing,
    the person's on an unmounted drive too."""
    with contextlib.suppress(OSError):
        registrations = repository / ".git" / "worktrees"
        for entry in os.scandir(registrations):
            if not entry.is_dir(follow_symlinks=False):
                continue
            with contextlib.suppress(OSError):
                points_to = (Path(entry.path) / "gitdir").read_text(errors="surrogateescape").strip()
                if _within(Path(points_to), worktree) or Path(points_to).parent == worktree:
                    _remove_tree(Path(entry.path))


def _remove_tree(path: Path) -> None:
    """As `rm -rf`: a directory a command made read-only is made writable to be emptied."""

    def writable_and_again(function: Callable[..., Any], name: str, _: object) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(name), 0o700)
            if os.path.isdir(name) and not os.path.islink(name):
                os.chmod(name, 0o700)
                shutil.rmtree(name, ignore_errors=True)
            else:
                function(name)

    shutil.rmtree(path, onerror=writable_and_again)


_current: ProcessDir | None = None
_current_lock = threading.Lock()


def current() -> ProcessDir:
    """This process's directory; removed at exit."""
    global _current
    with _current_lock:
        if _current is None:
            _current = ProcessDir(Path(tempfile.gettempdir()))
            atexit.register(_current.clean)
        return _current


def prune_stale(root: Path | None = None) -> list[Path]:
    """At start: remove the directories (and what their journals name) of agentui processes that are gone. Never
    fails: a missing or unreadable TMPDIR is nothing to prune."""
    os.environ.pop(SPAWN_MARK, None)  # (an agentui started by a marked program: its own children get their own marks)
    try:
        root = root or Path(tempfile.gettempdir())
        names = [entry.name for entry in os.scandir(root) if entry.name.startswith(PREFIX)]
    except OSError:
        return []
    removed = []
    for name in names:
        path = root / name
        if _current is not None and path == _current.path:
            continue
        try:
            if not _abandoned(path):
                continue
        except OSError:
            continue
        ProcessDir(root, path).clean()
        if not os.path.lexists(path):
            removed.append(path)
    return removed


def _abandoned(path: Path) -> bool:
    """Whether the directory is ours and no live process holds its lock."""
    info = _our_directory(path)
    if info is None:
        return False
    try:
        fd = os.open(path / _LOCK, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return time.time() - info.st_mtime > UNLOCKED_GRACE
    try:
        if not _ours(os.fstat(fd)):
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # (alive)
        return True
    finally:
        os.close(fd)


def end_cleanly_on_signals(on_signal: Callable[[int], object] | None = None) -> None:
    """SIGTERM and SIGHUP (a closed terminal) end the process as an exit would: what it started ends with it, its
    exit handlers run (stand-ins, background shells) and its temporary files go. With `on_signal`, the front end is
    told first and given SIGNAL_GRACE seconds to end on its own (the app restores the terminal). A signal ignored
    when agentui started (`nohup`) stays ignored. Main thread only."""

    def handler(signum: int, frame: FrameType | None) -> None:
        if on_signal is not None:
            try:
                on_signal(signum)
            except Exception:  # (the front end has gone already: end now)
                _die(signum)
            timer = threading.Timer(SIGNAL_GRACE, _die, (signum,))
            timer.daemon = True
            timer.start()
            return
        _die(signum)

    for signum in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, handler)


def _die(signum: int) -> None:
    _kill_children()
    with contextlib.suppress(Exception):
        atexit._run_exitfuncs()  # (this directory's removal among them; the default action or _exit skips them)
    if threading.current_thread() is not threading.main_thread():  # (the grace timer: signal() is main-thread only)
        os._exit(128 + signum)
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _kill_children() -> None:
    """Every program this process started, with the process group each leads (hooks, background shells and
    commands run in groups of their own): a signal that ends agentui ends them too."""
    own_group = os.getpgrp()
    children: set[int] = set()
    with contextlib.suppress(OSError):
        for task in os.listdir("/proc/self/task"):
            with contextlib.suppress(OSError, ValueError):
                children.update(int(pid) for pid in Path(f"/proc/self/task/{task}/children").read_text().split())
    for child in children:
        with contextlib.suppress(OSError):
            group = os.getpgid(child)
            if group == child and group != own_group:
                os.killpg(group, signal.SIGKILL)
            else:
                os.kill(child, signal.SIGKILL)
