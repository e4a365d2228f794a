"""Themes as data files: the shipped `themes/*.json` (a dark and a light one at least) and the person's own in
agentui's config directory (`themes/*.json`), each the arguments of `textual.theme.Theme`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from textual.app import App
from textual.theme import Theme

from agentui.api import config_dir

DEFAULT_THEME = "agentui-dark"


def shipped_theme_dirs() -> list[Path]:
    """`agentui/themes` in an installed wheel; the repository's `themes/` in a development checkout."""
    package = Path(__file__).resolve().parents[2]
    return [d for d in (package / "themes", package.parent / "themes") if d.is_dir()]


def load_themes(env: Mapping[str, str] | None = None) -> tuple[list[Theme], list[str]]:
    """Every theme that loads, and one sentence for each file that does not."""
    themes: dict[str, Theme] = {}
    problems: list[str] = []
    for directory in [*shipped_theme_dirs(), config_dir(env) / "themes"]:
        for path in sorted(directory.glob("*.json")) if directory.is_dir() else []:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                theme = Theme(**data)
            except (OSError, ValueError, TypeError) as exc:
                problems.append(f"The theme file {path} could not be loaded ({exc}).")
                continue
            themes[theme.name] = theme  # the person's own theme of the same name wins
    return list(themes.values()), problems


def remembered_theme(env: Mapping[str, str] | None = None) -> str | None:
    """The theme /theme last chose, read straight from config.json: the first frame must not wait for the settings
    model (a broken file is reported when the settings are read, just after)."""
    try:
        data = json.loads((config_dir(env) / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    theme = data.get("theme") if isinstance(data, dict) else None
    return theme if isinstance(theme, str) else None


def apply_themes(app: App[Any], env: Mapping[str, str] | None = None) -> list[str]:
    """Register the shipped and the person's themes, and switch to the one remembered; a sentence for each theme
    file that could not be read."""
    themes, problems = load_themes(env)
    for theme in themes:
        app.register_theme(theme)
    wanted = remembered_theme(env)
    app.theme = wanted if wanted in app.available_themes else DEFAULT_THEME
    return problems
