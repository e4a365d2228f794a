"""Whether a process is still running, read from /proc in one go (it can be reaped between two reads)."""

from __future__ import annotations

from pathlib import Path


def running(pid: int) -> bool:
    """Alive and not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False
