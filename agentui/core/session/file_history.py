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
from agentui.core.errors import AgentuiError


def file_history_dir(session_id: str, env: Mapping[str, str] | None = None) -> Path:
    return claude_config_dir(env) / "file-history" / session_id


def backup_name(path: Path, version: int) -> str:
    """Claude Code's name for a file's backup: the first 16 hex digits of the SHA-256 of its absolute path."""
    return f"{hashlib.sha256(str(path).encode()).hexdigest()[:16]}@v{version}"


def tracked_path(key: str, cwd: Path) -> Path:
    """The file a snapshot's key names (relative to the project, or absolute outside it)."""
    return Path(key) if os.path.isabs(key) else cwd / key


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
            path = tracked_path(key, self.cwd)
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
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        target = self.directory / name
        target.unlink(missing_ok=True)  # (never written through: a fork's backups are links to its origin's)
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


@dataclass(frozen=True)
class FileChange:
    """What restoring a file to a prompt's snapshot does to it."""

    path: Path
    content: bytes | None
    """What the file will hold; None: it did not exist then, and is deleted."""
    now: bytes | None
    """What it holds now (None: it does not exist)."""
    mode: int | None = None
    """git's mode for what it will be, where a snapshot recorded one: a symbolic link or an executable file."""
    outside: bool = False
    """It was changed since agentui last did anything, so by someone else: overwriting it needs confirming."""

    def counts(self) -> tuple[int, int]:
        """Lines the restore adds and removes."""
        from agentui.core.tools.diff import structured_patch

        now, then = ((text or b"").decode("utf-8", "replace") for text in (self.now, self.content))
        lines = [line for hunk in structured_patch(now, then, context=0) for line in hunk["lines"]]
        return sum(line.startswith("+") for line in lines), sum(line.startswith("-") for line in lines)


_LINK, _EXECUTABLE = 0o120000, 0o100755


class RestoreError(AgentuiError):
    """A snapshot or a backup that a restore needs is not there; one sentence, and nothing was changed."""


def _wanted(entries: list[dict[str, Any]], prompt_uuid: str) -> dict[str, Any]:
    """Each file tracked since the prompt, by its key, with the backup (as recorded) that holds it as it was then."""
    snapshots = [entry for entry in entries if entry.get("type") == "file-history-snapshot"]
    start = next(
        (
            index
            for index, entry in enumerate(snapshots)
            if not entry.get("isSnapshotUpdate") and entry.get("messageId") == prompt_uuid
        ),
        None,
    )
    if start is None:
        raise RestoreError("No file snapshot was kept for that prompt, so its files cannot be restored.")
    wanted: dict[str, Any] = {}
    for entry in snapshots[start:]:
        backups = (entry.get("snapshot") or {}).get("trackedFileBackups") or {}
        for key, backup in backups.items() if isinstance(backups, dict) else ():
            if key not in wanted and isinstance(backup, dict):
                wanted[key] = backup
    return wanted


def tracked_since(entries: list[dict[str, Any]], prompt_uuid: str, cwd: Path) -> dict[Path, str]:
    """The files the file history can restore to how they were at the prompt, each with the time of the backup it
    would restore from."""
    return {
        tracked_path(key, cwd): str(backup.get("backupTime", ""))
        for key, backup in _wanted(entries, prompt_uuid).items()
    }


def restore_plan(entries: list[dict[str, Any]], prompt_uuid: str, cwd: Path, directory: Path) -> list[FileChange]:
    """The files to change to bring every file agentui or Claude Code changed since the prompt `prompt_uuid` back to
    how it was when that prompt was sent: a file tracked then goes back to that prompt's backup, a file first
    changed later to its first backup (as it was before that change). Only files that differ are listed."""
    changes = []
    for key, backup in _wanted(entries, prompt_uuid).items():
        name = backup.get("backupFileName")
        path = tracked_path(key, cwd)
        content = None
        if isinstance(name, str):
            try:
                content = (directory / name).read_bytes()
            except FileNotFoundError:
                raise RestoreError(
                    f"The backup of {key} ({name}) is missing from {directory}, so nothing was restored."
                ) from None
            except OSError as exc:
                raise RestoreError(
                    f"The backup of {key} ({name}) cannot be read ({exc.strerror or exc}), so nothing was restored."
                ) from None
        try:
            now: bytes | None = path.read_bytes()
        except FileNotFoundError:
            now = None
        except OSError as exc:
            raise RestoreError(f"{key} cannot be read ({exc.strerror or exc}), so nothing was restored.") from None
        if now != content:
            changes.append(FileChange(path, content, now))
    return changes


def restore(changes: list[FileChange]) -> None:
    """Write the plan: each file replaced whole (through a temporary file beside it) or deleted."""
    for change in changes:
        if change.content is None:
            change.path.unlink(missing_ok=True)
            continue
        change.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = change.path.with_name(f".{change.path.name}.agentui-restore")
        temporary.unlink(missing_ok=True)
        if change.mode == _LINK:
            os.symlink(os.fsdecode(change.content), temporary)
        else:
            temporary.write_bytes(change.content)
            if change.path.exists() and not change.path.is_symlink():
                shutil.copymode(change.path, temporary)
            if change.mode is not None:  # (git records only whether a file is executable)
                bits = temporary.stat().st_mode & 0o777
                os.chmod(temporary, bits | 0o111 if change.mode == _EXECUTABLE else bits & ~0o111)
        os.replace(temporary, change.path)
