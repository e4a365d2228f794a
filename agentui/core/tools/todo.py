"""TodoWrite: the model's task list for the session, replaced whole on each call and shown by the UI."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

from agentui.core.call_views import ResultView
from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolResult
from agentui.core.workspace import Workspace


class Todo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    content: str = Field(min_length=1, description="The task, in the imperative: 'Run the tests'")
    status: Literal["pending", "in_progress", "completed"]
    activeForm: str | None = Field(default=None, description="The task while it runs: 'Running the tests'")
    id: str | None = None
    priority: Literal["high", "medium", "low"] | None = None


class TodoWriteArgs(ToolArgs):
    todos: list[Todo] = Field(description="The whole updated task list")


class TodoWriteDetails(TypedDict):
    oldTodos: list[dict[str, Any]]
    newTodos: list[dict[str, Any]]


class TodoWrite(Tool[TodoWriteArgs]):
    name = "TodoWrite"
    description = (
        "Keep a task list for multi-step work: send the whole updated list each time. Mark a task in_progress "
        "before starting it (one at a time) and completed as soon as it is done."
    )
    Args = TodoWriteArgs
    Details = TodoWriteDetails
    kind = "read"  # changes nothing outside the session, so it needs no permission
    shown = "think"
    opens = True

    @classmethod
    def title(cls, arguments: Mapping[str, Any], cwd: Path | None) -> str:
        return f"{len(arguments.get('todos') or [])} tasks"

    @classmethod
    def result(cls, text: str, details: Mapping[str, Any]) -> ResultView:
        return ResultView("task list updated", todos=list(details.get("newTodos") or []))

    offered = False  # the task tools replace it (Claude Code 2.1); offered again to a session that used it

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    async def run(self, args: TodoWriteArgs, ctx: ToolContext) -> ToolResult:
        old = self.workspace.todos
        new = [todo.model_dump(exclude_none=True) for todo in args.todos]
        self.workspace.todos = new
        self.workspace.tasks.replace_todos(new)
        counts = {
            status: sum(1 for t in new if t["status"] == status) for status in ("pending", "in_progress", "completed")
        }
        summary = (
            f"Todo list updated: {counts['pending']} pending, {counts['in_progress']} in progress, "
            f"{counts['completed']} completed."
        )
        return ToolResult(content=summary, details=TodoWriteDetails(oldTodos=old, newTodos=new))
