"""Where git takes configuration and hooks from for a directory: the config files it reads (system, global,
repository, and whatever they include, conditional includes too), the hooks directory `core.hooksPath` names, and
the excludes file. Read with `git config --list --show-origin`, which runs nothing, and remembered until one of the
files it depends on changes."""

from __future__ import annotations

import logging
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

_TIMEOUT = 5.0
# Variables that would make `git config` read something else than what the commands' git reads, or wait on anyone.
_DROPPED = ("GIT_CONFIG_NOSYSTEM", "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES", "GIT_PAGER")


@dataclass(frozen=True)
class GitConfigPaths:
    files: tuple[Path, ...] = ()
    """Config files git read."""
    includes: tuple[Path, ...] = ()
    """Files named by include.path and includeIf.*.path (read now, or once their condition holds; may not exist)."""
    hooks: tuple[Path, ...] = ()
    """Directories core.hooksPath names (each value set, the last one being the one in force)."""
    excludes_file: Path | None = None
    """core.excludesFile, else git's default ($XDG_CONFIG_HOME/git/ignore)."""


_Key = tuple[tuple[str, int, int, int] | tuple[str], ...]
_CACHE: dict[tuple[str, tuple[tuple[str, str], ...]], tuple[_Key, GitConfigPaths]] = {}


def git_config_paths(directory: Path, env: Mapping[str, str]) -> GitConfigPaths:
    """What git reads in `directory` (in a repository or not) with the environment commands get."""
    env_key = tuple(sorted((k, v) for k, v in env.items() if k.startswith("GIT_") or k in ("HOME", "XDG_CONFIG_HOME")))
    cache_key = (str(directory), env_key)
    cached = _CACHE.get(cache_key)
    toplevel = _toplevel(directory)
    if cached is not None and cached[0] == _stat_key(cached[1], directory, toplevel, env):
        return cached[1]
    paths = _read(directory, toplevel, env)
    _CACHE[cache_key] = (_stat_key(paths, directory, toplevel, env), paths)
    return paths


def _read(directory: Path, toplevel: Path | None, env: Mapping[str, str]) -> GitConfigPaths:
    run_env = {k: v for k, v in env.items() if k not in _DROPPED}
    run_env.update(GIT_PAGER="cat", GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0")
    try:
        done = subprocess.run(
            ["git", "--no-pager", "config", "--list", "--show-origin", "--includes", "-z"],
            cwd=directory,
            env=run_env,
            capture_output=True,
            timeout=_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        log.debug("git config could not be read in %s: %s", directory, exc)
        return GitConfigPaths(excludes_file=_default_excludes(env))
    files: dict[Path, None] = {}
    includes: dict[Path, None] = {}
    hooks: dict[Path, None] = {}
    excludes: Path | None = None
    fields = done.stdout.split(b"\0")
    home = env.get("HOME") or str(Path.home())
    for origin, entry in zip(fields[::2], fields[1::2], strict=False):
        origin_text = os.fsdecode(origin)
        source = Path(origin_text[5:]) if origin_text.startswith("file:") else None
        if source is not None:
            source = source if source.is_absolute() else directory / source
            files[source] = None
        key, _, value_bytes = entry.partition(b"\n")
        name, value = key.decode(errors="replace").lower(), os.fsdecode(value_bytes)
        if not value:
            continue
        if name == "include.path" or (name.startswith("includeif.") and name.endswith(".path")):
            base = source.parent if source is not None else directory
            includes[_expand(value, base, home)] = None
        elif name == "core.hookspath":
            hooks[_expand(value, toplevel or directory, home)] = None
        elif name == "core.excludesfile":
            excludes = _expand(value, toplevel or directory, home)
    return GitConfigPaths(tuple(files), tuple(includes), tuple(hooks), excludes or _default_excludes(env))


def _expand(value: str, base: Path, home: str) -> Path:
    if value == "~" or value.startswith("~/"):
        value = home + value[1:]
    path = Path(value)
    return Path(os.path.normpath(path if path.is_absolute() else base / path))


def _default_excludes(env: Mapping[str, str]) -> Path:
    xdg = env.get("XDG_CONFIG_HOME") or os.path.join(env.get("HOME") or str(Path.home()), ".config")
    return Path(xdg) / "git" / "ignore"


def _toplevel(directory: Path) -> Path | None:
    """The working tree `directory` is in (where hooks run from), found as git finds it: the nearest `.git` that is a
    file or a directory with a HEAD."""
    for candidate in (directory, *directory.parents):
        dot_git = candidate / ".git"
        if dot_git.is_file() or (dot_git / "HEAD").exists():
            return candidate
    return None


def _stat_key(paths: GitConfigPaths, directory: Path, toplevel: Path | None, env: Mapping[str, str]) -> _Key:
    """What would change if the answer did: every file read or included, the default places a file could appear,
    and the repository's HEAD (conditional includes on the branch)."""
    home = Path(env.get("HOME") or Path.home())
    xdg = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    watched = [*paths.files, *paths.includes, home / ".gitconfig", xdg / "git" / "config", Path("/etc/gitconfig")]
    for name in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"):
        if env.get(name):
            watched.append(Path(env[name]))
    if toplevel is not None:
        watched += [toplevel / ".git" / "config", toplevel / ".git" / "HEAD"]
    key: list[tuple[str, int, int, int] | tuple[str]] = []
    for path in dict.fromkeys(watched):
        try:
            info = os.stat(path)
        except OSError:
            key.append((str(path),))
            continue
        key.append((str(path), info.st_mtime_ns, info.st_size, info.st_ino))
    return tuple(key)
