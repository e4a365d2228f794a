"""Read of files that are not plain text files: nothing blocks, nothing escapes, nothing takes unbounded memory
(issue 31: a FIFO hung the program, a looping link escaped as RuntimeError, a 2 GB line took 4 GB)."""

from __future__ import annotations

import asyncio
import os
import socket
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from agentui.core.tools.base import ToolContext
from agentui.core.tools.read import MAX_LINE_CHARS, SKIP_LINE_CHARS, Read, ReadArgs
from agentui.core.workspace import Workspace
from tests.support.permissions import answer_to_one_call


async def read(root: Path, name: str, **args: Any) -> Any:
    tool = Read(Workspace(root=root))
    ctx = ToolContext(cwd=root, session_id="s", tool_call_id="t")
    return await asyncio.wait_for(tool.run(ReadArgs(file_path=name, **args), ctx), 60)


async def test_a_fifo_with_no_writer_is_refused_without_waiting(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    block = await answer_to_one_call(tmp_path, "Read", {"file_path": "pipe"})
    assert block.is_error
    assert block.content == "pipe is a named pipe (FIFO), not a regular file; Read reads regular files only."


async def test_a_fifo_with_a_writer_is_refused_too(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    writer = os.open(tmp_path / "pipe", os.O_RDWR | os.O_NONBLOCK)  # (a writer that never writes)
    try:
        result = await read(tmp_path, "pipe")
    finally:
        os.close(writer)
    assert result.is_error and "named pipe (FIFO)" in result.content


async def test_a_socket_and_a_device_are_refused_by_type(tmp_path: Path) -> None:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tmp_path / "sock"))
    try:
        result = await read(tmp_path, "sock")
    finally:
        server.close()
    assert result.is_error and result.content == (
        "sock is a socket, not a regular file; Read reads regular files only."
    )
    result = await read(tmp_path, "/dev/zero")
    assert result.is_error and result.content.endswith(
        "is a device, not a regular file; Read reads regular files only."
    )


async def test_a_link_to_a_fifo_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "notes.txt").symlink_to(tmp_path / "pipe")
    result = await read(tmp_path, "notes.txt")
    assert result.is_error and "named pipe (FIFO)" in result.content


async def test_a_looping_link_is_an_error_result_and_the_run_goes_on(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    block = await answer_to_one_call(tmp_path, "Read", {"file_path": "a"})
    assert block.is_error
    assert block.content == "a cannot be read: too many levels of symbolic links."


async def test_a_directory_is_still_refused_as_one(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    result = await read(tmp_path, "src")
    assert result.is_error and result.content.startswith("src is a directory")


async def test_a_huge_line_after_text_costs_bounded_memory(tmp_path: Path) -> None:
    """13 KB of text, then a sparse 1 GB of zeros (one line): a few lines are shown, the long one cut, and the
    reading stops after SKIP_LINE_CHARS of it, using a small fraction of its size in memory."""
    path = tmp_path / "big.log"
    with path.open("wb") as handle:
        handle.write(b"hello world\n" * 1100)
        handle.truncate(1 << 30)
    tracemalloc.start()
    try:
        result = await read(tmp_path, "big.log", offset=1099, limit=5)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert not result.is_error
    lines = result.content.splitlines()
    assert lines[0] == "  1099\thello world" and lines[1] == "  1100\thello world"
    assert lines[2].startswith("  1101\t" + "\x00" * MAX_LINE_CHARS)
    assert f"the line goes on for more than {SKIP_LINE_CHARS:,} characters; Read stops here" in lines[2]
    assert peak < 64 * 1024 * 1024, f"{peak:,} bytes"


async def test_an_overlong_line_is_cut_and_the_next_line_follows(tmp_path: Path) -> None:
    path = tmp_path / "wide.txt"
    path.write_bytes(b"short\n" * 50_000 + b"x" * 300_000 + b"\r\nafter\n")  # (past the whole-file size: streamed)
    result = await read(tmp_path, "wide.txt", offset=50_001, limit=3)
    lines = result.content.splitlines()
    assert lines[0] == " 50001\t" + "x" * MAX_LINE_CHARS + f"… [{300_000 - MAX_LINE_CHARS:,} more characters]"
    assert lines[1] == " 50002\tafter"


@pytest.mark.parametrize("width", [MAX_LINE_CHARS - 1, MAX_LINE_CHARS, MAX_LINE_CHARS + 1])
async def test_a_crlf_ending_split_at_the_cut_is_one_ending(tmp_path: Path, width: int) -> None:
    path = tmp_path / "crlf.txt"
    path.write_bytes(b"pad\n" * 70_000 + b"y" * width + b"\r\nnext\r\n")
    result = await read(tmp_path, "crlf.txt", offset=70_001, limit=5)
    lines = result.content.splitlines()
    assert len(lines) == 2 and lines[1] == " 70002\tnext", lines[1:]


async def test_a_path_swapped_for_a_link_after_its_check_is_not_followed(tmp_path: Path) -> None:
    from agentui.core.tools.base import ToolContext
    from agentui.core.tools.read import Read
    from agentui.core.workspace import Workspace

    project = tmp_path / "project"
    (project / "d").mkdir(parents=True)
    (project / "d" / "f.txt").write_text("checked\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_text("SECRET\n")
    checked = Path(os.path.realpath(project / "d" / "f.txt"))  # what the permission check resolved and allowed
    (project / "d").rename(project / "d-was")
    (project / "d").symlink_to(outside)  # swapped by a program running meanwhile
    tool = Read(Workspace(root=project))
    ctx = ToolContext(cwd=project, session_id="s", tool_call_id="t", checked_path=checked)
    result = await tool.run(tool.Args(file_path="d/f.txt"), ctx)
    assert result.is_error and "SECRET" not in str(result.content)
    assert "changed while it was being read" in str(result.content)
