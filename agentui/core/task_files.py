"""A task list shared across sessions, in Claude Code's files: with `CLAUDE_CODE_TASK_LIST_ID` set, TaskCreate and
its family keep their tasks in `~/.claude/tasks/<list>/<id>.json` (one file each, as Claude Code writes them, with
`.highwatermark` so ids keep rising), and every session that names the list, agentui's or Claude Code's, works on
the same tasks: goals that outlast a session.

Changes are made under Claude Code's lock of the list (proper-lockfile's: the directory `.lock.lock` beside the
`.lock` file, made with mkdir, stale after 10 seconds), so two sessions never take the same id."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from pathlib import Path
from typing import Any

from agentui.core.atomic_write import atomic_write
from agentui.core.errors import AgentuiError
from agentui.core.events import TaskItem

TASK_LIST_VARIABLE = "CLAUDE_CODE_TASK_LIST_ID"
HIGH_WATER = ".highwatermark"
LOCK_WAIT = 3.0
"""How long a change waits for another session's lock of the list before it gives up (about Claude Code's own 30
retries of at most 100 ms; a lock is held for the few milliseconds a change takes, so waiting is rare and short)."""
STALE_LOCK = 10.0
"""A lock older than this was left by a session that died (proper-lockfile's default), and is taken over."""
_STATUSES = ("pending", "in_progress", "completed")


class TaskListBusy(AgentuiError):
    """Another session held the shared task list for longer than a change may wait."""


def shared_list(env: Mapping[str, str], claude_dir: Path) -> Path | None:
    """The directory of the task list `CLAUDE_CODE_TASK_LIST_ID` names (as Claude Code spells it), or None."""
    name = (env.get(TASK_LIST_VARIABLE) or "").strip()
    if not name:
        return None
    return claude_dir / "tasks" / _file_name(name)


class TaskFiles:
    """One list's directory: its tasks read and written in Claude Code's shape."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.name = directory.name
        self._held = False
        self._extra: dict[str, dict[str, Any]] = {}
        """What a task's file holds that agentui does not (Claude Code's `metadata`), written back unchanged."""

    def load(self) -> list[TaskItem]:
        """The list's tasks by id; a file that is not a task (damaged, another version's) is left alone."""
        try:
            names = [entry.name for entry in os.scandir(self.directory) if entry.name.endswith(".json")]
        except FileNotFoundError:
            return []
        tasks = []
        for name in names:
            try:
                data = json.loads((self.directory / name).read_bytes())
                tasks.append(self._task(data))
            except (OSError, ValueError, TypeError, KeyError):
                continue
        return sorted(
            tasks, key=lambda task: (not task.id.isdigit(), int(task.id) if task.id.isdigit() else 0, task.id)
        )

    def _task(self, data: Any) -> TaskItem:
        if not isinstance(data, dict) or data.get("status") not in _STATUSES:
            raise ValueError("not a task")
        task = TaskItem(
            id=str(data["id"]),
            subject=str(data["subject"]),
            description=str(data.get("description") or ""),
            status=data["status"],
            active_form=data.get("activeForm") if isinstance(data.get("activeForm"), str) else None,
            owner=data.get("owner") if isinstance(data.get("owner"), str) else None,
            blocks=tuple(str(i) for i in data.get("blocks") or ()),
            blocked_by=tuple(str(i) for i in data.get("blockedBy") or ()),
        )
        known = {"id", "subject", "description", "status", "activeForm", "owner", "blocks", "blockedBy"}
        self._extra[task.id] = {key: value for key, value in data.items() if key not in known}
        return task

    def save(self, task: TaskItem) -> None:
        data: dict[str, Any] = {"id": task.id, "subject": task.subject, "description": task.description}
        if task.active_form is not None:
            data["activeForm"] = task.active_form
        if task.owner is not None:
            data["owner"] = task.owner
        data |= {"status": task.status, "blocks": list(task.blocks), "blockedBy": list(task.blocked_by)}
        data |= self._extra.get(task.id, {})
        atomic_write(self.directory / f"{_file_name(task.id)}.json", json.dumps(data, indent=2).encode())

    def remove(self, task_id: str) -> None:
        """The task's file gone; its id is never given again (the high-water mark keeps it)."""
        if task_id.isdigit() and int(task_id) > self._high_water():
            atomic_write(self.directory / HIGH_WATER, task_id.encode())
        with contextlib.suppress(FileNotFoundError):
            (self.directory / f"{_file_name(task_id)}.json").unlink()
        self._extra.pop(task_id, None)

    def highest(self) -> int:
        """The highest id the list has given: a new task's is the next."""
        ids = [int(task.id) for task in self.load() if task.id.isdigit()]
        return max([self._high_water(), *ids])

    def _high_water(self) -> int:
        try:
            return int((self.directory / HIGH_WATER).read_text().strip() or 0)
        except (OSError, ValueError):
            return 0

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """The list to this session alone while a change is made (Claude Code's lock, so it waits for us too); held
        already when the change comes through `held` (which waits without stopping the event loop)."""
        if self._held:
            yield
            return
        deadline = time.monotonic() + LOCK_WAIT
        while not self._take():
            if time.monotonic() > deadline:
                raise self._busy()
            time.sleep(0.02)
        try:
            yield
        finally:
            self._release()

    @contextlib.asynccontextmanager
    async def held(self) -> AsyncIterator[None]:
        """The lock for the changes made inside (`locked` then takes nothing more), waited for asynchronously."""
        deadline = time.monotonic() + LOCK_WAIT
        while not self._take():
            if time.monotonic() > deadline:
                raise self._busy()
            await asyncio.sleep(0.02)
        self._held = True
        try:
            yield
        finally:
            self._held = False
            self._release()

    def _take(self) -> bool:
        """Whether the lock is this session's now (one left by a session that died is taken over)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        (self.directory / ".lock").touch(exist_ok=True)
        lock = self.directory / ".lock.lock"
        try:
            lock.mkdir()
            return True
        except FileExistsError:
            with contextlib.suppress(FileNotFoundError):
                if time.time() - lock.stat().st_mtime > STALE_LOCK:
                    lock.rmdir()
            return False

    def _release(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            (self.directory / ".lock.lock").rmdir()

    def _busy(self) -> TaskListBusy:
        return TaskListBusy(f"The shared task list {self.name} stayed locked by another session; try again")


def _order(task: TaskItem) -> tuple[bool, int, str]:
    """Numeric ids in their order (as Claude Code lists them), then any other."""
    return (not task.id.isdigit(), int(task.id) if task.id.isdigit() else 0, task.id)


def _file_name(name: str) -> str:
    """A list's or a task's name as Claude Code writes it in a file name: what is not a letter, digit, _ or - is -."""
    return re.sub(r"[^a-zA-Z0-9_-]", "-", name)
