"""Goals kept across sessions: with CLAUDE_CODE_TASK_LIST_ID, the task tools work on Claude Code's shared list in
~/.claude/tasks/<list>/ (one JSON file per task, ids that never come back), which a later session, or another one
at the same time, finds as it was left; a rewind or a resume does not touch the list."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from agentui.core.assembly import open_conversation
from agentui.core.conversation import Conversation, Launch
from agentui.core.messages import ToolResultBlock
from agentui.core.project import PermissionOptions
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.settings import Settings
from agentui.core.task_files import TaskFiles, TaskListBusy
from tests.core.test_task_state import say, use


def open_in(tmp_path: Path, script: list[dict[str, Any]], list_id: str | None = "Goals of the week") -> Conversation:
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    if list_id is not None:
        env["CLAUDE_CODE_TASK_LIST_ID"] = list_id
    launch = Launch(Settings(provider="scripted", model="scripted"), cwd=root, permissions=PermissionOptions())
    return open_conversation(launch, provider=ScriptedProvider(script), env=env)


def results(conversation: Conversation) -> dict[str, str]:
    return {
        block.tool_use_id: str(block.content)
        for message in conversation.messages
        for block in message.content
        if isinstance(block, ToolResultBlock)
    }


async def test_tasks_outlive_the_session_in_claude_codes_files(tmp_path: Path) -> None:
    first = open_in(
        tmp_path,
        [
            use("TaskCreate", "c1", subject="Port the parser", description="to the new API", activeForm="Porting"),
            use("TaskCreate", "c2", subject="Write the docs", description=""),
            use("TaskCreate", "c3", subject="Scratch", description=""),
            use("TaskUpdate", "u1", taskId="1", status="completed"),
            use("TaskUpdate", "u2", taskId="2", addBlockedBy=["1"]),
            use("TaskUpdate", "u3", taskId="3", status="deleted"),
            say("Done."),
        ],
    )
    try:
        await first.agent.prompt("plan the week")
    finally:
        await first.aclose()
    directory = tmp_path / "claude" / "tasks" / "Goals-of-the-week"  # (as Claude Code spells a list's name)
    assert sorted(p.name for p in directory.glob("*.json")) == ["1.json", "2.json"]
    assert json.loads((directory / "1.json").read_text()) == {
        "id": "1",
        "subject": "Port the parser",
        "description": "to the new API",
        "activeForm": "Porting",
        "status": "completed",
        "blocks": ["2"],
        "blockedBy": [],
    }
    assert (directory / ".highwatermark").read_text() == "3"

    second = open_in(tmp_path, [use("TaskList", "l1"), use("TaskCreate", "c4", subject="Ship", description=""),
                                say("Listed.")])  # fmt: skip
    try:
        assert [task.subject for task in second.tasks] == ["Port the parser", "Write the docs"]  # before any call
        await second.agent.prompt("what is left?")
        said = results(second)
        assert said["l1"] == "#1 [completed] Port the parser\n#2 [pending] Write the docs"
        assert "Task #4 created" in said["c4"]  # (3 was deleted: its id is not given again)
        [point] = second.prompts()
        second.rewind(point.uuid)  # the conversation goes back; the shared list stays as it is
        assert [task.id for task in second.tasks] == ["1", "2", "4"]
    finally:
        await second.aclose()
    assert (directory / "4.json").exists()


async def test_without_the_variable_the_list_stays_in_the_session(tmp_path: Path) -> None:
    conversation = open_in(tmp_path, [use("TaskCreate", "c1", subject="Only here", description=""), say("ok")], None)
    try:
        await conversation.agent.prompt("go")
    finally:
        await conversation.aclose()
    assert not (tmp_path / "claude" / "tasks").exists()


def test_two_sessions_creating_at_once_never_take_the_same_id(tmp_path: Path) -> None:
    from agentui.core.task_board import TaskBoard

    directory = tmp_path / "tasks" / "shared"
    boards = [TaskBoard(), TaskBoard()]
    for board in boards:
        board.share(TaskFiles(directory))
    made: list[str] = []

    def create(board: TaskBoard, n: int) -> None:
        for i in range(25):
            made.append(board.create(f"task {n}-{i}").id)

    threads = [threading.Thread(target=create, args=(board, n)) for n, board in enumerate(boards)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(made, key=int) == [str(i) for i in range(1, 51)]
    assert len(list(directory.glob("*.json"))) == 50


def test_a_damaged_task_file_is_left_alone_and_a_lock_held_too_long_is_one_sentence(tmp_path: Path) -> None:
    from agentui.core import task_files

    directory = tmp_path / "tasks" / "shared"
    directory.mkdir(parents=True)
    (directory / "7.json").write_text("{not json")
    kept = {"id": "8", "subject": "kept", "description": "", "status": "pending", "blocks": [], "blockedBy": []}
    (directory / "8.json").write_text(json.dumps({**kept, "metadata": {"x": 1}}))
    files = TaskFiles(directory)
    [task] = files.load()
    files.save(task.model_copy(update={"status": "in_progress"}))
    assert json.loads((directory / "8.json").read_text())["metadata"] == {"x": 1}  # Claude Code's own, kept
    assert (directory / "7.json").read_text() == "{not json"

    (directory / ".lock.lock").mkdir()  # another session's lock, fresh
    old = task_files.LOCK_WAIT
    task_files.LOCK_WAIT = 0.2
    try:
        with pytest.raises(TaskListBusy, match="stayed locked by another session"), files.locked():
            pass
        stale = os.stat(directory / ".lock.lock").st_mtime - 60
        os.utime(directory / ".lock.lock", (stale, stale))  # a lock left by a session that died is taken over
        with files.locked():
            assert (directory / ".lock.lock").is_dir()
        assert not (directory / ".lock.lock").exists()
    finally:
        task_files.LOCK_WAIT = old


async def test_waiting_for_another_sessions_lock_leaves_the_event_loop_free(tmp_path: Path) -> None:
    """The lock is another session's when TaskCreate runs; that session lets go once it sees agentui trying (its
    `.lock` touched). Only a wait that leaves the event loop running lets the other side (here a coroutine) go on."""
    import asyncio

    from agentui.core.events import Event, ToolStart

    directory = tmp_path / "claude" / "tasks" / "Goals-of-the-week"
    directory.mkdir(parents=True)
    (directory / ".lock.lock").mkdir()
    released: list[bool] = []

    async def other_session() -> None:
        while True:  # (until agentui's first try has touched the list's `.lock`)
            if (directory / ".lock").exists():
                break
            await asyncio.sleep(0.01)
        (directory / ".lock.lock").rmdir()
        released.append(True)

    conversation = open_in(tmp_path, [use("TaskCreate", "c1", subject="Ship", description=""), say("ok")])
    waiting: list[asyncio.Task[None]] = []

    def on(event: Event) -> None:
        if isinstance(event, ToolStart):
            waiting.append(asyncio.get_running_loop().create_task(other_session()))

    conversation.on(on)
    try:
        await conversation.agent.prompt("go")
        assert released and "Task #1 created" in results(conversation)["c1"]
    finally:
        for task in waiting:
            task.cancel()
        await conversation.aclose()


async def test_a_lock_kept_by_another_session_is_one_sentence_for_the_model(tmp_path: Path) -> None:
    from agentui.core import task_files

    directory = tmp_path / "claude" / "tasks" / "Goals-of-the-week"
    (directory / ".lock.lock").mkdir(parents=True)  # (fresh: another session holds it throughout)
    conversation = open_in(tmp_path, [use("TaskCreate", "c1", subject="Ship", description=""), say("ok")])
    old, task_files.LOCK_WAIT = task_files.LOCK_WAIT, 0.3
    try:
        await conversation.agent.prompt("go")
        said = results(conversation)["c1"]
        assert said == "The shared task list Goals-of-the-week stayed locked by another session; try again."
    finally:
        task_files.LOCK_WAIT = old
        await conversation.aclose()
