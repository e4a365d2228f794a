"""The terminal's keys read by the event loop (in place of Textual's input thread), on a real pseudo-terminal: keys
and sequences arrive as Textual's parser makes them, on the loop's own thread; a lone Esc is told from a sequence's
start once the parser's wait is over; reading stops when the driver stops it, and at the terminal's end."""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
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


async def test_the_end_of_the_terminal_ends_reading(pty: tuple[int, int]) -> None:
    leader, follower = pty
    received = Received()
    reader = LoopInput(follower, received)
    stopped, join = asyncio.Event(), reader.join
    reader.join = lambda timeout=None: (join(timeout), stopped.set())[0]  # type: ignore[method-assign]
    reader.start()
    os.close(leader)  # the terminal is gone: reading gets an error, then would get it again at every turn
    async with asyncio.timeout(CEILING):
        await stopped.wait()
    assert not reader.is_alive()
    assert received.keys() == []
