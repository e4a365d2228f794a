"""Claude Code–format session lines made by hand (long sessions for tests and benchmarks): each line the child of
the one before, with the envelope Claude Code 2.1 writes."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any


class SessionChain:
    def __init__(self, session_id: str, cwd: Path) -> None:
        self.session_id = session_id
        self.cwd = str(cwd)
        self.lines: list[str] = []
        self._parent: str | None = None

    def add(self, kind: str, message: dict[str, Any], **extra: Any) -> None:
        """A `user` or `assistant` line holding `message` (ids made from the session's and the line's number)."""
        entry_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.session_id}/{len(self.lines)}"))
        entry = {
            "parentUuid": self._parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": "2.1.0",
            "gitBranch": "main",
            "type": kind,
            "message": message,
            "uuid": entry_id,
            "timestamp": "2026-11-01T10:00:00.000Z",
            **extra,
        }
        self.lines.append(json.dumps(entry, separators=(",", ":")))
        self._parent = entry_id

    def write(self, path: Path) -> int:
        """Writes the lines to `path` (creating its directory); returns the size in bytes."""
        path.parent.mkdir(parents=True, exist_ok=True)
        data = "\n".join(self.lines) + "\n"
        path.write_text(data, encoding="utf-8")
        return len(data.encode())
