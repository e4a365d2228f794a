"""A program in a pseudo-terminal of the bench's own, its output read by a terminal emulator (pyte) as it comes, so
that a key's time to screen is the time from writing it to the read that drew it: no tmux client started per key and
per look, which on a busy machine costs each look several milliseconds, the same for every program timed."""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import struct
import subprocess
import termios
import threading
import time
from pathlib import Path
from typing import Any

import pyte

KEYS = {
    "Enter": b"\r",
    "Escape": b"\x1b",
    "PPage": b"\x1b[5~",
    "NPage": b"\x1b[6~",
    "C-End": b"\x1b[1;5F",
    "C-c": b"\x03",
    "Tab": b"\t",
}
"""tmux's names of the keys the benchmarks send, as an xterm sends them."""


class PtyTerminal:
    """The same surface as `bench.terminal.Terminal` (screen, type, keys, wait_for, close), plus `type_and_wait`,
    which times one key to the read that put the expected text on the screen."""

    def __init__(self, command: str, env: dict[str, str], cwd: Path, *, width: int = 120, height: int = 40) -> None:
        self._screen = _AnsweringScreen(width, height)
        self._stream = pyte.ByteStream(self._screen)
        self._changed = threading.Condition()
        self._reads = 0
        self._last_read = 0.0
        master, follower = os.openpty()
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", height, width, 0, 0))
        self._master = master
        self._screen.answer = self._write
        self.started = time.perf_counter()
        self._process = subprocess.Popen(
            ["/bin/sh", "-c", f"exec {command}"],
            stdin=follower,
            stdout=follower,
            stderr=follower,
            cwd=cwd,
            env={**env, "TERM": "xterm-256color", "COLUMNS": str(width), "LINES": str(height)},
            start_new_session=True,
            preexec_fn=_take_terminal,  # the pseudo-terminal becomes the program's controlling terminal
        )
        os.close(follower)
        self._closed = False
        self._reader = threading.Thread(target=self._read, name="pty-reader", daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        return self._process.pid

    def _read(self) -> None:
        while not self._closed:
            try:
                ready, _, _ = select.select([self._master], [], [], 0.2)
                if not ready:
                    continue
                data = os.read(self._master, 65536)
            except OSError:
                break
            if not data:
                break
            arrived = time.perf_counter()
            with self._changed:
                self._stream.feed(data)
                self._reads += 1
                self._last_read = arrived
                self._changed.notify_all()

    def _write(self, data: bytes) -> None:
        with contextlib.suppress(OSError):
            os.write(self._master, data)

    def screen(self) -> str:
        with self._changed:
            return "\n".join(line.rstrip() for line in self._screen.display)

    def type(self, text: str) -> None:
        self._write(text.encode())

    def keys(self, *keys: str) -> None:
        for key in keys:
            self._write(KEYS.get(key, key.encode()))

    def wait_for(self, text: str, timeout: float = 30) -> float:
        """Seconds from the start until `text` is on the screen."""
        return self._wait(text, timeout) - self.started

    def type_and_wait(self, key: str, shown: str, timeout: float = 5) -> float:
        """Seconds from writing `key` to the read after which `shown` is on the screen."""
        started = time.perf_counter()
        self.type(key)
        return self._wait(shown, timeout) - started

    def _wait(self, text: str, timeout: float) -> float:
        deadline = time.perf_counter() + timeout
        with self._changed:
            while True:
                if text in "\n".join(self._screen.display):
                    return self._last_read
                left = deadline - time.perf_counter()
                if left <= 0 or (self._closed and not self._reader.is_alive()):
                    shown = "\n".join(line.rstrip() for line in self._screen.display)
                    raise TimeoutError(f"{text!r} never appeared; the screen was:\n{shown}")
                self._changed.wait(left)

    def close(self) -> None:
        self._closed = True
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._process.pid, 9)
        self._process.wait(timeout=20)
        self._reader.join(timeout=5)
        os.close(self._master)


def _take_terminal() -> None:
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class _AnsweringScreen(pyte.Screen):
    """A screen that answers the terminal's reports (device attributes, cursor position) as a terminal does: a
    program that asks and waits would otherwise wait."""

    answer: Any = None

    def write_process_input(self, data: str) -> None:
        if self.answer is not None:
            self.answer(data.encode())
