"""A frame written to the terminal by the thread that drew it when the terminal takes it at once, rather than handed
to Textual's writer thread, which wakes to write it: a hop that costs each key about half a millisecond on an idle
machine and a scheduler's turn on a busy one. What the terminal cannot take at once (a slow link, a full buffer) goes
to the writer thread as before, in order, so the app never waits on the terminal."""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
from collections import deque
from collections.abc import Iterator
from queue import SimpleQueue
from typing import IO

from textual.drivers._writer_thread import MAX_QUEUED_WRITES, WriterThread

ROOM_POLL = 0.005
"""Seconds between looks for room in a full queue."""


class DirectWriter(WriterThread):
    """Textual's writer thread, which also writes a frame directly when nothing is waiting for it."""

    def __init__(self, file: IO[str]) -> None:
        super().__init__(file)
        self._bytes: SimpleQueue[bytes | None] = SimpleQueue()
        """What the thread writes. A SimpleQueue: its put takes no lock a signal handler could find held (a suspend's
        handler runs in the drawing thread, wherever it is, and writes the terminal's reset: with Textual's Queue, one
        that came while that thread was inside a put waited for itself, and the app hung)."""
        self._pending: deque[None] = deque()
        """One entry per write queued and not yet written (appended before the put, taken off by the thread after the
        write; both single C calls, so a signal handler cannot come between their parts). While any are pending, a
        frame joins the queue: the order is kept; with MAX_QUEUED_WRITES pending (the terminal is not reading), a
        writer other than a signal handler waits for room, as with Textual's bounded queue."""
        self._fileno = file.fileno()
        self._encoding = getattr(file, "encoding", None) or "utf-8"
        self._held: list[str] | None = None
        self._stopped = self._writing = False
        self._order = threading.RLock()
        """Held while a frame is written directly and its rest queued, and while anything is queued: what another
        thread writes meanwhile (Textual's input thread answers the terminal's queries so) comes after the whole
        frame, not between its parts. Reentrant, for the suspend's handler above."""
        self._direct = _nonblocking_twin(self._fileno)
        """The same terminal opened again without blocking: a description of our own, so that the shell's is left
        as it was."""

    def write(self, text: str) -> None:
        if self._held is not None:
            self._held.append(text)
        elif not self._stopped:
            with self._order:
                self._enqueue(text.encode(self._encoding, "replace"))

    @contextlib.contextmanager
    def frame(self) -> Iterator[None]:
        """Hold what is written meanwhile, then write it at once if the terminal takes it (the rest is queued)."""
        if self._direct is None or self._held is not None:
            yield
            return
        self._held = []
        try:
            yield
        finally:
            held, self._held = self._held, None  # (None: stop() took it, a suspend in the middle of this frame)
            if held:
                self._write_now("".join(held).encode(self._encoding, "replace"))

    def _write_now(self, data: bytes) -> None:
        if self._stopped or self._direct is None:
            return  # (suspended mid-frame: the screen is drawn whole again on resume)
        with self._order:
            if not self._pending:
                self._writing = True
                try:
                    data = data[os.write(self._direct, data) :]
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:
                    return  # the terminal is gone: as with Textual's thread, there is no one to tell
                finally:
                    self._writing = False
                    if self._stopped:  # (stop() came from a signal handler during the write: its close was left here)
                        self._close_twin()
            if data and not self._stopped:
                self._enqueue(data)

    def _enqueue(self, data: bytes | None, *, wait: bool = True) -> None:
        while wait and len(self._pending) >= MAX_QUEUED_WRITES and not self._stopped and self.is_alive():
            time.sleep(ROOM_POLL)  # (no lock or event a signal handler could find held: the terminal is not reading)
        self._pending.append(None)
        self._bytes.put(data)

    def run(self) -> None:
        while (data := self._bytes.get()) is not None:
            try:
                while data:
                    try:
                        data = data[os.write(self._fileno, data) :]
                    except (BlockingIOError, InterruptedError):
                        # The terminal's description left without blocking (by a program run before, which shares
                        # it): what it cannot take now is written once it can, not dropped from the screen.
                        select.select([], [self._fileno], [], 1.0)
            except OSError:
                pass  # the terminal is gone
            self._pending.popleft()

    def stop(self) -> None:
        """What is held is written first: a suspend (SIGTSTP) can come in the middle of a frame, and the terminal's
        reset it writes must reach the terminal before the process stops."""
        self._stopped = True
        held, self._held = self._held, None
        if held:
            self._enqueue("".join(held).encode(self._encoding, "replace"), wait=False)
        self._bytes.put(None)
        self.join()
        if not self._writing:
            self._close_twin()

    def _close_twin(self) -> None:
        direct, self._direct = self._direct, None
        if direct is not None:
            os.close(direct)


def _nonblocking_twin(fileno: int) -> int | None:
    if not os.isatty(fileno):
        return None
    try:
        return os.open(f"/proc/self/fd/{fileno}", os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError:
        return None


def frame(driver: object) -> contextlib.AbstractContextManager[None]:
    """What `driver` writes within is one direct write when its writer is a DirectWriter."""
    writer = getattr(driver, "_writer_thread", None)
    return writer.frame() if isinstance(writer, DirectWriter) else contextlib.nullcontext()
