"""Background shells in real subprocesses: started at once, read as they go, stopped with everything they started,
sent to the background while running, and never outliving agentui."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agentui.core.tools.background import BashOutput, KillShell, TaskOutput, TaskOutputArgs, TaskStop
from agentui.core.tools.base import ToolContext, ToolResult
from agentui.core.tools.bash import Bash, BashArgs
from agentui.core.workspace import Workspace
from tests.core.tools.test_bash import processes_with
from tests.support.waiting import eventually


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    project = tmp_path / "proj"
    project.mkdir()
    return Workspace(root=project)


def ctx(progress: list[str] | None = None) -> ToolContext:
    return ToolContext(
        cwd=Path("."), session_id="s", tool_call_id="t", progress=progress.append if progress is not None else print
    )


async def start(ws: Workspace, command: str) -> str:
    result = await Bash(ws).run(BashArgs(command=command, run_in_background=True, description="test"), ctx())
    assert not result.is_error, result.content
    shell_id = result.details["backgroundTaskId"]
    assert isinstance(result.content, str) and f"with ID: {shell_id}" in result.content
    return str(shell_id)


async def output(ws: Workspace, shell_id: str, *, block: bool = True, wait_ms: float = 60_000) -> ToolResult:
    args = TaskOutputArgs(task_id=shell_id, block=block, timeout=wait_ms)
    return await TaskOutput(ws).run(args, ctx())


async def test_a_background_command_returns_at_once_and_its_output_is_read_when_it_ends(ws: Workspace) -> None:
    (ws.root / "gate").write_text("")
    # It cannot end before the test lets it: the Bash call must have returned while it runs.
    shell_id = await start(ws, "echo first; while [ -e gate ]; do sleep 0.05; done; echo second; exit 4")
    shell = ws.shells.get(shell_id)
    assert shell is not None and shell.status == "running"
    early = await output(ws, shell_id, block=False)
    assert "<retrieval_status>not_ready</retrieval_status>" in str(early.content)
    assert early.details["task"]["status"] == "running" and early.details["task"]["exitCode"] is None
    (ws.root / "gate").unlink()
    done = await output(ws, shell_id)
    text = str(done.content)
    assert "<retrieval_status>success</retrieval_status>" in text and "<status>failed</status>" in text
    assert "<exit_code>4</exit_code>" in text
    # Output is read once: what the first read returned is not returned again.
    seen = early.details["task"]["output"] + done.details["task"]["output"]
    assert seen == "first\nsecond\n"


async def test_a_command_that_exits_at_once_and_one_that_waits_past_the_timeout(ws: Workspace) -> None:
    quick = await start(ws, "echo hello")
    result = await output(ws, quick)
    assert (
        result.details["task"] | {"output": "hello\n", "status": "completed", "exitCode": 0} == result.details["task"]
    )
    slow = await start(ws, "sleep 30.7101")
    waited = await output(ws, slow, wait_ms=50)
    assert waited.details["retrieval_status"] == "timeout" and "<status>running</status>" in str(waited.content)
    assert "(no new output)" in str(waited.content)
    await ws.shells.stop_all()


async def test_unknown_ids_are_a_clear_error(ws: Workspace) -> None:
    known = await start(ws, "true")
    result = await output(ws, "b000000")
    assert result.is_error and result.content == f"No background task found with ID: b000000 (the tasks are: {known})"
    stop = await TaskStop(ws).run(TaskStop.Args.model_validate({"task_id": "nope"}), ctx())
    assert stop.is_error and "No background task found with ID: nope" in str(stop.content)
    empty = await TaskStop(ws).run(TaskStop.Args.model_validate({}), ctx())
    assert empty.is_error and "needs task_id" in str(empty.content)


async def test_task_stop_ends_the_command_and_everything_it_started(ws: Workspace) -> None:
    shell_id = await start(ws, "sleep 31.7102 & sleep 31.7102 & echo up; wait")
    await eventually(lambda: len(processes_with("31.7102")) == 2)
    result = await TaskStop(ws).run(TaskStop.Args.model_validate({"task_id": shell_id}), ctx())
    assert not result.is_error and result.details["task_id"] == shell_id
    assert processes_with("31.7102") == []
    shell = ws.shells.get(shell_id)
    assert shell is not None and shell.status == "killed"
    again = await TaskStop(ws).run(TaskStop.Args.model_validate({"shell_id": shell_id}), ctx())
    assert (
        again.is_error and again.content == f"Task {shell_id} is not running (status: killed), so it cannot be stopped"
    )


async def test_claude_code_2_0_names_read_and_kill_the_same_shells(ws: Workspace) -> None:
    shell_id = await start(ws, "echo ready; echo noise; sleep 32.7103")
    await eventually(lambda: "noise" in (ws.shells.get(shell_id).tail(100)))  # type: ignore[union-attr]
    result = await BashOutput(ws).run(BashOutput.Args.model_validate({"bash_id": shell_id, "filter": "^re"}), ctx())
    assert str(result.content).startswith("<status>running</status>\n\n<stdout>\nready\n</stdout>\n\n<timestamp>")
    assert result.details["shellId"] == shell_id and result.details["stdout"] == "ready"
    killed = await KillShell(ws).run(KillShell.Args.model_validate({"shell_id": shell_id}), ctx())
    assert killed.details == {
        "message": f"Successfully killed shell: {shell_id} (echo ready; echo noise; sleep 32.7103)",
        "shell_id": shell_id,
    }
    assert processes_with("32.7103") == []


async def test_a_running_foreground_command_can_be_sent_to_the_background(ws: Workspace) -> None:
    progress: list[str] = []
    (ws.root / "gate").write_text("")
    command = "echo before; while [ -e gate ]; do sleep 0.05; done; echo after"
    run = asyncio.ensure_future(Bash(ws).run(BashArgs(command=command), ctx(progress)))
    await eventually(lambda: "before" in "".join(progress))
    assert ws.shells.detach_foreground()
    result = await asyncio.wait_for(run, 60)
    shell_id = result.details["backgroundTaskId"]
    assert not result.is_error and result.details["backgroundedByUser"] is True
    assert "sent this command to the background" in str(result.content)
    assert not ws.shells.detach_foreground()  # nothing runs in the foreground now
    (ws.root / "gate").unlink()
    done = await output(ws, shell_id)
    assert done.details["task"]["status"] == "completed" and done.details["task"]["output"] == "before\nafter\n"


async def test_detaching_with_no_command_running_does_nothing(ws: Workspace) -> None:
    assert not ws.shells.detach_foreground()
    result = await Bash(ws).run(BashArgs(command="echo plain"), ctx())
    assert result.content == "plain" and not ws.shells.detach_foreground()


async def test_a_large_output_is_read_from_its_end(ws: Workspace) -> None:
    shell_id = await start(ws, "seq 1 200000")
    result = await output(ws, shell_id)
    task = result.details["task"]
    assert task["output"].endswith("199999\n200000\n") and len(task["output"]) <= 30_000
    assert "earlier bytes of new output are in" in str(result.content)


def test_no_background_shell_outlives_the_interpreter(tmp_path: Path) -> None:
    """agentui exiting without closing its conversation (an error) still stops its background shells."""
    script = textwrap.dedent(
        f"""
        import asyncio
        from pathlib import Path
        from agentui.core.workspace import Workspace
        from agentui.core.tools.bash import Bash, BashArgs
        from agentui.core.tools.base import ToolContext

        async def main():
            ws = Workspace(root=Path({str(tmp_path)!r}))
            ctx = ToolContext(cwd=ws.root, session_id="s", tool_call_id="t")
            # A first conversation's shell, stopped when it closed; the project goes on to the next conversation.
            await Bash(ws).run(BashArgs(command="true", run_in_background=True), ctx)
            await ws.shells.stop_all()
            command = "sleep 33.7104 & echo $! > started; sleep 33.7104"
            await Bash(ws).run(BashArgs(command=command, run_in_background=True), ctx)
            while not (ws.root / "started").read_text() if (ws.root / "started").exists() else True:
                await asyncio.sleep(0.05)
            print("started", flush=True)
            raise SystemExit(3)

        asyncio.run(main())
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=os.getcwd())
    assert "started" in done.stdout and done.returncode == 3, done.stderr
    # (the pid written is the guard's PID namespace's, so the sleeps are looked for by their command line)
    assert processes_with("33.7104") == []
