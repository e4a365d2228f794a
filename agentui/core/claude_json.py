"""Claude Code's own `~/.claude.json`: where it is, and this project's entry in it, read defensively (the file is
Claude Code's, written by other versions and by hand, and may hold anything)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any


def claude_json_path(env: Mapping[str, str]) -> Path:
    base = env.get("CLAUDE_CONFIG_DIR")
    if base:
        return Path(base) / ".claude.json"
    return Path(env.get("HOME") or Path.home()) / ".claude.json"


def project_entry(data: object, root: Path | str) -> dict[str, Any] | None:
    """`projects.<root>` of the file's contents, or None where any part of the way is missing or not an object."""
    projects = data.get("projects") if isinstance(data, dict) else None
    entry = projects.get(str(root)) if isinstance(projects, dict) else None
    return entry if isinstance(entry, dict) else None
