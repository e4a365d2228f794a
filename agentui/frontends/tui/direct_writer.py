"""A frame written to the terminal by the thread that drew it when the terminal takes it at once, rather than handed
to Textual's writer thread, which wakes to write it: a hop that costs each key about half a millisecond on an idle
machine and a scheduler's turn on a busy one. What the terminal cannot take at once (a slow link, a full buffer) goes
to the writer thread as before, in order, so the app never waits on the terminal."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from queue import Queue
from typing import IO

from textual.drivers._writer_thread import MAX_QUEUED_WRITES, WriterThread
from textual.drivers.linux_driver import LinuxDriver


class DirectWriter(WriterThread):
    """Textual's writer thread, which also writes a frame directly when nothing is waiting for it."""

    def __init__(self, file: IO[str]) -> None:
        super().__init__(file)
        self._bytes: Queue[bytes | None] = Queue(MAX_QUEUED_WRITES)
        self._fileno = file.fileno()
        self._encoding = getattr(file, "encoding", None) or "utf-8"
        self._lock = threading.Lock()
        self._pending = 0
        """Writes queued and not yet written: while any are, a frame joins the queue (the order is kept)."""
        self._held: list[str] | None = None
        self._direct = _nonblocking_twin(self._fileno)
        """The same terminal opened again without blocking: a description of our own, so that the shell's is left
        as it was."""

    def write(self, text: str) -> None:
        if self._held is not None:
            self._held.append(text)
        else:
            self._queue_bytes(text.encode(self._encoding, "replace"))

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
            data = "".join(self._held).encode(self._encoding, "replace")
            self._held = None
            if data:
                self._write_now(data)

    def _write_now(self, data: bytes) -> None:
        assert self._direct is not None
        with self._lock:  # (held while writing, which does not block: nothing is queued meanwhile)
            if self._pending == 0:
                try:
                    data = data[os.write(self._direct, data) :]
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:
                    return  # the terminal is gone: as with Textual's thread, there is no one to tell
        if data:
            self._queue_bytes(data)

    def _queue_bytes(self, data: bytes) -> None:
        with self._lock:
            self._pending += 1
        self._bytes.put(data)

    def run(self) -> None:
        while (data := self._bytes.get()) is not None:
            try:
                while data:
                    data = data[os.write(self._fileno, data) :]
            except OSError:
                pass
            with self._lock:
                self._pending -= 1

    def stop(self) -> None:
        self._bytes.put(None)
        self.join()
        if self._direct is not None:
            os.close(self._direct)
            self._direct = None


def _nonblocking_twin(fileno: int) -> int | None:
    if not os.isatty(fileno):
        return None
    try:
        return os.open(f"/proc/self/fd/{fileno}", os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError:
        return None


class DirectLinuxDriver(LinuxDriver):
    """Textual's Linux driver with the writer above (started again after a suspend, as Textual's is)."""

    def start_application_mode(self) -> None:
        super().start_application_mode()  # type: ignore[no-untyped-call]
        textual_writer = self._writer_thread
        if textual_writer is not None and self._file is not None and not isinstance(textual_writer, DirectWriter):
            textual_writer.stop()  # (after writing what start-up queued)
            writer = DirectWriter(self._file)
            writer.start()
            self._writer_thread = writer


def frame(driver: object) -> contextlib.AbstractContextManager[None]:
    """What `driver` writes within is one direct write when its writer is a DirectWriter."""
    writer = getattr(driver, "_writer_thread", None)
    return writer.frame() if isinstance(writer, DirectWriter) else contextlib.nullcontext()
