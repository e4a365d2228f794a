"""The terminal's keys read by the event loop itself, in place of Textual's input thread: the thread woke for each key
and then woke the loop to hand it over, a hop of about a third of a millisecond a key on an idle machine (more on a
busy one), and a lone Esc waited for the thread's next tenth of a second to be told from the start of a sequence."""

from __future__ import annotations

import asyncio
import contextlib
import os
from codecs import getincrementaldecoder
from collections.abc import Callable

from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.message import Message


class LoopInput:
    """What Textual's input thread did, done when the loop sees the terminal readable. It stands where the driver
    keeps its thread: `start` begins reading and `join` (the driver's stop) ends it. `ended` is told when the terminal
    is gone, `failed` of an error in reading it (the thread's panicked the app)."""

    def __init__(
        self,
        fileno: int,
        process: Callable[[Message], None],
        debug: bool = False,
        ended: Callable[[], object] = lambda: None,
        failed: Callable[[Exception], object] | None = None,
    ) -> None:
        self._fileno = fileno
        self._process = process
        self._ended = ended
        self._failed = failed
        self._parser = XTermParser(debug)
        self._decode = getincrementaldecoder("utf-8")("replace").decode  # (a stray byte is not a crash)
        self._loop = asyncio.get_running_loop()
        self._tick: asyncio.TimerHandle | None = None
        self._reading: int | None = None
        """The descriptor read: the terminal opened again without blocking, a description of our own (a byte taken
        by another reader of the terminal between the loop's look and the read must not block the loop)."""

    def start(self) -> None:
        self._reading = _nonblocking_twin(self._fileno)
        self._loop.add_reader(self._reading, self._read)

    def join(self, timeout: float | None = None) -> None:
        """Stop reading, with what was typed up to now (the driver stops its thread so, before it gives the terminal
        back; the terminal's own buffer is flushed after)."""
        reading, self._reading = self._reading, None
        if reading is not None:
            self._loop.remove_reader(reading)
            if reading != self._fileno:  # (without blocking: what has come, not what may come)
                with contextlib.suppress(Exception):  # (what is left is the terminal's flush's)
                    while data := os.read(reading, 4096):
                        self._take(data)
                os.close(reading)
        if self._tick is not None:
            self._tick.cancel()
            self._tick = None

    def is_alive(self) -> bool:
        return self._reading is not None

    def _read(self) -> None:
        reading = self._reading
        if reading is None:
            return
        try:
            data = os.read(reading, 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:  # the terminal hung up (or a file or pipe ended): reading again would spin
            self.join()
            if reading != self._fileno:  # (a terminal's end, not a file's)
                self._ended()
            return
        self._guarded(self._take, data)

    def _take(self, data: bytes) -> None:
        text = self._decode(data)
        if text:  # (not the first bytes of a character whose rest is still to come: feeding "" ends the parser)
            for message in self._parser.feed(text):
                self._process(message)
        self._tick_when_due()

    def _guarded(self, work: Callable[[bytes], None], data: bytes) -> None:
        try:
            work(data)
        except Exception as error:
            self.join()
            if self._failed is None:
                raise
            self._failed(error)

    def _tick_when_due(self) -> None:
        """A sequence left unfinished (a lone Esc, so far) is decided when the parser's wait for its rest is over."""
        if self._tick is not None:
            self._tick.cancel()
            self._tick = None
        due = self._parser._timeout_time
        if due is not None and self._reading is not None:
            self._tick = self._loop.call_later(max(0.0, due - get_time()), self._on_tick)

    def _on_tick(self) -> None:
        self._tick = None
        self._guarded(lambda _: self._ticked(), b"")

    def _ticked(self) -> None:
        for message in self._parser.tick():
            self._process(message)
        self._tick_when_due()


def _nonblocking_twin(fileno: int) -> int:
    if os.isatty(fileno):
        with contextlib.suppress(OSError):
            return os.open(f"/proc/self/fd/{fileno}", os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    return fileno
