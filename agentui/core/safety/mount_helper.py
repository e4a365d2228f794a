"""The mount helper (mount_helper.c): built once with the system's C compiler into agentui's data directory, which no
confined command can write, and checked to work here under bubblewrap; where either fails, there is none and
bubblewrap makes the mounts itself (the same protection, ~15 ms slower per guarded command)."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import shutil
import stat
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path

SOURCE = Path(__file__).with_name("mount_helper.c")
# The compiler is the system's, found where the system keeps it: never one a project put first on PATH.
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
_COMPILERS = ("cc", "gcc", "clang")

_lock = threading.Lock()
_found: dict[tuple[str, ...], tuple[tuple[int, ...], str] | None] = {}
"""By helper path and probe: the helper's identity and digest when it was checked, or None where there is none."""


def helper_path(env: Mapping[str, str] | None = None) -> Path:
    """Where the helper for this source lives (its name carries the source's digest: an upgrade builds a new one)."""
    from agentui.core.dirs import data_dir

    return data_dir(env) / "bin" / f"mount-helper-{_digest()}"


@functools.cache
def _digest() -> str:
    return hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]


def mount_helper(
    probe: tuple[str, ...], env: Mapping[str, str] | None = None, options: tuple[str, ...] = ()
) -> str | None:
    """The helper's path, built if need be, once `probe` (bubblewrap's arguments up to the program, as the caller
    will run it) has run it with `options` (its own, as the caller will give them: `--user`); None where it cannot
    be built or run. Known after the first call; each later call checks that the file is still the one checked (one
    stat), and builds it again if its content changed."""
    path = helper_path(env)
    key = (str(path), *probe, "--", *options)
    with _lock:
        seen = key in _found
        if seen:
            found = _found[key]
            if found is None:
                return None
            identity, content = found
            if _identity(path) == identity:
                return str(path)
            if _trusted(path) and _content(path) == content:  # (another agentui built the same anew)
                _found[key] = (_identity(path), content)
                return str(path)
        built = _build(path, again=seen) and _works(probe, path, options)
        _found[key] = (_identity(path), _content(path)) if built else None
        return str(path) if built else None


def _identity(path: Path) -> tuple[int, ...]:
    """What changes whenever the file is written, replaced or has its mode changed (the change time cannot be set
    back by a program)."""
    try:
        info = os.stat(path)
    except OSError:
        return ()
    return (info.st_dev, info.st_ino, info.st_size, info.st_ctime_ns, info.st_mode, info.st_uid)


def _content(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


def forget() -> None:
    """Ask again at the next call (for tests that remove the helper or change what bubblewrap can do)."""
    with _lock:
        _found.clear()


def _trusted(path: Path, kind: int = stat.S_IFREG) -> bool:
    """Ours and written by no one else: `path` (of `kind`) and its directory, owned by this user, not group- or
    world-writable."""
    try:
        directory, info = os.lstat(path.parent), os.lstat(path)
    except OSError:
        return False
    owned = all(i.st_uid == os.geteuid() and not i.st_mode & 0o022 for i in (directory, info))
    return owned and stat.S_IFMT(info.st_mode) == kind


def _build(path: Path, *, again: bool = False) -> bool:
    if _trusted(path) and not again:
        return True
    compiler = next((found for name in _COMPILERS if (found := shutil.which(name, path=SYSTEM_PATH))), None)
    if compiler is None:
        return False
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not _trusted(path.parent, stat.S_IFDIR):
            return False
        _remove_stale_builds(path.parent)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".building-")
        os.close(handle)
    except OSError:
        return False
    try:
        done = subprocess.run(
            [compiler, "-O2", "-o", temporary, str(SOURCE)],
            cwd=path.parent,
            env={"PATH": SYSTEM_PATH, "LC_ALL": "C"},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=120,
        )
        if done.returncode != 0:
            return False
        os.chmod(temporary, 0o755)
        os.replace(temporary, path)  # (atomic: two agentui starting at once each build, and one wins)
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        Path(temporary).unlink(missing_ok=True)
    return _trusted(path)


def _remove_stale_builds(directory: Path) -> None:
    """What a build killed midway left (another agentui's may be under way: only one an hour old goes)."""
    for stale in directory.glob(".building-*"):
        with contextlib.suppress(OSError):
            if time.time() - stale.lstat().st_mtime > 3600:
                stale.unlink()


def _works(probe: tuple[str, ...], path: Path, options: tuple[str, ...]) -> bool:
    """It binds read-only, pins a link and gives up its capabilities here (new mount API: Linux 5.12 and later)."""
    from agentui.core.process_dir import current

    # (in this process's own directory: a kill midway leaves nothing the next start does not remove)
    with tempfile.TemporaryDirectory(prefix="probe-", dir=current().made()) as directory:
        target, link = Path(directory, "file"), Path(directory, "link")
        target.write_text("")
        link.symlink_to(target)
        argv = [*probe, "--", str(path), "--drop", "all", *options, "--chdir", "/", f"r{target}", f"l{link}"]
        argv += ["--", "/bin/true"]
        try:
            return subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=30).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            return False
