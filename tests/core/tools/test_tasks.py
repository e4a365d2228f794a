"""The task tools: Claude Code 2.1's results and toolUseResults, dependencies, and a list rebuilt from a real Claude
Code session's calls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentui.core.events import TaskItem
from agentui.core.messages import ToolResultBlock, ToolUseBlock
from agentui.core.session.reader import load_session
from agentui.core.task_board import TaskBoard
from agentui.core.tools.base import Tool, ToolContext, ToolResult
from agentui.core.tools.tasks import TaskCreate, TaskGet, TaskList, TaskUpdate
from agentui.core.tools.todo import TodoWrite
from agentui.core.workspace import Workspace

FIXTURE = Path(__file__).parents[2] / "fixtures" / "claude-projects" / "-experiments-worktrees"
CTX = ToolContext(cwd=Path("."), session_id="s", tool_call_id="t")


async def call(tool: Tool[Any], **arguments: Any) -> ToolResult:
    return await tool.run(tool.Args.model_validate(arguments), CTX)


async def test_create_update_list_and_get_answer_as_claude_code_does(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    seen: list[list[TaskItem]] = []
    ws.tasks.on_change = seen.append
    created = await call(TaskCreate(ws), subject="Research plan mode", description="Read the docs", activeForm="x")
    assert created.content == "Task #1 created successfully: Research plan mode"
    assert created.details == {"task": {"id": "1", "subject": "Research plan mode"}}
    await call(TaskCreate(ws), subject="Write it up", description="")
    updated = await call(TaskUpdate(ws), taskId="1", status="in_progress", owner="alice")
    assert updated.content == "Updated task #1 owner, status"
    assert updated.details == {
        "success": True,
        "taskId": "1",
        "updatedFields": ["status", "owner"],
        "statusChange": {"from": "pending", "to": "in_progress"},
    }
    await call(TaskUpdate(ws), taskId="2", addBlockedBy=["1"])
    listed = await call(TaskList(ws))
    assert listed.content == "#1 [in_progress] Research plan mode (alice)\n#2 [pending] Write it up [blocked by #1]"
    assert listed.details["tasks"][1] == {"id": "2", "subject": "Write it up", "status": "pending", "blockedBy": ["1"]}
    got = await call(TaskGet(ws), taskId="1")
    assert got.content == (
        "Task #1: Research plan mode\nStatus: in_progress\nDescription: Read the docs\nOwner: alice\nBlocks: #2"
    )
    # Done: what it blocked is free. Every change reached the panel, the last one whole.
    await call(TaskUpdate(ws), taskId="1", status="completed")
    assert (await call(TaskList(ws))).content.endswith("#2 [pending] Write it up")  # type: ignore[union-attr]
    assert [t.status for t in seen[-1]] == ["completed", "pending"] and len(seen) == 5


async def test_deleting_unknown_ids_and_todo_write_beside_the_tasks(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    await call(TaskCreate(ws), subject="One", description="")
    await call(TaskCreate(ws), subject="Two", description="")
    await call(TaskUpdate(ws), taskId="2", addBlocks=["1"])
    deleted = await call(TaskUpdate(ws), taskId="2", status="deleted")
    assert deleted.content == "Task #2 deleted" and ws.tasks.get("1").blocked_by == ()
    again = await call(TaskCreate(ws), subject="Three", description="")
    assert again.details["task"]["id"] == "3"  # ids are not reused
    for result in (
        await call(TaskUpdate(ws), taskId="9", status="completed"),
        await call(TaskGet(ws), taskId="9"),
        await call(TaskUpdate(ws), taskId="1", addBlockedBy=["7"]),
    ):
        assert result.is_error and result.content in ("Task #9 not found", "Task #7 not found")
    assert ws.tasks.get("1").blocked_by == ()  # the failed call changed nothing
    assert (await call(TaskList(Workspace(tmp_path / "x")))).content == "No tasks found"
    await call(TodoWrite(ws), todos=[{"content": "Fix it", "status": "in_progress", "activeForm": "Fixing it"}])
    assert [(t.subject, t.status, t.active_form) for t in ws.tasks.items()][-1] == (
        "Fix it",
        "in_progress",
        "Fixing it",
    )


def test_a_claude_code_session_s_task_list_is_rebuilt_from_its_calls() -> None:
    """The 2.1.114 session with teammates: replaying its calls up to its TaskList call gives what that call said."""
    path = next(FIXTURE.glob("*.jsonl"))
    messages = load_session(path).messages
    position, calls = next(
        (n, calls)
        for n, message in enumerate(messages)
        if (calls := [b for b in message.content if isinstance(b, ToolUseBlock) and b.name == "TaskList"])
    )
    recorded = next(
        b
        for m in messages[position + 1 :]
        for b in m.content
        if isinstance(b, ToolResultBlock) and b.tool_use_id == calls[0].id
    )
    board = TaskBoard()
    board.replay(messages[:position])
    ours = [f"#{t.id} [{t.status}] {t.subject}" + (f" ({t.owner})" if t.owner else "") for t in board.tasks()]
    assert isinstance(recorded.content, str)
    assert sorted(ours) == sorted(recorded.content.splitlines())  # (Claude Code lists them in its files' order)
