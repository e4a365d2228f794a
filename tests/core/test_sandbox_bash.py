"""The Bash tool with the sandbox on: however a command ends (it exits, times out, is cancelled with Esc, is sent to
the background with Ctrl+B, runs in the background), its stand-ins go once it has ended; and with allowed domains the
network bridge needs a Unix socket, yet the command behind it still cannot make one."""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentui.core.tools.base import ToolContext
from agentui.core.tools.bash import Bash, BashArgs
from tests.core.test_sandbox_setup import Box, boxed, make_box
from tests.support.loopback import LoopbackServer, Reply
from tests.support.waiting import eventually


@pytest.fixture
def box(tmp_path: Path) -> Iterator[Box]:
    yield from boxed(tmp_path)


def ctx(progress: list[str] | None = None) -> ToolContext:
    return ToolContext(
        cwd=Path("."), session_id="s", tool_call_id="t", progress=progress.append if progress is not None else print
    )


def tool(box: Box) -> Bash:
    env = {k: box.env[k] for k in ("HOME", "XDG_CONFIG_HOME")}
    return Bash(box.workspace, env=env, sandbox=box.sandbox, guard=box.guard)


def stand_in_present(box: Box) -> bool:
    return (box.project / ".mcp.json").exists()


async def test_a_command_that_exits_or_times_out_leaves_nothing(box: Box) -> None:
    bash = tool(box)
    done = await bash.run(BashArgs(command="cd .git && echo in"), ctx())
    assert done.details["sandboxed"] and done.content == "in" and box.workspace.shell_cwd == box.project / ".git"
    assert box.leftovers() == []
    timed = await bash.run(BashArgs(command="echo begun; sleep 600", timeout=2000), ctx())
    assert timed.details["interrupted"] and box.leftovers() == []


async def test_a_cancelled_command_leaves_nothing_once_it_is_stopped(box: Box) -> None:
    progress: list[str] = []
    task = asyncio.create_task(tool(box).run(BashArgs(command="echo started; sleep 600"), ctx(progress)))
    await eventually(lambda: bool(progress) and stand_in_present(box))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 60)
    assert box.leftovers() == []


async def test_a_command_sent_to_the_background_leaves_nothing_once_it_ends(box: Box) -> None:
    gate = box.project / "gate"
    progress: list[str] = []
    task = asyncio.create_task(
        tool(box).run(BashArgs(command=f"echo started; while [ ! -e {gate} ]; do sleep 0.02; done"), ctx(progress))
    )
    await eventually(lambda: bool(progress))
    assert box.workspace.shells.detach_foreground()
    result = await asyncio.wait_for(task, 60)
    shell = box.workspace.shells.get(result.details["backgroundTaskId"])
    assert shell is not None and stand_in_present(box)  # (still running: its stand-ins stay)
    gate.touch()
    assert await box.workspace.shells.wait(shell, 60)
    gate.unlink()
    await eventually(lambda: box.leftovers() == [])


async def test_a_background_command_and_a_foreground_one_overlap(box: Box) -> None:
    gate = box.project / "gate"
    bash = tool(box)
    started = await bash.run(
        BashArgs(command=f"while [ ! -e {gate} ]; do sleep 0.02; done", run_in_background=True), ctx()
    )
    assert started.details["sandboxed"]
    foreground = await bash.run(BashArgs(command="touch .mcp.json 2>&1 || true; echo done"), ctx())
    assert "Read-only file system" in str(foreground.content)
    assert stand_in_present(box)  # the background one still holds it
    gate.touch()
    shell = box.workspace.shells.get(started.details["backgroundTaskId"])
    assert shell is not None and await box.workspace.shells.wait(shell, 60)
    gate.unlink()
    await eventually(lambda: box.leftovers() == [])


async def test_with_the_network_bridge_the_command_still_cannot_make_a_unix_socket(
    tmp_path: Path, server: LoopbackServer
) -> None:
    server.enqueue(Reply.error(200, {"ok": "reached"}))
    bridged = make_box(tmp_path / "b", allowed_domains=("127.0.0.1",))
    path = tmp_path / "agent.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(path))
    listener.listen(1)
    try:
        bash = tool(bridged)
        fetch = f"python3 -c 'import urllib.request; print(urllib.request.urlopen(\"http://127.0.0.1:{server.port}/\").read())'"
        reached = await bash.run(BashArgs(command=fetch), ctx())
        assert "reached" in str(reached.content), reached.content
        assert bridged.sandbox.proxy is not None
        proxy = bridged.sandbox.proxy.socket_path
        for target in (path, proxy):
            blocked = await bash.run(
                BashArgs(command=f"python3 -c 'import socket; socket.socket(socket.AF_UNIX).connect(\"{target}\")'"),
                ctx(),
            )
            assert blocked.is_error and "Operation not permitted" in str(blocked.content)
    finally:
        listener.close()
        if bridged.sandbox.proxy is not None:
            await bridged.sandbox.proxy.aclose()
    assert os.path.exists(path)
