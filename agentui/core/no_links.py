"""Opening a path as it was checked: the permission check resolves a path as the kernel would and decides on where
it leads; a part of it swapped for a symbolic link after that (by a program running meanwhile) must not send the
open somewhere else. So the real path is opened one part at a time, following no link, and a link found on the way
fails the open (ELOOP or ENOTDIR) instead of being followed."""

from __future__ import annotations

import os
from pathlib import Path

_WALK = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def open_no_links(path: Path, flags: int) -> int:
    """A descriptor for the absolute, resolved `path` opened with `flags`, reached through no symbolic link. Raises
    OSError (ELOOP, ENOTDIR, ENOENT, ...) where the path is no longer what was resolved."""
    if not path.is_absolute():
        raise ValueError(f"{path} is not absolute")
    *parents, last = path.parts[1:] or ("",)
    directory = os.open("/", _WALK)
    try:
        for part in parents:
            inner = os.open(part, _WALK, dir_fd=directory)
            os.close(directory)
            directory = inner
        if not last:  # (the root itself)
            return os.open("/", flags | os.O_CLOEXEC)
        return os.open(last, flags | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=directory)
    finally:
        os.close(directory)
