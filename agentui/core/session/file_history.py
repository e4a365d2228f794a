"""Claude Code's file history: each file backed up before it is first changed in a session, again at each prompt if it
changed since, and a `file-history-snapshot` line per prompt naming the backups, written as Claude Code 2.x writes
them (`~/.claude/file-history/<session id>/<sha256 of the path, 16 hex digits>@v<version>`), so that either tool
can rewind what the other changed.

A snapshot line holds, for a prompt, every tracked file's backup as it was when the prompt was sent; an update line
(`isSnapshotUpdate`) adds a file first changed during that prompt's turn, backed up just before the change. A
backup name of null means the file did not exist then."""

from __future__ import annotations

import filecmp
import hashlib
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentui.core.dirs import claude_config_dir


def file_history_dir(session_id: str, env: Mapping[str, str] | None = None) -> Path:
    return claude_config_dir(env) / "file-history" / session_id


def backup_name(path: Path, version: int) -> str:
    """Claude Code's name for a file's backup: the first 16 hex digits of the SHA-256 of its absolute path."""
    return f"{hashlib.sha256(str(path).encode()).hexdigest()[:16]}@v{version}"


@dataclass(frozen=True)
class Backup:
    name: str | None
    """The backup file's name; None when the file did not exist."""
    version: int
    time: str

    def as_json(self) -> dict[str, Any]:
        return {"backupFileName": self.name, "version": self.version, "backupTime": self.time}


class FileHistory:
    def __init__(self, directory: Path, cwd: Path, clock: Callable[[], str]) -> None:
        self.directory = directory
        self.cwd = cwd
        self._clock = clock
        """Returns the timestamp written in lines (the session writer's)."""
        self.tracked: dict[str, Backup] = {}
        """By the path as Claude Code writes it: relative to the project if inside it, else absolute."""
        self._prompt: str | None = None
        self._prompt_time = ""

    def resume(self, last: dict[str, Any] | None) -> None:
        """Carry on from a session's last snapshot line (each line holds every tracked file)."""
        snapshot = (last or {}).get("snapshot") or {}
        backups = snapshot.get("trackedFileBackups")
        if not isinstance(backups, dict):
            return
        for key, value in backups.items():
            if isinstance(value, dict) and isinstance(value.get("version"), int):
                name = value.get("backupFileName")
                name = name if isinstance(name, str) else None
                self.tracked[key] = Backup(name, value["version"], str(value.get("backupTime", "")))
        self._prompt = snapshot.get("messageId") if isinstance(snapshot.get("messageId"), str) else None
        self._prompt_time = str(snapshot.get("timestamp", ""))

    def at_prompt(self, prompt_uuid: str) -> dict[str, Any]:
        """A prompt is being sent: each tracked file changed since its last backup is backed up again; the snapshot
        line to write before the prompt's own line."""
        for key, backup in list(self.tracked.items()):
            path = self._absolute(key)
            if self._changed(path, backup):
                self.tracked[key] = self._backup(path, backup.version + 1)
        self._prompt, self._prompt_time = prompt_uuid, self._clock()
        return self._line(prompt_uuid, update=False)

    def before_change(self, path: Path, message_uuid: str) -> dict[str, Any] | None:
        """A tool is about to change `path` (absolute, resolved): the first time in the session, it is backed up and
        the update line to write is returned (None when it is tracked already: its backup is the prompt's)."""
        key = self._key(path)
        if key in self.tracked or self._prompt is None:
            return None
        self.tracked[key] = self._backup(path, 1)
        return self._line(message_uuid, update=True)

    # Backups

    def _backup(self, path: Path, version: int) -> Backup:
        if not path.is_file():
            return Backup(None, version, self._clock())
        name = backup_name(path, version)
        if not self.directory.exists():
            self.directory.mkdir(parents=True, mode=0o700)
        target = self.directory / name
        shutil.copyfile(path, target)
        os.chmod(target, 0o600)  # (the backups are as private as the session)
        return Backup(name, version, self._clock())

    def _changed(self, path: Path, backup: Backup) -> bool:
        if backup.name is None:
            return path.exists()
        kept = self.directory / backup.name
        if not path.is_file() or not kept.is_file():
            return path.is_file()  # (a lost backup is taken again while the file is there)
        return not filecmp.cmp(path, kept, shallow=False)

    # Paths and lines

    def _key(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.cwd))
        except ValueError:
            return str(path)

    def _absolute(self, key: str) -> Path:
        return Path(key) if os.path.isabs(key) else self.cwd / key

    def _line(self, message_uuid: str, *, update: bool) -> dict[str, Any]:
        return {
            "type": "file-history-snapshot",
            "messageId": message_uuid,
            "snapshot": {
                "messageId": self._prompt,
                "trackedFileBackups": {key: backup.as_json() for key, backup in self.tracked.items()},
                "timestamp": self._prompt_time,
            },
            "isSnapshotUpdate": update,
        }
