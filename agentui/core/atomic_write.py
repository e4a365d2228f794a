"""Writing a file whole or not at all, and never through a link swapped in after the permission check."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

from agentui.core.process_dir import current


def atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write `data` to `path` (already resolved, no symlinks) all at once: a temp file in the same directory, then
    a rename. The directory is pinned by a descriptor and checked to still be where `path` says, so a link swapped
    in after the permission check cannot redirect the write; the rename replaces a swapped-in link itself. The file
    keeps the mode it had, unless `mode` is given (0o600 for a secret: the temp file has it from its first byte)."""
    parent = path.parent
    parent.mkdir(parents=True, exist_ok=True)
    dir_fd = os.open(parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        where = _descriptor_path(dir_fd)
        if where is not None and where != parent:
            raise PermissionError(f"{parent} now leads to {where}; nothing was written")
        if mode is None:
            with contextlib.suppress(FileNotFoundError):
                mode = os.stat(path.name, dir_fd=dir_fd, follow_symlinks=False).st_mode & 0o7777
        temp = current().temporary_beside((where or parent) / path.name).name  # (journalled: see process_dir)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(temp, flags, 0o666 if mode is None else mode & 0o777, dir_fd=dir_fd)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                if mode is not None:
                    os.fchmod(handle.fileno(), mode)
                os.fsync(handle.fileno())
            os.replace(temp, path.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp, dir_fd=dir_fd)
            raise
    finally:
        os.close(dir_fd)


def _descriptor_path(fd: int) -> Path | None:
    """Where an open directory really is, or None where the system cannot say."""
    if sys.platform.startswith("linux"):
        return Path(os.readlink(f"/proc/self/fd/{fd}"))
    if sys.platform == "darwin":
        import fcntl

        return Path(fcntl.fcntl(fd, 50, b"\0" * 1024).rstrip(b"\0").decode())  # F_GETPATH
    return None
