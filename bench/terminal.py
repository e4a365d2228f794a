"""A program in a real terminal: tmux, a server of its own, read back with capture-pane."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
import uuid
from pathlib import Path


class Terminal:
    def __init__(self, command: str, env: dict[str, str], cwd: Path, *, width: int = 120, height: int = 40) -> None:
        if not shutil.which("tmux"):
            raise SystemExit("tmux is needed for the terminal benchmarks (apt-get install tmux)")
        self.socket = f"agentui-bench-{uuid.uuid4().hex[:8]}"
        exports = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
        script = f"cd {shlex.quote(str(cwd))} && exec env -i {exports} {command}"
        self.started = time.perf_counter()
        self._tmux("new-session", "-d", "-s", "main", "-x", str(width), "-y", str(height), script)

    def _tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=20).stdout

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "main")

    @property
    def pid(self) -> int:
        return int(self._tmux("list-panes", "-t", "main", "-F", "#{pane_pid}").split()[0])

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "main", *keys)

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-t", "main", "-l", text)

    def wait_for(self, text: str, timeout: float = 30) -> float:
        """Seconds from the start until `text` is on the screen (polled as fast as capture-pane answers)."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            if text in self.screen():
                return time.perf_counter() - self.started
            time.sleep(0.002)
        raise TimeoutError(f"{text!r} never appeared; the screen was:\n{self.screen()}")

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=20)
