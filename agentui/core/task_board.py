"""The model's task list: tasks with ids, status, owners and dependencies (TaskCreate, TaskUpdate, TaskList,
TaskGet), beside the plain list TodoWrite replaces whole. A resumed session rebuilds it from its own tool calls."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from agentui.core.errors import AgentuiError
from agentui.core.events import TaskItem
from agentui.core.messages import Message, ToolResultBlock, ToolUseBlock

if TYPE_CHECKING:
    from agentui.core.task_files import TaskFiles

_STATUSES = ("pending", "in_progress", "completed")
_CREATED = re.compile(r"Task #(\S+) created")


class TaskError(AgentuiError, ValueError):
    """A task call that cannot be done (an unknown id); its message is for the model."""


class TaskBoard:
    def __init__(self) -> None:
        self._tasks: dict[str, TaskItem] = {}
        self._todos: list[TaskItem] = []
        self._last_id = 0  # ids keep rising after a delete, as Claude Code's do
        self.on_change: Callable[[list[TaskItem]], None] = lambda tasks: None
        self.files: TaskFiles | None = None
        """The shared list's files (`CLAUDE_CODE_TASK_LIST_ID`), where the tasks live; None: in this session only."""

    def share(self, files: TaskFiles) -> None:
        """Work on the shared list in `files` from now on: its tasks, as other sessions leave them."""
        self.files = files
        self.refresh()

    def refresh(self) -> None:
        """The shared list's tasks as they are on disk now (another session may have changed them)."""
        if self.files is not None:
            self._tasks = {task.id: task for task in self.files.load()}
            self._last_id = self.files.highest()

    def changing(self) -> contextlib.AbstractAsyncContextManager[None]:
        """Around a tool's change of the list: a shared list's lock, waited for without stopping the event loop
        (raises TaskListBusy when another session keeps it)."""
        return self.files.held() if self.files is not None else contextlib.nullcontext()

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """A change: to a shared list, made under its lock on what is on disk then, and written back."""
        if self.files is None:
            yield
            return
        with self.files.locked():
            self.refresh()
            before = dict(self._tasks)
            yield
            for task_id, task in self._tasks.items():
                if before.get(task_id) != task:
                    self.files.save(task)
            for task_id in before.keys() - self._tasks.keys():
                self.files.remove(task_id)

    def items(self) -> list[TaskItem]:
        """Everything the panel shows: the tasks, then TodoWrite's list."""
        return [*self._tasks.values(), *self._todos]

    def tasks(self) -> list[TaskItem]:
        self.refresh()
        return list(self._tasks.values())

    def get(self, task_id: str) -> TaskItem:
        if self.files is not None and task_id.lstrip("#") not in self._tasks:
            self.refresh()
        task = self._tasks.get(task_id.lstrip("#"))
        if task is None:
            raise TaskError(f"Task #{task_id.lstrip('#')} not found")
        return task

    def open_blockers(self, task: TaskItem) -> list[str]:
        """The tasks blocking `task` that are not completed yet."""
        return [i for i in task.blocked_by if i in self._tasks and self._tasks[i].status != "completed"]

    # Changes

    def create(
        self, subject: str, description: str = "", active_form: str | None = None, task_id: str | None = None
    ) -> TaskItem:
        with self._writing():
            return self._create(subject, description, active_form, task_id)

    def _create(self, subject: str, description: str, active_form: str | None, task_id: str | None) -> TaskItem:
        if task_id is None or task_id in self._tasks:
            task_id = str(self._last_id + 1)
        if task_id.isdigit():
            self._last_id = max(self._last_id, int(task_id))
        task = TaskItem(id=task_id, subject=subject, description=description, status="pending", active_form=active_form)
        self._tasks[task_id] = task
        self._changed()
        return task

    def update(self, task_id: str, changes: dict[str, Any]) -> tuple[TaskItem | None, list[str], dict[str, str]]:
        """Apply TaskUpdate's arguments (its own names: activeForm, addBlocks, addBlockedBy, status "deleted").
        Returns the task (None once deleted), the fields changed, and the status change if any."""
        with self._writing():
            return self._update(task_id, changes)

    def _update(self, task_id: str, changes: dict[str, Any]) -> tuple[TaskItem | None, list[str], dict[str, str]]:
        task = self.get(task_id)
        if changes.get("status") not in (None, *_STATUSES, "deleted"):
            raise TaskError(f"{changes['status']!r} is not a task status")
        fields = [key for key in changes if key != "taskId" and changes[key] is not None]
        if changes.get("status") == "deleted":
            self._delete(task.id)
            self._changed()
            return None, fields, {"from": task.status, "to": "deleted"}
        for other in [*(changes.get("addBlocks") or []), *(changes.get("addBlockedBy") or [])]:
            self.get(other)  # (raises for an unknown id before anything changes)
        update: dict[str, Any] = {}
        for key, attribute in (("subject", "subject"), ("description", "description"), ("owner", "owner")):
            if changes.get(key) is not None:
                update[attribute] = changes[key]
        if changes.get("activeForm") is not None:
            update["active_form"] = changes["activeForm"]
        status_change = {}
        if changes.get("status") is not None and changes["status"] != task.status:
            status_change = {"from": task.status, "to": changes["status"]}
            update["status"] = changes["status"]
        self._tasks[task.id] = task = task.model_copy(update=update)
        for other in changes.get("addBlocks") or []:
            self._link(blocker=task.id, blocked=other.lstrip("#"))
        for other in changes.get("addBlockedBy") or []:
            self._link(blocker=other.lstrip("#"), blocked=task.id)
        self._changed()
        return self._tasks[task.id], fields, status_change

    def replace_todos(self, todos: Iterable[dict[str, Any]]) -> None:
        """TodoWrite's whole list."""
        self._todos = [
            TaskItem(
                id=f"todo-{n}",
                subject=str(todo.get("content") or ""),
                status=todo["status"] if todo.get("status") in _STATUSES else "pending",
                active_form=todo.get("activeForm"),
            )
            for n, todo in enumerate(todos, 1)
            if isinstance(todo, dict)
        ]
        self._changed()

    def _link(self, *, blocker: str, blocked: str) -> None:
        first, second = self._tasks[blocker], self._tasks[blocked]
        if blocked not in first.blocks:
            self._tasks[blocker] = first.model_copy(update={"blocks": (*first.blocks, blocked)})
        if blocker not in second.blocked_by:
            self._tasks[blocked] = second.model_copy(update={"blocked_by": (*second.blocked_by, blocker)})

    def _delete(self, task_id: str) -> None:
        del self._tasks[task_id]
        for other_id, other in list(self._tasks.items()):
            if task_id in other.blocks or task_id in other.blocked_by:
                self._tasks[other_id] = other.model_copy(
                    update={
                        "blocks": tuple(i for i in other.blocks if i != task_id),
                        "blocked_by": tuple(i for i in other.blocked_by if i != task_id),
                    }
                )

    def _changed(self) -> None:
        self.on_change(self.items())

    # A resumed session

    def replay(self, messages: Iterable[Message]) -> None:
        """Rebuild the list from the task calls in a history (Claude Code's names, 2.0's TodoWrite too): each call
        whose result was not an error is applied again, in order, with the ids its results gave."""
        calls: dict[str, ToolUseBlock] = {}
        kept = ("TodoWrite",) if self.files is not None else ("TaskCreate", "TaskUpdate", "TodoWrite")
        quiet, self.on_change = self.on_change, lambda tasks: None
        try:
            for message in messages:
                for block in message.content:
                    if isinstance(block, ToolUseBlock) and block.name in kept:  # (a shared list's are on disk)
                        calls[block.id] = block
                    elif isinstance(block, ToolResultBlock) and block.tool_use_id in calls and not block.is_error:
                        self._apply(calls.pop(block.tool_use_id), block)
        finally:
            self.on_change = quiet

    def rebuild(self, messages: Iterable[Message]) -> None:
        """The list as `messages` (a history just rewound) left it, in place of the current one (a shared list's
        tasks stay as the other sessions know them)."""
        if self.files is None:
            self._tasks.clear()
            self._last_id = 0
        self._todos.clear()
        self.replay(messages)
        self.refresh()
        self._changed()

    def _apply(self, call: ToolUseBlock, result: ToolResultBlock) -> None:
        arguments = call.input
        try:
            if call.name == "TodoWrite":
                self.replace_todos(arguments.get("todos") or [])
            elif call.name == "TaskCreate":
                text = (
                    result.content
                    if isinstance(result.content, str)
                    else " ".join(getattr(b, "text", "") for b in result.content)
                )
                found = _CREATED.search(text)
                self.create(
                    str(arguments.get("subject") or ""),
                    str(arguments.get("description") or ""),
                    arguments.get("activeForm"),
                    task_id=found.group(1) if found else None,
                )
            elif call.name == "TaskUpdate":
                self.update(str(arguments.get("taskId") or ""), arguments)
        except (TaskError, ValueError, TypeError):
            pass  # (a call that no longer applies, as Claude Code would have refused it)
