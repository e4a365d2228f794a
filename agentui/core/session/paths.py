"""Where sessions live: `$CLAUDE_CONFIG_DIR` or `~/.claude`, then `projects/<sanitized project path>/<id>.jsonl`,
named exactly as Claude Code names them, so each tool finds the other's sessions."""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
import uuid
from collections.abc import Mapping
from pathlib import Path

from agentui.core.dirs import claude_config_dir

MAX_SANITIZED_LENGTH = 200
_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def _utf16_units(text: str) -> list[int]:
    data = text.encode("utf-16-le", errors="surrogatepass")
    return [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]


def _djb2(text: str) -> int:
    """Claude Code's `djb2Hash`: h = h*31 + unit over UTF-16 code units, as a signed 32-bit integer."""
    value = 0
    for unit in _utf16_units(text):
        value = (((value << 5) - value) + unit) & 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def _base36(number: int) -> str:
    digits = ""
    while True:
        number, remainder = divmod(number, 36)
        digits = _BASE36[remainder] + digits
        if number == 0:
            return digits


def sanitize(path: str) -> str:
    """`/Users/foo/my.proj` -> `-Users-foo-my-proj`: every UTF-16 unit outside [A-Za-z0-9] becomes `-`; past 200
    characters, the first 200, `-`, and a hash of the whole path."""
    sanitized = "".join(
        char if char.isascii() and char.isalnum() else ("--" if ord(char) > 0xFFFF else "-") for char in path
    )
    if len(sanitized) <= MAX_SANITIZED_LENGTH:
        return sanitized
    return f"{sanitized[:MAX_SANITIZED_LENGTH]}-{_base36(abs(_djb2(path)))}"


def canonical(path: Path) -> str:
    return unicodedata.normalize("NFC", os.path.realpath(path))


def project_key(root: Path) -> str:
    """A name for agentui's own per-project state: Claude Code's sanitized path (readable), and a hash of the
    canonical path, because the sanitized one is shared by /work/app, /work-app and /work.app."""
    path = canonical(root)
    return f"{sanitize(path)[:MAX_SANITIZED_LENGTH]}-{hashlib.sha256(path.encode()).hexdigest()[:12]}"


def projects_root(env: Mapping[str, str] | None = None) -> Path:
    return claude_config_dir(env) / "projects"


def project_dir(cwd: Path, env: Mapping[str, str] | None = None) -> Path:
    """This project's session directory. A long name may carry another hash suffix (Claude Code's CLI hashes with
    Bun's own function), so an existing directory with the same 200-character prefix is used if there is one."""
    root = projects_root(env)
    name = sanitize(canonical(cwd))
    exact = root / name
    if len(name) > MAX_SANITIZED_LENGTH and not exact.is_dir() and root.is_dir():
        prefix = name[:MAX_SANITIZED_LENGTH] + "-"
        for candidate in sorted(root.iterdir()):
            if candidate.is_dir() and candidate.name.startswith(prefix):
                return candidate
    return exact


_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def is_session_id(text: str) -> bool:
    return bool(_UUID.match(text))


def new_session_id() -> str:
    return str(uuid.uuid4())


def git_branch(cwd: Path) -> str:
    """The checked-out branch, read from .git/HEAD (no subprocess); "" outside a repository or when detached."""
    directory = Path(os.path.realpath(cwd))
    for candidate in (directory, *directory.parents):
        dot_git = candidate / ".git"
        if dot_git.is_file():  # a worktree: "gitdir: <path>"
            try:
                target = dot_git.read_text().strip().removeprefix("gitdir:").strip()
            except OSError:
                return ""
            dot_git = (candidate / target).resolve()
        if dot_git.is_dir():
            try:
                head = (dot_git / "HEAD").read_text().strip()
            except OSError:
                return ""
            return head.removeprefix("ref: refs/heads/") if head.startswith("ref: refs/heads/") else ""
    return ""
