"""Git work trees for the rewind tests: git run in one, and every file outside .git, to compare before and after."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def files(root: Path) -> dict[str, bytes]:
    """Every file under `root` but git's own, by relative path, with its bytes."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".git" not in path.parts
    }


def committed(root: Path, contents: dict[str, str]) -> None:
    """A new repository at `root` whose first commit holds `contents`."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    for name, text in contents.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git(root, "add", "-A")
    git(root, "-c", "user.name=P", "-c", "user.email=p@example.com", "commit", "-q", "-m", "first")
