"""The terminal's keys read by the event loop itself, in place of Textual's input thread: the thread woke for each key
and then woke the loop to hand it over, a hop of about a third of a millisecond a key on an idle machine (more on a
busy one), and a lone Esc waited for the thread's next tenth of a second to be told from the start of a sequence."""

from __future__ import annotations

import asyncio
import os
from codecs import getincrementaldecoder
from collections.abc import Callable

from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.message import Message


class LoopInput:
    """What Textual's input thread did, done when the loop sees the terminal readable. It stands where the driver
    keeps its thread: `start` begins reading and `join` (the driver's stop) ends it."""

    def __init__(self, fileno: int, process: Callable[[Message], None], debug: bool = False) -> None:
        self._fileno = fileno
        self._process = process
        self._parser = XTermParser(debug)
        self._decode = getincrementaldecoder("utf-8")("replace").decode  # (a stray byte is not a crash)
        self._loop = asyncio.get_running_loop()
        self._tick: asyncio.TimerHandle | None = None
        self._reading = False

    def start(self) -> None:
        self._loop.add_reader(self._fileno, self._read)
        self._reading = True

    def join(self, timeout: float | None = None) -> None:
        """Stop reading (the driver stops its thread so, before it gives the terminal back)."""
        if self._reading:
            self._reading = False
            self._loop.remove_reader(self._fileno)
        if self._tick is not None:
            self._tick.cancel()
            self._tick = None

    def is_alive(self) -> bool:
        return self._reading

    def _read(self) -> None:
        try:
            data = os.read(self._fileno, 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""  # (the terminal is gone: as the end of input)
        if not data:
            self.join()  # (not a readable terminal any more: reading again would spin)
            return
        for message in self._parser.feed(self._decode(data)):
            self._process(message)
        self._tick_when_due()

    def _tick_when_due(self) -> None:
        """A sequence left unfinished (a lone Esc, so far) is decided when the parser's wait for its rest is over."""
        if self._tick is not None:
            self._tick.cancel()
            self._tick = None
        due = self._parser._timeout_time
        if due is not None and self._reading:
            self._tick = self._loop.call_later(max(0.0, due - get_time()), self._on_tick)

    def _on_tick(self) -> None:
        self._tick = None
        for message in self._parser.tick():
            self._process(message)
        self._tick_when_due()
