"""The prompt's key bindings, "normal" or "vim", kept where Claude Code keeps them: `editorMode` in the settings files
(read with their precedence: managed, local, project, user), then in its older place, `~/.claude.json`; `/vim`
writes it to the person's own settings (`~/.claude/settings.json`), keeping everything else in the file."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from agentui.core.dirs import claude_config_dir
from agentui.core.errors import AgentuiError

EditorMode = Literal["normal", "vim"]
KEY = "editorMode"


class EditorModeError(AgentuiError):
    pass


def _settings_files(project_root: Path, env: Mapping[str, str] | None) -> list[Path]:
    """Highest precedence first."""
    from agentui.core.claude_settings import local_settings_path, managed_settings_path

    return [
        managed_settings_path(),
        local_settings_path(project_root),
        project_root / ".claude" / "settings.json",
        user_settings_path(env),
    ]


def user_settings_path(env: Mapping[str, str] | None = None) -> Path:
    return claude_config_dir(env) / "settings.json"


def _legacy_config(env: Mapping[str, str] | None) -> Path:
    """Claude Code's global config, where it kept `editorMode` before the settings files (beside ~/.claude)."""
    environ = os.environ if env is None else env
    if environ.get("CLAUDE_CONFIG_DIR"):
        return Path(environ["CLAUDE_CONFIG_DIR"]).expanduser() / ".claude.json"
    return Path(environ.get("HOME") or Path.home()) / ".claude.json"


def _read(path: Path) -> dict[str, object] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        return None  # (missing or unreadable: the next file decides; the settings' own check reports a bad one)
    return data if isinstance(data, dict) else None


def editor_mode(project_root: Path, env: Mapping[str, str] | None = None) -> EditorMode:
    """The editor mode in force: the first file that sets it decides ("emacs", Claude Code's old name, is normal)."""
    for path in [*_settings_files(project_root, env), _legacy_config(env)]:
        data = _read(path)
        if data is not None and isinstance(value := data.get(KEY), str) and value in ("normal", "vim", "emacs"):
            return "vim" if value == "vim" else "normal"
    return "normal"


def save_editor_mode(mode: EditorMode, env: Mapping[str, str] | None = None) -> Path:
    """Write `mode` to the person's settings file, keeping the rest (atomically); returns the file. Raises
    EditorModeError (one sentence) when the file is there but is not a settings file: it is not overwritten."""
    from agentui.core.atomic_write import atomic_write

    path = user_settings_path(env)
    data: dict[str, object] = {}
    if path.exists():
        read = _read(path)
        if read is None:
            raise EditorModeError(f"{path} is not valid JSON; fix it, then try again (it was left as it is).")
        data = read
    data[KEY] = mode
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(Path(os.path.realpath(path)), (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode())
    except OSError as exc:
        raise EditorModeError(f"{path} could not be written ({exc.strerror or exc}).") from None
    return path
