"""The files Claude Code keeps plugins in, read and written as it writes them: JSON objects, two-space indents,
replaced whole (a file that cannot be read is never written over)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from agentui.core.dirs import claude_config_dir
from agentui.core.errors import AgentuiError

Scope = Literal["user", "project", "local"]
MAX_JSON = 16 * 1024 * 1024
"""The most of a plugin file or manifest that is read (a marketplace's may be anyone's)."""
SCOPES: tuple[Scope, ...] = ("user", "project", "local")


class PluginError(AgentuiError):
    """A plugin or marketplace command could not be done; one sentence says why."""


def plugins_dir(env: Mapping[str, str] | None = None) -> Path:
    return claude_config_dir(env) / "plugins"


def marketplaces_file(env: Mapping[str, str] | None = None) -> Path:
    return plugins_dir(env) / "known_marketplaces.json"


def installed_file(env: Mapping[str, str] | None = None) -> Path:
    return plugins_dir(env) / "installed_plugins.json"


def settings_file(scope: Scope, project_root: Path, env: Mapping[str, str] | None = None) -> Path:
    """The settings file Claude Code's `--scope` writes to."""
    if scope == "user":
        return claude_config_dir(env) / "settings.json"
    return project_root / ".claude" / ("settings.json" if scope == "project" else "settings.local.json")


def inside(base: Path, relative: str | Path = ".") -> Path | None:
    """`base / relative`, links resolved, when it exists and lies inside `base` (links resolved too); None when it
    does not, or when no path could be named so (a NUL in it, a name too long), so that what a manifest says
    never reaches a directory out of its own nor stops a loader."""
    from agentui.core.workspace import is_within

    try:
        real = os.path.realpath(os.path.join(base, relative))
        found = is_within(real, os.path.realpath(base)) and os.path.lexists(real)
    except (OSError, ValueError):
        return None
    return Path(real) if found else None


def now() -> str:
    """A time as Claude Code writes one: `2026-11-28T01:59:09.788Z`."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def read_object(path: Path) -> dict[str, Any]:
    """The JSON object in `path` ({} when there is no file); PluginError when it cannot be read as one."""
    from agentui.core.jsonfile import regular_file_bytes  # (a FIFO there is refused, never waited on)

    try:
        text = regular_file_bytes(path, MAX_JSON + 1)
        if len(text) > MAX_JSON:
            raise ValueError("larger than 16 MB")
        data = json.loads(text.decode("utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, RecursionError) as exc:  # (RecursionError: arrays nested thousands deep)
        raise PluginError(f"{path} could not be read as JSON ({exc}), so it was left as it is.") from None
    if not isinstance(data, dict):
        raise PluginError(f"{path} does not hold a JSON object, so it was left as it is.")
    return data


def write_object(path: Path, data: Mapping[str, Any], within: Path | None = None) -> None:
    """Write `data` to `path`; with `within`, only where `path` really lies inside it (a project's `.claude` that is
    a link out of the project is refused)."""
    from agentui.core.atomic_write import atomic_write
    from agentui.core.workspace import is_within

    path.parent.mkdir(parents=True, exist_ok=True)
    real = Path(os.path.realpath(path))
    if within is not None and not is_within(real, os.path.realpath(within)):
        raise PluginError(f"{path} is a link out of the project (to {real}), so nothing was written to it.")
    atomic_write(real, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode())


def update_setting(
    scope: Scope, project_root: Path, key: str, name: str, value: Any, env: Mapping[str, str] | None = None
) -> Path:
    """Set `<key>.<name>` to `value` (None removes it) in the `scope` settings file, keeping the rest of it."""
    from agentui.core.claude_settings import SettingsError, change_settings_file

    def put(data: dict[str, Any]) -> None:
        entries = data.get(key)
        entries = dict(entries) if isinstance(entries, dict) else {}
        if value is None:
            entries.pop(name, None)
        else:
            entries[name] = value
        if entries:
            data[key] = entries
        else:
            data.pop(key, None)

    path = settings_file(scope, project_root, env)
    try:
        return change_settings_file(path, put, within=None if scope == "user" else project_root)
    except SettingsError as exc:
        raise PluginError(str(exc)) from None
