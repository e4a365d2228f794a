"""What outside the project a command may read without a question because it describes the machine or its software
and every user of the machine may read it: the installed software under /usr (headers, libraries' sources,
documentation), the files naming the system (`cat /etc/os-release`, `head /proc/cpuinfo`), and, for a listing,
the software's directories (`ls /usr/bin`). Not the rest of /etc
(accounts, services' configuration), /opt (applications' own configuration), the home, temporary files, devices, or
what /proc and /sys say about processes.

Deny and ask rules are checked before this, and a recursive read outside the project still asks."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from agentui.core.workspace import is_within

SOFTWARE = Path("/usr")
"""The installed software: owned by root, written only by the package manager and installers."""
SYSTEM_FILES = frozenset(
    Path(f"/etc/{name}")
    for name in ("os-release", "lsb-release", "debian_version", "redhat-release", "alpine-release", "system-release",
                 "hosts", "timezone", "issue", "shells")
)  # fmt: skip
"""The files in /etc that say what system this is (the rest of /etc configures accounts and services)."""
PROC_FILES = frozenset(
    Path(f"/proc/{name}") for name in ("cpuinfo", "meminfo", "version", "loadavg", "uptime", "filesystems")
)
"""What the kernel tells every process about the machine (not about other processes)."""


def public_file(real: Path, home: Path) -> bool:
    """`real` (every link followed) is a regular file of the system's own that every user may read: one of those
    above, owned by root, readable by others, in a directory tree owned by root that others may enter, and not under
    the home."""
    if real in PROC_FILES:
        return True
    if not (real in SYSTEM_FILES or is_within(real, SOFTWARE)) or is_within(real, home):
        return False
    try:
        info = os.stat(real)
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode) or info.st_uid != 0 or not info.st_mode & stat.S_IROTH:
        return False
    return _open_to_all(real.parent, root_owned=True)


def public_listing(real: Path, home: Path) -> bool:
    """Listing the directory `real` shows the names of installed software (a directory under /usr every user may
    read and enter). Not the home's: what the person keeps there, and where, is theirs (`ls ~` asks, as in Claude
    Code)."""
    if not is_within(real, SOFTWARE) or is_within(real, home):
        return False
    try:
        info = os.stat(real)
    except OSError:
        return False
    wanted = stat.S_IROTH | stat.S_IXOTH
    if not stat.S_ISDIR(info.st_mode) or info.st_mode & wanted != wanted:
        return False
    return _open_to_all(real.parent, root_owned=True)


def _open_to_all(directory: Path, *, root_owned: bool) -> bool:
    """Every directory from `directory` up to / may be entered by others (and, `root_owned`, belongs to root)."""
    for each in (directory, *directory.parents):
        try:
            info = os.stat(each)
        except OSError:
            return False
        if not info.st_mode & stat.S_IXOTH or (root_owned and info.st_uid != 0):
            return False
    return True
