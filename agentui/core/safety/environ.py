"""Secrets in the environment: which variables are secrets, the environment a child is given without them, and the
copy of agentui's own environment that /proc shows to any process of the same user, overwritten where it holds
secrets (agentui keeps its own copy, read at start-up)."""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Mapping
from pathlib import Path

log = logging.getLogger(__name__)

_SECRET_NAME = re.compile(
    r"^(ANTHROPIC|OPENAI|AZURE_OPENAI|CLAUDE_CODE_OAUTH)_"
    r"|PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|CREDENTIAL|COOKIE|SESSION_?KEY"
    r"|(^|_)(API_?|PRIVATE_?|ACCESS_?|SIGNING_?|ENCRYPTION_?)?KEYS?($|_)",
    re.IGNORECASE,
)
_SAFE_NAMES = frozenset({"SSH_AUTH_SOCK", "GPG_AGENT_INFO", "TOKENIZERS_PARALLELISM", "KEYTIMEOUT"})
_URL_WITH_PASSWORD = re.compile(r"^[a-z][a-z0-9+.-]*://[^/@:\s]*:[^/@\s]+@", re.IGNORECASE)


def is_secret(name: str, value: str = "") -> bool:
    """A variable whose value a command has no business seeing: named like a key, token, password or secret, or
    holding a URL with a password in it (`DATABASE_URL=postgres://u:p@host`)."""
    if name.upper() in _SAFE_NAMES:
        return False
    return bool(_SECRET_NAME.search(name)) or bool(_URL_WITH_PASSWORD.match(value))


SHELL_CHANGING = frozenset({"BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "GLOBIGNORE", "POSIXLY_CORRECT"})
"""Variables that make bash (or the tools it runs) read a command differently from how agentui's permission check
reads it: a file sourced first, shell options, glob rules, POSIX option parsing. Exported functions
(BASH_FUNC_name%%) would replace programs by name."""


def child_environment(base: Mapping[str, str], extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The parent's environment without provider keys and secrets, or what would change how bash reads a command,
    plus the settings' `env` (given on purpose)."""
    env = {
        key: value
        for key, value in base.items()
        if not is_secret(key, value) and key not in SHELL_CHANGING and not key.startswith("BASH_FUNC_")
    }
    if "PATH" in env:  # a relative entry (`node_modules/.bin`, or an empty one: `.`) would make a plain `ls` run
        env["PATH"] = ":".join(p for p in env["PATH"].split(":") if p.startswith("/"))  # a project's own file
    env.update(extra or {})
    env["AGENTUI"] = "1"
    env.setdefault("GIT_TERMINAL_PROMPT", "0")  # never wait on a credential prompt nobody can answer
    return env


def scrub_own_environment() -> int:
    """Overwrite the values of secret variables in the environment block the kernel shows as /proc/<pid>/environ;
    how many were. Python's os.environ, copied at start-up, keeps them for agentui's own use. Linux only (through
    /proc/self/mem, which costs less at start-up than ctypes); anything unexpected leaves the block as it was."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        start = int(fields[47])  # env_start (field 50 of stat)
        block = Path("/proc/self/environ").read_bytes()
        writes = []
        offset = 0
        for entry in block.split(b"\0"):
            name, equals, value = entry.partition(b"=")
            if equals and value and is_secret(name.decode(errors="replace"), value.decode(errors="replace")):
                writes.append((start + offset + len(name) + 1, b"*" * len(value)))
            offset += len(entry) + 1
        if writes:
            with open("/proc/self/mem", "r+b", buffering=0) as memory:
                for address, stars in writes:
                    memory.seek(address)
                    memory.write(stars)
    except (OSError, ValueError, IndexError) as exc:
        log.debug("the environment block could not be scrubbed: %s", exc)
        return 0
    return len(writes)


# Variables that lead to a Unix socket or a display outside: a sandboxed command could not connect to them (the seccomp
# filter), and need not know them. Names ending in _SOCK or _SOCKET count as well.
_SOCKET_NAMES = frozenset(
    {
        "SSH_AUTH_SOCK",
        "SSH_AGENT_PID",
        "GPG_AGENT_INFO",
        "DBUS_SESSION_BUS_ADDRESS",
        "DBUS_SYSTEM_BUS_ADDRESS",
        "DOCKER_HOST",
        "CONTAINER_HOST",
        "BUILDKIT_HOST",
        "DISPLAY",
        "WAYLAND_DISPLAY",
        "XAUTHORITY",
        "TMUX",
        "TMUX_PANE",
        "STY",
        "ZELLIJ",
        "ZELLIJ_SESSION_NAME",
        "KITTY_LISTEN_ON",
        "WEZTERM_UNIX_SOCKET",
        "ALACRITTY_SOCKET",
        "PULSE_SERVER",
        "PIPEWIRE_REMOTE",
        "XDG_RUNTIME_DIR",
        "SWAYSOCK",
        "I3SOCK",
        "HYPRLAND_INSTANCE_SIGNATURE",
        "NIRI_SOCKET",
        "NVIM",
        "NVIM_LISTEN_ADDRESS",
        "VSCODE_IPC_HOOK_CLI",
        "VSCODE_GIT_IPC_HANDLE",
        "GNOME_KEYRING_CONTROL",
        "KRB5CCNAME",
    }
)


def sandbox_environment(env: Mapping[str, str]) -> dict[str, str]:
    """A command's environment as it goes into the sandbox: without the variables that lead to sockets outside."""
    return {
        key: value
        for key, value in env.items()
        if key not in _SOCKET_NAMES and not key.upper().endswith(("_SOCK", "_SOCKET"))
    }
