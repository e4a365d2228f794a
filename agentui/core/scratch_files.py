"""agentui's own files in a workspace's scratch directory (output spills, background output, private copies), made so
that no command can redirect them: created with O_CREAT|O_EXCL|O_NOFOLLOW through a descriptor of the directory
opened when it was made, so a link a command planted, at the name or in place of a directory, is never written
through. Commands get a corner of their own (`commands/`: their $TMPDIR in the sandbox, the file the EXIT trap
writes the working directory to), the only part of the scratch directory a sandboxed or guarded command can write.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path
from typing import BinaryIO

COMMANDS = "commands"
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class ScratchFiles:
    """The scratch directory as agentui writes it; one per directory (see `scratch_files`)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._fd = os.open(root, _DIRECTORY)
        self._commands: tuple[Path, int, int] | None = None
        self._subdirectories: dict[str, str] = {}

    def directory(self, name: str) -> tuple[Path, int]:
        """A subdirectory of agentui's own (made if missing) and a descriptor of it the caller closes. Should a link
        or anything but a directory be at the name (left by a command), another name is used from then on."""
        actual = self._subdirectories.get(name, name)
        while True:
            with contextlib.suppress(FileExistsError):
                os.mkdir(actual, 0o700, dir_fd=self._fd)
            try:
                fd = os.open(actual, _DIRECTORY, dir_fd=self._fd)
            except OSError:  # ELOOP or ENOTDIR: not ours
                actual = f"{name}-{secrets.token_hex(4)}"
                continue
            self._subdirectories[name] = actual
            return self.root / actual, fd

    def create(self, subdirectory: str | None, name: str) -> tuple[Path, BinaryIO]:
        """A new file `name` (in `subdirectory`, if given), open for writing; FileExistsError if anything, a link
        included, is already there."""
        if subdirectory is None:
            fd = os.open(name, _CREATE, 0o600, dir_fd=self._fd)
            return self.root / name, os.fdopen(fd, "wb")
        directory, dir_fd = self.directory(subdirectory)
        try:
            fd = os.open(name, _CREATE, 0o600, dir_fd=dir_fd)
        finally:
            os.close(dir_fd)
        return directory / name, os.fdopen(fd, "wb")

    def create_unique(self, subdirectory: str | None, preferred: str) -> tuple[Path, BinaryIO]:
        """`preferred`, or, if something is already there, the same name with a random part added."""
        stem, dot, suffix = preferred.rpartition(".") if "." in preferred else (preferred, "", "")
        name = preferred
        while True:
            try:
                return self.create(subdirectory, name)
            except FileExistsError:
                name = f"{stem}-{secrets.token_hex(4)}{dot}{suffix}"

    def commands_dir(self) -> Path:
        """The commands' own writable directory. Checked before each command: should anything but the directory
        agentui made be found there (a link planted by a command run without confinement), a new one is made."""
        if self._commands is not None:
            path, device, inode = self._commands
            try:
                found = os.lstat(path)
            except OSError:
                found = None
            if found is not None and stat.S_ISDIR(found.st_mode) and (found.st_dev, found.st_ino) == (device, inode):
                return path
        name = COMMANDS
        while True:
            try:
                os.mkdir(name, 0o700, dir_fd=self._fd)
                break
            except FileExistsError:
                name = f"{COMMANDS}-{secrets.token_hex(4)}"
        made = os.stat(name, dir_fd=self._fd, follow_symlinks=False)
        self._commands = (self.root / name, made.st_dev, made.st_ino)
        return self.root / name


_OPENED: dict[Path, ScratchFiles] = {}


def scratch_files(root: Path) -> ScratchFiles:
    """The ScratchFiles of a scratch directory, opened at its first use (before any command ran in it)."""
    files = _OPENED.get(root)
    if files is None:
        files = _OPENED[root] = ScratchFiles(root)
    return files


def read_small_file(path: Path, limit: int = 65536) -> bytes | None:
    """The bytes of a regular file of at most `limit` bytes, read without following a link and without waiting on a
    FIFO; None for anything else (missing, a link, a FIFO, a directory, too large)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode) or found.st_size > limit:
            return None
        return os.read(fd, limit + 1)[:limit]
    except OSError:
        return None
    finally:
        os.close(fd)
