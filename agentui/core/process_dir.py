"""One temporary directory per agentui process, removed when the process ends however it ends, and what a process
that could not clean up (SIGKILL, a power cut) left behind, removed at the next start.

Everything temporary lives in `$TMPDIR/agentui-run-<pid>-<start time>`: command output, background shells' output,
parallel attempts' working copies, evaluation clones. Two journals in it name what has to live elsewhere: the files an
Edit writes beside its target before renaming them into place (`beside`), and the repositories where a git worktree
was registered (`worktrees`), whose registrations `git worktree prune` drops once the directory is gone. The pid and
start time tell a live owner from a dead one (or from a later process given the same pid)."""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import secrets
import shutil
import signal
import stat
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

PREFIX = "agentui-run-"
_NAME = re.compile(rf"{re.escape(PREFIX)}(\d+)-(\d+)")
_BESIDE = re.compile(r"\.[^/]+\.agentui-[0-9a-f]{8}\.tmp")
"""What an Edit's temporary file is named; a journal naming anything else is not followed (it could be forged)."""
SIGNAL_GRACE = 5.0
"""Seconds a front end has to end on its own after SIGTERM or SIGHUP before the process cleans up and ends."""


def _start_time(pid: int) -> str | None:
    """The process's start time (clock ticks after boot), which tells it from a later process given the same pid."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


class ProcessDir:
    """The temporary directory of one agentui process (made when first needed)."""

    def __init__(self, root: Path, pid: int, start: str) -> None:
        self.path = root / f"{PREFIX}{pid}-{start}"
        self._lock = threading.Lock()
        self._made = False

    @classmethod
    @contextlib.contextmanager
    def for_test(cls, root: Path, pid: int) -> Iterator[ProcessDir]:
        """The directory a process `pid` would have (its start time taken as 0), for a test to fill as it would."""
        yield cls(root, pid, "0")

    def made(self) -> Path:
        """The directory, made if it is not yet."""
        with self._lock:
            if not self._made:
                self.path.mkdir(mode=0o700, exist_ok=True)
                self._made = True
        return self.path

    def temporary(self, prefix: str) -> Path:
        """A new directory of its own in this process's directory."""
        return Path(tempfile.mkdtemp(prefix=prefix, dir=self.made()))

    def temporary_beside(self, target: Path) -> Path:
        """A name for a temporary file beside `target`, journalled before it exists so that it is removed if the
        process ends before the file is renamed into place."""
        temp = target.with_name(f".{target.name}.agentui-{secrets.token_hex(4)}.tmp")
        self._journal("beside", str(temp))
        return temp

    def worktree_in(self, repository: Path) -> None:
        """A worktree of `repository` is about to be registered, with its directory in this one."""
        self._journal("worktrees", str(repository))

    def _journal(self, name: str, line: str) -> None:
        if "\n" in line:
            return  # (a name with a newline cannot be journalled; such a file is left to the person)
        fd = os.open(self.made() / name, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            os.write(fd, (line + "\n").encode(errors="surrogateescape"))
        finally:
            os.close(fd)

    def clean(self) -> None:
        """Remove the journalled files, the directory, and the worktree registrations that pointed into it."""
        try:
            info = os.lstat(self.path)
        except OSError:
            return
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            return  # (a link, or someone else's: not ours to remove)
        for line in self._read("beside"):
            if _BESIDE.fullmatch(Path(line).name):
                with contextlib.suppress(OSError):
                    os.unlink(line)
        repositories = dict.fromkeys(self._read("worktrees"))
        shutil.rmtree(self.path, ignore_errors=True)
        for repository in repositories:
            _prune_worktrees(Path(repository))

    def _read(self, name: str) -> list[str]:
        try:
            fd = os.open(self.path / name, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            return []
        with os.fdopen(fd, "rb") as handle:
            return [line for line in handle.read(1 << 20).decode(errors="surrogateescape").splitlines() if line]


def _prune_worktrees(repository: Path) -> None:
    from agentui.core.confined_git import GitError, GitMissing, run

    if not (repository / ".git").exists():
        return
    with contextlib.suppress(GitError, GitMissing, OSError):
        run(("worktree", "prune"), cwd=repository, timeout=30)


_current: ProcessDir | None = None
_current_lock = threading.Lock()


def current() -> ProcessDir:
    """This process's directory; removed at exit."""
    global _current
    with _current_lock:
        if _current is None:
            pid = os.getpid()
            _current = ProcessDir(Path(tempfile.gettempdir()), pid, _start_time(pid) or "0")
            atexit.register(_current.clean)
        return _current


def prune_stale(root: Path | None = None) -> list[Path]:
    """At start: remove the directories (and what their journals name) of agentui processes that are gone."""
    root = root or Path(tempfile.gettempdir())
    removed = []
    try:
        names = [entry.name for entry in os.scandir(root) if entry.name.startswith(PREFIX)]
    except OSError:
        return []
    for name in names:
        found = _NAME.fullmatch(name)
        if found is None:
            continue
        pid, start = int(found[1]), found[2]
        if pid == os.getpid() or _start_time(pid) == start:
            continue  # (alive)
        stale = ProcessDir(root, pid, start)
        stale.clean()
        removed.append(stale.path)
    return removed


def end_cleanly_on_signals(on_signal: Callable[[int], object] | None = None) -> None:
    """SIGTERM and SIGHUP (a closed terminal) end the process with its temporary files removed, as an exit would.
    With `on_signal`, the front end is told first and given SIGNAL_GRACE seconds to end on its own (the app restores
    the terminal); otherwise, or after that, the directory is removed and the signal's default action ends the
    process. Children started confined die with it (bubblewrap's --die-with-parent). Main thread only."""

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
        signal.signal(signum, handler)


def _die(signum: int) -> None:
    _kill_children()
    if _current is not None:
        _current.clean()
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
            with contextlib.suppress(OSError):
                children.update(int(pid) for pid in Path(f"/proc/self/task/{task}/children").read_text().split())
    for child in children:
        with contextlib.suppress(OSError):
            group = os.getpgid(child)
            if group == child and group != own_group:
                os.killpg(group, signal.SIGKILL)
            else:
                os.kill(child, signal.SIGKILL)
