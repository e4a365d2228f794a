"""The frame writer on a real pseudo-terminal: a frame the terminal takes at once is written by the drawing thread; one
it cannot take does not hold that thread and still arrives whole and in order; a pipe goes through the thread."""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
from collections.abc import Iterator

import pytest

from agentui.frontends.tui.direct_writer import DirectWriter, frame

CEILING = 30.0


@pytest.fixture
def pty() -> Iterator[tuple[int, int]]:
    leader, follower = os.openpty()
    yield leader, follower
    for fd in (leader, follower):
        with contextlib.suppress(OSError):
            os.close(fd)


def read_until(fd: int, size: int) -> bytes:
    data, deadline = b"", time.monotonic() + CEILING
    while len(data) < size and time.monotonic() < deadline:
        if select.select([fd], [], [], 0.5)[0]:
            data += os.read(fd, 65536)
    return data


def writer_on(fd: int) -> DirectWriter:
    writer = DirectWriter(os.fdopen(os.dup(fd), "w", encoding="utf-8"))
    writer.start()
    return writer


def writing_threads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the threads that call os.write from now on, in order."""
    threads: list[str] = []
    write = os.write

    def watched(fd: int, data: bytes) -> int:
        threads.append(threading.current_thread().name)
        return write(fd, data)

    monkeypatch.setattr(os, "write", watched)
    return threads


class Driver:
    def __init__(self, writer: DirectWriter) -> None:
        self._writer_thread = writer


def test_a_frame_the_terminal_takes_is_written_by_the_drawing_thread(
    pty: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    leader, follower = pty
    writer = writer_on(follower)
    threads = writing_threads(monkeypatch)
    try:
        with frame(Driver(writer)):
            writer.write("\x1b[?2026h")
            writer.write("héllo")
            writer.write("\x1b[?2026l")
        assert threads == [threading.current_thread().name]  # one write, by this thread, before the frame is left
        assert read_until(leader, 21) == "\x1b[?2026hhéllo\x1b[?2026l".encode()
    finally:
        writer.stop()


def test_a_frame_the_terminal_cannot_take_does_not_wait_and_arrives_in_order(pty: tuple[int, int]) -> None:
    leader, follower = pty
    writer = writer_on(follower)
    frames = [f"<frame {n}>".encode() + bytes([65 + n % 26]) * 20_000 for n in range(20)]  # far past a pty's buffer
    try:
        started = time.monotonic()
        for data in frames:
            with frame(Driver(writer)):
                writer.write(data.decode())
        writer.write("<after>")  # outside a frame: queued behind them
        assert time.monotonic() - started < CEILING  # (no one reads yet: a blocking write would never return)
        expected = b"".join(frames) + b"<after>"
        assert read_until(leader, len(expected)) == expected
    finally:
        writer.stop()


def test_a_terminal_left_without_blocking_loses_nothing_of_what_the_thread_writes(pty: tuple[int, int]) -> None:
    """A program run before can leave the terminal's shared description without blocking: the thread's write is then
    refused for a moment, not done, and what it was writing still reaches the screen."""
    leader, follower = pty
    os.set_blocking(follower, False)  # (the description writer_on's duplicate shares)
    writer = writer_on(follower)
    chunks = [f"<chunk {n}>".encode() + bytes([97 + n % 26]) * 20_000 for n in range(10)]  # far past a pty's buffer
    try:
        for data in chunks:
            writer.write(data.decode())  # (outside a frame: the thread writes it)
        expected = b"".join(chunks)
        assert read_until(leader, len(expected)) == expected
    finally:
        writer.stop()


def test_what_another_thread_writes_during_a_frame_comes_after_the_whole_frame(
    pty: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another thread writing (as Textual's input thread answers the terminal's queries): during a frame the terminal
    took only part of, its write came between the frame's two parts."""
    leader, follower = pty
    writer = writer_on(follower)
    write, other = os.write, threading.Thread(target=writer.write, args=("<reply>",))

    def partial(fd: int, data: bytes) -> int:
        if fd == writer._direct and not other.is_alive() and other.ident is None:
            other.start()  # (the other thread writes now, in the middle of this frame's write)
            other.join(0.5)  # (it waits for the frame, so this only gives it a chance to come between)
            return write(fd, data[:5])  # the terminal takes five bytes of the frame now
        return write(fd, data)

    monkeypatch.setattr(os, "write", partial)
    try:
        with frame(Driver(writer)):
            writer.write("<a whole frame>")
        other.join(CEILING)
        assert read_until(leader, 22) == b"<a whole frame><reply>"
    finally:
        writer.stop()


def test_a_pipe_is_written_by_the_writer_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    reader, pipe = os.pipe()
    writer = writer_on(pipe)
    os.close(pipe)
    threads = writing_threads(monkeypatch)
    try:
        with frame(Driver(writer)):
            writer.write("through the thread")
        assert read_until(reader, 18) == b"through the thread"
        assert threads and threading.current_thread().name not in threads
    finally:
        writer.stop()
        os.close(reader)


def test_the_terminal_opened_again_is_closed_with_the_writer(pty: tuple[int, int]) -> None:
    _, follower = pty
    file = os.fdopen(os.dup(follower), "w", encoding="utf-8")
    before = set(os.listdir("/proc/self/fd"))
    writer = DirectWriter(file)
    writer.start()
    assert len(set(os.listdir("/proc/self/fd")) - before) == 1  # a description of its own, not blocking
    writer.stop()
    assert set(os.listdir("/proc/self/fd")) - before == set()
    file.close()


def test_a_suspend_in_the_middle_of_a_frame_still_resets_the_terminal_and_closes_what_it_opened(
    pty: tuple[int, int],
) -> None:
    """SIGTSTP's handler runs in the drawing thread, wherever it is: in a frame, Textual's suspend writes the terminal's
    reset (leave the alternate screen, show the cursor) and stops the writer. What the frame held and that reset must
    reach the terminal before the process stops, or the shell is left on a blank alternate screen."""
    leader, follower = pty
    writer = writer_on(follower)
    twin = writer._direct
    assert twin is not None
    with frame(Driver(writer)):
        writer.write("half a frame")
        writer.write("\x1b[?1049l\x1b[?25h")  # (what the suspend writes, as Textual's driver does)
        writer.stop()  # (the suspend's own stop, from the handler)
        writer.write("the rest of the frame")  # (after the handler: the screen is drawn whole again on resume)
    assert read_until(leader, 24) == b"half a frame\x1b[?1049l\x1b[?25h"
    assert not select.select([leader], [], [], 0.2)[0]  # (nothing after the stop)
    with pytest.raises(OSError):  # (the terminal it opened again is closed)
        os.fstat(twin)
    writer._file.close()


def test_the_app_writes_through_the_direct_writer_on_textuals_linux_driver() -> None:
    from agentui.frontends.tui.app import AgentApp
    from agentui.frontends.tui.terminal_driver import DirectLinuxDriver

    assert AgentApp(None).driver_class is DirectLinuxDriver


SIGNALLED_WRITES = r"""
import os, select, signal, sys, threading
from agentui.frontends.tui.direct_writer import DirectWriter

leader, follower = os.openpty()
writer = DirectWriter(os.fdopen(follower, "w", encoding="utf-8"))
writer.start()
received = []

def drain():
    while True:
        if select.select([leader], [], [], 0.5)[0]:
            received.append(os.read(leader, 65536))

threading.Thread(target=drain, daemon=True).start()
handled = 0

def handler(*_):
    global handled
    handled += 1
    writer.write("s")  # (as a suspend's handler writes the terminal's reset)

signal.signal(signal.SIGALRM, handler)
signal.setitimer(signal.ITIMER_REAL, 0.0001, 0.0001)
for n in range(int(sys.argv[1])):
    writer.write("m")
signal.setitimer(signal.ITIMER_REAL, 0, 0)
writer.stop()
print(handled, flush=True)
"""


def test_a_signal_handler_that_writes_while_the_drawing_thread_is_queueing_a_write_does_not_hang() -> None:
    """A suspend's handler runs in the drawing thread wherever it is, and writes. With a queue whose put takes a lock
    (Textual's), a handler that came inside a put waited for that lock, held by the thread it ran in: the app hung.
    Here a timer's handler writes thousands of times while the thread writes in a loop."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", SIGNALLED_WRITES, "10000"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 1000  # (the handler did come, many times, between and within the loop's writes)
