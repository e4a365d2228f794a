"""agentui never writes through a link a command planted: its scratch directory is not writable from the sandbox or the
guard (but for the commands' own corner), and the files it makes there (output spills, background output) are made
new, never through a link; the working directory a command leaves is read only from a small regular file."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentui.core.scratch_files import read_small_file, scratch_files
from agentui.core.tools.base import ToolContext
from agentui.core.tools.bash import Bash, BashArgs
from agentui.core.tools.output import OutputCapture
from agentui.core.workspace import Workspace
from tests.core.test_sandbox_setup import Box, boxed


@pytest.fixture
def box(tmp_path: Path) -> Iterator[Box]:
    yield from boxed(tmp_path)


def ctx(lifted: bool = False) -> ToolContext:
    return ToolContext(cwd=Path("."), session_id="s", tool_call_id="t", protection_lifted=lifted)


def test_a_confined_command_cannot_plant_anything_in_the_scratch_directory(box: Box) -> None:
    scratch = box.workspace.scratch
    target = box.tmp / "victim"
    target.write_text("untouched\n")
    for guard in (False, True):
        done = box.run(
            f"ln -s {target} {scratch}/bash-next.log; mkdir {scratch}/tasks; touch {scratch}/x;"
            'echo tmp > "$TMPDIR/t" 2>/dev/null || echo tmp > ' + str(scratch_files(scratch).commands_dir()) + "/t",
            guard=guard,
        )
        assert "Read-only file system" in done.err, done.err
        assert sorted(os.listdir(scratch)) == ["commands"]
    assert (scratch_files(scratch).commands_dir() / "t").read_text() == "tmp\n"
    assert target.read_text() == "untouched\n"


def test_a_spill_file_is_never_written_through_a_planted_link(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    victim = tmp_path / "victim"
    victim.write_text("untouched\n")
    (scratch / "bash-known.log").symlink_to(victim)
    capture = OutputCapture(scratch / "bash-known.log", limit=100)
    capture.feed(b"x" * 1000)
    text = capture.finish()
    assert victim.read_text() == "untouched\n"
    assert capture.spill_path != scratch / "bash-known.log" and capture.spill_path.read_bytes() == b"x" * 1000
    assert str(capture.spill_path) in text


async def test_background_output_is_never_written_through_a_planted_link(tmp_path: Path) -> None:
    workspace = Workspace(root=tmp_path)
    victim = tmp_path / "victim"
    victim.write_text("untouched\n")
    tasks = workspace.scratch / "tasks"
    tasks.mkdir()
    shells = workspace.shells
    original = shells.new_id  # (the ids are random: the link is planted at each one as it is drawn)
    planted: list[str] = []

    def planting() -> str:
        shell_id = original()
        (tasks / f"{shell_id}.output").symlink_to(victim)
        planted.append(shell_id)
        return shell_id

    shells.new_id = planting  # type: ignore[method-assign]
    result = await Bash(workspace).run(BashArgs(command="echo hello", run_in_background=True), ctx())
    shell = shells.get(result.details["backgroundTaskId"])
    assert shell is not None and await shells.wait(shell, 60)
    assert victim.read_text() == "untouched\n" and shell.read_new().text == "hello\n"
    assert shell.output_path.name != f"{planted[0]}.output"


async def test_a_directory_of_its_own_replaced_by_a_link_is_not_used(tmp_path: Path) -> None:
    workspace = Workspace(root=tmp_path / "p")
    workspace.root.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (workspace.scratch / "tasks").symlink_to(elsewhere)
    files = scratch_files(workspace.scratch)
    commands = files.commands_dir()
    os.rename(commands, workspace.scratch / "moved")
    (workspace.scratch / "commands").symlink_to(elsewhere)  # what an unconfined command could do
    assert files.commands_dir() != workspace.scratch / "commands"
    await Bash(workspace).run(BashArgs(command="echo hi", run_in_background=True), ctx(lifted=True))
    assert list(elsewhere.iterdir()) == []


async def test_the_working_directory_file_is_read_only_when_it_is_a_small_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert read_small_file(fifo) is None  # (and did not wait for a writer)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    (tmp_path / "real").write_text("/etc\n")
    assert read_small_file(tmp_path / "link") is None
    (tmp_path / "big").write_bytes(b"/" * 100_000)
    assert read_small_file(tmp_path / "big") is None
    assert read_small_file(tmp_path / "real") == b"/etc\n"
    workspace = Workspace(root=tmp_path / "p")
    workspace.root.mkdir()
    (workspace.root / "sub").mkdir()
    tool = Bash(workspace)
    # the command replaces the file its trap will write with a FIFO: the next call is not held up
    command = 'f=$(trap -p EXIT | sed "s/.*>| //; s/\x27 EXIT//"); cd sub; trap - EXIT; mkfifo "$f"'
    result = await asyncio.wait_for(tool.run(BashArgs(command=command), ctx()), 60)
    assert not result.is_error, result.content
    assert workspace.shell_cwd == workspace.root
