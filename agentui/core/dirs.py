"""Where agentui and Claude Code keep their files, each overridable by the environment. Light on purpose: the app
reads these before its first frame, long before the rest of the core is imported."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def _user_dir(env: Mapping[str, str] | None, variable: str, kind: str) -> Path:
    env = os.environ if env is None else env
    if env.get(variable):
        return Path(env[variable]).expanduser()
    import platformdirs

    return Path(getattr(platformdirs, f"user_{kind}_dir")("agentui", appauthor=False))


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """agentui's config.json and themes (`$AGENTUI_CONFIG_DIR`, else ~/.config/agentui on Linux)."""
    return _user_dir(env, "AGENTUI_CONFIG_DIR", "config")


def data_dir(env: Mapping[str, str] | None = None) -> Path:
    """Prompt history and trusted projects (`$AGENTUI_DATA_DIR`, else ~/.local/share/agentui)."""
    return _user_dir(env, "AGENTUI_DATA_DIR", "data")


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """Files agentui can rebuild, such as tiktoken's encoding (`$AGENTUI_CACHE_DIR`, else ~/.cache/agentui)."""
    return _user_dir(env, "AGENTUI_CACHE_DIR", "cache")


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """Logs (`--debug`)."""
    return _user_dir(env, "AGENTUI_STATE_DIR", "state")


MACHINE_STATE = Path("/var/lib/agentui")
"""What agentui run as root keeps for the whole machine (the stand-ins' registry: see `standins.registry_in`)."""


def claude_config_dir(env: Mapping[str, str] | None = None) -> Path:
    """Claude Code's directory: settings, memory, sessions (`$CLAUDE_CONFIG_DIR`, else ~/.claude)."""
    env = os.environ if env is None else env
    if env.get("CLAUDE_CONFIG_DIR"):
        return Path(env["CLAUDE_CONFIG_DIR"]).expanduser()
    return Path(env.get("HOME") or Path.home()) / ".claude"
