"""TaskCreate, TaskUpdate, TaskList and TaskGet: Claude Code 2.1's task list, with its argument shapes, its results
and its `toolUseResult`s. They change nothing outside the session, so they need no permission."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, Literal, NotRequired

from pydantic import Field
from typing_extensions import TypedDict

from agentui.core.call_views import ResultView, plural
from agentui.core.events import TaskItem
from agentui.core.task_board import TaskError
from agentui.core.task_files import TaskListBusy
from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolResult
from agentui.core.workspace import Workspace

TASK_LIST_TOOLS = ("TaskCreate", "TaskGet", "TaskUpdate", "TaskList")
"""The tools of the task list, which TodoWrite replaces for a session that used it."""
TaskHook = Callable[[str, str, tuple[str, str, str]], Awaitable[str | None]]
"""Claude Code's TaskCreated or TaskCompleted hooks for a task (given the session, the event, and the task's id,
subject and description): what a hook that refuses it says, or None."""


class TaskCreateArgs(ToolArgs):
    subject: str = Field(min_length=1, description="A brief title, in the imperative: 'Fix the login bug'")
    description: str = Field(description="What needs doing, with the context and what counts as done")
    activeForm: str | None = Field(default=None, description="Shown while it is in progress: 'Fixing the login bug'")
    metadata: dict[str, Any] | None = Field(default=None, description="Any extra data to keep with the task")


class TaskUpdateArgs(ToolArgs):
    taskId: str = Field(description="The task's id")
    subject: str | None = Field(default=None, min_length=1)
    description: str | None = None
    activeForm: str | None = None
    status: Literal["pending", "in_progress", "completed", "deleted"] | None = Field(
        default=None, description="in_progress when starting it, completed when done, deleted to remove it"
    )
    addBlocks: list[str] | None = Field(default=None, description="Tasks that cannot start until this one is done")
    addBlockedBy: list[str] | None = Field(default=None, description="Tasks that must be done before this one")
    owner: str | None = Field(default=None, description="Who works on it (an agent's name)")
    metadata: dict[str, Any] | None = None


class TaskGetArgs(ToolArgs):
    taskId: str = Field(description="The task's id")


class TaskListArgs(ToolArgs):
    pass


class TaskCreateDetails(TypedDict):
    task: dict[str, str]
    """Its id and subject."""


class TaskUpdateDetails(TypedDict):
    success: bool
    taskId: str
    updatedFields: list[str]
    statusChange: NotRequired[dict[str, str]]
    """The status before and after ("from", "to"), when it changed."""


class TaskListDetails(TypedDict):
    tasks: list[dict[str, Any]]


class TaskGetDetails(TypedDict):
    task: dict[str, Any]


class _TaskTool(Tool[Any]):
    kind = "read"

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.hook: TaskHook | None = None
        """The task hooks (the project gives them): a task they refuse is not created, or not completed."""

    async def _refused(self, ctx: ToolContext, event: str, task: TaskItem) -> str | None:
        if self.hook is None:
            return None
        return await self.hook(ctx.session_id, event, (task.id, task.subject, task.description))


class TaskCreate(_TaskTool):
    name = "TaskCreate"
    description = (
        "Add a task to the task list, to plan and track work of several steps (it starts as pending). Use "
        "TaskUpdate to mark it in_progress before starting it and completed as soon as it is done, and TaskList "
        "to see where things stand."
    )
    Args = TaskCreateArgs
    Details = TaskCreateDetails
    shown = "think"

    @classmethod
    def title(cls, arguments: Mapping[str, Any], cwd: Path | None) -> str:
        return str(arguments.get("subject") or "")

    @classmethod
    def result(cls, text: str, details: Mapping[str, Any]) -> ResultView:
        return ResultView(f"task #{(details.get('task') or {}).get('id', '?')} created")

    async def run(self, args: TaskCreateArgs, ctx: ToolContext) -> ToolResult:
        board = self.workspace.tasks
        try:
            async with board.changing():
                task = board.create(args.subject, args.description, args.activeForm)
            if (refused := await self._refused(ctx, "TaskCreated", task)) is not None:
                async with board.changing():
                    board.update(task.id, {"status": "deleted"})  # (created first, as Claude Code's)
                return ToolResult.error(refused)
        except TaskListBusy as exc:
            return ToolResult.error(f"{exc}.")
        return ToolResult(
            f"Task #{task.id} created successfully: {task.subject}",
            details=TaskCreateDetails(task={"id": task.id, "subject": task.subject}),
        )


class TaskUpdate(_TaskTool):
    name = "TaskUpdate"
    description = (
        "Change a task: its status (pending, in_progress, completed, or deleted to remove it), subject, "
        "description, activeForm, owner, or its dependencies (addBlocks, addBlockedBy). Give only what changes."
    )
    Args = TaskUpdateArgs
    Details = TaskUpdateDetails
    shown = "think"

    @classmethod
    def title(cls, arguments: Mapping[str, Any], cwd: Path | None) -> str:
        change = f" → {arguments['status']}" if arguments.get("status") else ""
        return f"#{arguments.get('taskId', '?')}{change}"

    async def run(self, args: TaskUpdateArgs, ctx: ToolContext) -> ToolResult:
        if args.status == "completed" and (refused := await self._completing(args.taskId, ctx)) is not None:
            return ToolResult.error(refused, success=False, taskId=args.taskId.lstrip("#"))
        try:
            async with self.workspace.tasks.changing():
                task, fields, status_change = self.workspace.tasks.update(args.taskId, args.model_dump())
        except (TaskError, TaskListBusy) as exc:
            return ToolResult.error(str(exc), success=False, taskId=args.taskId)
        task_id = args.taskId.lstrip("#")
        details = TaskUpdateDetails(success=True, taskId=task_id, updatedFields=fields)
        if status_change:
            details["statusChange"] = status_change
        if task is None:
            return ToolResult(f"Task #{task_id} deleted", details)
        return ToolResult(f"Updated task #{task_id} {', '.join(sorted(fields)) or '(nothing changed)'}", details)

    async def _completing(self, task_id: str, ctx: ToolContext) -> str | None:
        """TaskCompleted, before a task becomes completed (not for one that already is, nor an unknown id)."""
        try:
            task = self.workspace.tasks.get(task_id)
        except TaskError:
            return None  # (the update says it is unknown)
        return None if task.status == "completed" else await self._refused(ctx, "TaskCompleted", task)


class TaskList(_TaskTool):
    name = "TaskList"
    description = "List every task with its id, status, owner and what blocks it."
    Args = TaskListArgs
    Details = TaskListDetails

    @classmethod
    def title(cls, arguments: Mapping[str, Any], cwd: Path | None) -> str:
        return "all tasks"

    @classmethod
    def result(cls, text: str, details: Mapping[str, Any]) -> ResultView:
        return ResultView(plural(len(details.get("tasks") or []), "task"))

    async def run(self, args: TaskListArgs, ctx: ToolContext) -> ToolResult:
        board = self.workspace.tasks
        tasks = board.tasks()
        if not tasks:
            return ToolResult("No tasks found", TaskListDetails(tasks=[]))
        lines = []
        for task in tasks:
            line = f"#{task.id} [{task.status}] {task.subject}"
            if task.owner:
                line += f" ({task.owner})"
            blockers = board.open_blockers(task)
            if blockers:
                line += " [blocked by " + ", ".join(f"#{i}" for i in blockers) + "]"
            lines.append(line)
        listed = [_summary(task, board.open_blockers(task)) for task in tasks]
        return ToolResult("\n".join(lines), TaskListDetails(tasks=listed))


class TaskGet(_TaskTool):
    name = "TaskGet"
    description = "Everything about one task: its description, status, owner and dependencies."
    Args = TaskGetArgs
    Details = TaskGetDetails

    @classmethod
    def title(cls, arguments: Mapping[str, Any], cwd: Path | None) -> str:
        change = f" → {arguments['status']}" if arguments.get("status") else ""
        return f"#{arguments.get('taskId', '?')}{change}"

    async def run(self, args: TaskGetArgs, ctx: ToolContext) -> ToolResult:
        try:
            task = self.workspace.tasks.get(args.taskId)
        except TaskError as exc:
            return ToolResult.error(str(exc), task=None)
        lines = [f"Task #{task.id}: {task.subject}", f"Status: {task.status}"]
        if task.description:
            lines.append(f"Description: {task.description}")
        if task.owner:
            lines.append(f"Owner: {task.owner}")
        if task.blocked_by:
            lines.append("Blocked by: " + ", ".join(f"#{i}" for i in task.blocked_by))
        if task.blocks:
            lines.append("Blocks: " + ", ".join(f"#{i}" for i in task.blocks))
        details: TaskGetDetails = {
            "task": {
                "id": task.id,
                "subject": task.subject,
                "description": task.description,
                "status": task.status,
                "blocks": list(task.blocks),
                "blockedBy": list(task.blocked_by),
            }
        }
        return ToolResult("\n".join(lines), details)


def _summary(task: TaskItem, blockers: list[str]) -> dict[str, Any]:
    summary: dict[str, Any] = {"id": task.id, "subject": task.subject, "status": task.status}
    if task.owner:
        summary["owner"] = task.owner
    summary["blockedBy"] = blockers
    return summary
