"""Whether the person trusts a project directory: only then do its own settings grant anything (hooks that run
commands, allow rules, permissive modes, extra directories, environment). Deny and ask rules apply regardless.

Trust is kept in agentui's data directory; a project trusted in Claude Code (`~/.claude.json`) counts too.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from datetime import UTC
from pathlib import Path

from agentui.core.claude_json import claude_json_path, project_entry
from agentui.core.dirs import data_dir


def trust_file(env: Mapping[str, str] | None = None) -> Path:
    return data_dir(env) / "trusted-projects.json"


def _read_json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def is_trusted(project_root: Path, env: Mapping[str, str] | None = None) -> bool:
    env = os.environ if env is None else env
    key = str(project_root)
    ours = _read_json(trust_file(env))
    if isinstance(ours, dict) and key in ours:
        return True
    project = project_entry(_read_json(claude_json_path(env)), key)
    return project is not None and project.get("hasTrustDialogAccepted") is True


def trust(project_root: Path, env: Mapping[str, str] | None = None) -> None:
    from datetime import datetime

    from agentui.core.atomic_write import atomic_write

    path = trust_file(env)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = _read_json(path)
    data = data if isinstance(data, dict) else {}
    data[str(project_root)] = datetime.now(UTC).isoformat(timespec="seconds")
    atomic_write(Path(os.path.realpath(path)), (json.dumps(data, indent=2) + "\n").encode())
