"""The terminal's keys read by the event loop (in place of Textual's input thread), on a real pseudo-terminal: keys
and sequences arrive as Textual's parser makes them, on the loop's own thread; a lone Esc is told from a sequence's
start once the parser's wait is over; reading stops when the driver stops it, and at the terminal's end."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import select
import struct
import termios
import threading
import tty
from collections.abc import Iterator

import pytest
from textual import events
from textual.message import Message

from agentui.frontends.tui.loop_input import LoopInput

CEILING = 30.0


@pytest.fixture
def pty() -> Iterator[tuple[int, int]]:
    leader, follower = os.openpty()
    tty.setraw(follower)  # (as the driver sets it: each key as it is typed)
    yield leader, follower
    for fd in (leader, follower):
        with contextlib.suppress(OSError):
            os.close(fd)


class Received:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.threads: set[int] = set()
        self.changed = asyncio.Event()

    def __call__(self, message: Message) -> None:
        self.messages.append(message)
        self.threads.add(threading.get_ident())
        self.changed.set()

    def keys(self) -> list[str]:
        return [message.key for message in self.messages if isinstance(message, events.Key)]

    async def until(self, count: int) -> list[str]:
        async with asyncio.timeout(CEILING):
            while len(self.keys()) < count:
                self.changed.clear()
                await self.changed.wait()
        return self.keys()


async def test_keys_and_sequences_arrive_on_the_loops_thread(pty: tuple[int, int]) -> None:
    leader, follower = pty
    received = Received()
    reader = LoopInput(follower, received)
    reader.start()
    try:
        os.write(leader, "aé\x1b[A\r".encode())  # a letter, an accented one, Up, Enter
        assert await received.until(4) == ["a", "é", "up", "enter"]
        assert received.threads == {threading.get_ident()}
    finally:
        reader.join()


async def test_a_lone_escape_is_told_from_the_start_of_a_sequence(pty: tuple[int, int]) -> None:
    leader, follower = pty
    received = Received()
    reader = LoopInput(follower, received)
    reader.start()
    try:
        os.write(leader, b"\x1b")  # nothing follows it: Esc, once the parser has waited for a sequence's rest
        assert await received.until(1) == ["escape"]
        os.write(leader, b"\x1b[B")
        assert await received.until(2) == ["escape", "down"]
    finally:
        reader.join()


async def test_reading_stops_when_the_driver_stops_it(pty: tuple[int, int]) -> None:
    """A suspend gives the terminal back: what is typed after is left for whoever has it now."""
    leader, follower = pty
    received = Received()
    reader = LoopInput(follower, received)
    reader.start()
    os.write(leader, b"x")
    assert await received.until(1) == ["x"]
    reader.join()
    assert not reader.is_alive()
    os.write(leader, b"y")
    assert select.select([follower], [], [], CEILING)[0]  # (there to read)
    await asyncio.sleep(0)  # (a turn of the loop, where a reader still registered would have read it)
    await asyncio.sleep(0)
    assert os.read(follower, 10) == b"y"  # still there, unread
    assert received.keys() == ["x"]


async def test_the_end_of_the_terminal_ends_reading_and_is_told(pty: tuple[int, int]) -> None:
    """The terminal gone (its other end closed) is a hang-up to the driver: reading again would get the error again at
    every turn of the loop."""
    leader, follower = pty
    received, ended = Received(), asyncio.Event()
    reader = LoopInput(follower, received, ended=ended.set)
    reader.start()
    os.close(leader)
    async with asyncio.timeout(CEILING):
        await ended.wait()
    assert not reader.is_alive()
    assert received.keys() == []


async def pending(fd: int) -> None:
    """Until what was written to the terminal has been read from it."""
    for _ in range(int(CEILING / 0.01)):
        if not struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("what was written was never read")


async def test_a_character_that_comes_in_two_reads_is_one_key_and_keys_go_on(pty: tuple[int, int]) -> None:
    """A slow link can split a character's bytes: its first alone decodes to nothing, which Textual's parser takes as
    the end of input (every key after was lost)."""
    leader, follower = pty
    received = Received()
    reader = LoopInput(follower, received)
    reader.start()
    try:
        os.write(leader, b"\xc3")  # é's first byte
        await pending(follower)
        os.write(leader, b"\xa9abc")
        assert await received.until(4) == ["é", "a", "b", "c"]
    finally:
        reader.join()


async def test_an_error_in_handling_a_key_is_told_and_ends_reading(pty: tuple[int, int]) -> None:
    leader, follower = pty
    errors: list[Exception] = []

    def process(message: Message) -> None:
        raise ValueError("a bug")

    reader = LoopInput(follower, process, failed=errors.append)
    reader.start()
    os.write(leader, b"x")
    async with asyncio.timeout(CEILING):
        while not errors:  # noqa: ASYNC110 (the error has no event of its own to wait for)
            await asyncio.sleep(0.01)
    assert [str(error) for error in errors] == ["a bug"]
    assert not reader.is_alive()


async def test_keys_typed_just_before_reading_stops_are_taken(pty: tuple[int, int]) -> None:
    """Before a suspend flushes the terminal's input (as Textual's thread read once more before it ended)."""
    leader, follower = pty
    received = Received()
    reader = LoopInput(follower, received)
    reader.start()
    os.write(leader, b"ab")
    assert select.select([follower], [], [], CEILING)[0]  # (there to read; the loop has not had a turn)
    reader.join()
    assert received.keys() == ["a", "b"]
