"""A lock file beside what several agentui processes change by read, change and write back: one writer at a time,
and a wait with a ceiling, so a process stopped while it holds the lock (SIGSTOP, a debugger) holds up no other for
ever. The kernel releases the lock of a process that dies."""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

from agentui.core.errors import AgentuiError

LOCK_WAIT = 10.0
"""Seconds to wait for another process's change to end: a change takes milliseconds, so this is only reached when
the holder is stuck."""


class LockBusyError(AgentuiError):
    """Another process held the lock for longer than the wait (one sentence)."""


@contextlib.contextmanager
def locked(lock: Path, *, wait: float | None = None) -> Iterator[None]:
    """Hold `lock` (a directory, or a file made if missing; never followed if a link) for the block. Raises OSError
    when it cannot be made, LockBusyError when another process keeps it past `wait` seconds (LOCK_WAIT unless
    given)."""
    wait = LOCK_WAIT if wait is None else wait
    if lock.is_dir():  # (a directory is locked as it is: no lock file is left beside what it holds)
        fd = os.open(lock, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | os.O_NOFOLLOW)
    else:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockBusyError(
                        f"Another agentui process has held {lock} for over {wait:g} s; try again, or end that process."
                    ) from None
                time.sleep(0.02)
        yield
    finally:
        os.close(fd)  # (closing releases the lock)
