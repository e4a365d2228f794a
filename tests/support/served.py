"""`agentui serve` as a real subprocess for tests: started on a free port, its address (with the token) read from
what it prints, its output drained, and ended with Ctrl+C (SIGINT) as a person ends it."""

from __future__ import annotations

import queue
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

CEILING = 60.0
_ADDRESS = re.compile(r"open (http://\S+/\?token=(\S+))")


class Served:
    def __init__(self, project: Path, env: dict[str, str], *arguments: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "agentui", "serve", "--port", "0", *arguments],
            cwd=project,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.output: list[str] = []
        lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._drain, args=(lines,), daemon=True).start()
        while True:
            line = lines.get(timeout=CEILING)
            if line is None:
                raise AssertionError(f"agentui serve ended before serving: {''.join(self.output)}")
            if found := _ADDRESS.search(line):
                self.url, self.token = found.group(1), found.group(2)
                break
        parts = urlsplit(self.url)
        self.base = f"{parts.scheme}://{parts.netloc}"
        self.port = parts.port

    def _drain(self, lines: queue.Queue[str | None]) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.output.append(line)
            lines.put(line)
        lines.put(None)

    def interrupt(self) -> int:
        """Ctrl+C, and its exit code once it has ended."""
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=CEILING)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=CEILING)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def processes_with(marker: str) -> list[tuple[int, list[str]]]:
    """Live processes whose command line has `marker` among its words: pid and words."""
    found = []
    for pid in Path("/proc").iterdir():
        if not pid.name.isdigit():
            continue
        try:
            words = (pid / "cmdline").read_bytes().decode(errors="replace").split("\0")[:-1]
            state = (pid / "stat").read_text().rsplit(") ", 1)[1][0]
        except (OSError, IndexError):
            continue
        if marker in words and state != "Z":
            found.append((int(pid.name), words))
    return found
