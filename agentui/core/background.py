"""Background shells: commands that go on while the conversation does (a dev server, a long build).

Each runs in its own process group with its output going to a file, so nothing it prints can block it and nothing
is lost when no one is reading. The model reads new output with TaskOutput and ends one with TaskStop; the person
sees them in the app's panel. All of them are stopped when the conversation closes, and, should agentui exit
without closing it, when the interpreter exits. What was set up for a shell's confinement (stand-ins) is undone when
it ends; at exit, once the shells are stopped.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import secrets
import signal
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Literal

from agentui.core.process_groups import end_leftovers, signal_group, start_group
from agentui.core.safety import standins

ShellStatus = Literal["running", "completed", "failed", "killed"]
READ_LIMIT = 30_000
STOP_GRACE = 1.0


@dataclass(frozen=True)
class ShellInfo:
    """A background shell as a front end shows it."""

    id: str
    command: str
    description: str | None
    status: ShellStatus
    exit_code: int | None
    output_path: Path
    started: float
    """time.time() when it started."""


@dataclass(frozen=True)
class NewOutput:
    """What a shell printed since the last read (at most `READ_LIMIT` characters: the end of it)."""

    text: str
    skipped: int
    """Bytes left out from the start of the new output, to keep within the limit (they are in the file)."""


@dataclass
class BackgroundShell:
    id: str
    command: str
    description: str | None
    output_path: Path
    process: asyncio.subprocess.Process
    started: float = field(default_factory=time.time)
    status: ShellStatus = "running"
    exit_code: int | None = None
    read_offset: int = 0
    done: asyncio.Event = field(default_factory=asyncio.Event)
    stopping: bool = False

    def info(self) -> ShellInfo:
        return ShellInfo(
            self.id, self.command, self.description, self.status, self.exit_code, self.output_path, self.started
        )

    def read_new(self, limit: int = READ_LIMIT) -> NewOutput:
        """The output since the last `read_new`, and move past it."""
        try:
            with self.output_path.open("rb") as file:
                end = file.seek(0, os.SEEK_END)
                start = max(self.read_offset, end - 4 * limit)
                file.seek(start)
                data = file.read(end - start)
        except OSError:
            return NewOutput("", 0)
        skipped = start - self.read_offset
        self.read_offset = end
        text = data.decode("utf-8", errors="replace")
        if len(text) > limit:
            skipped += len(text[:-limit].encode())
            text = text[-limit:]
        return NewOutput(text, skipped)

    def tail(self, chars: int) -> str:
        """The last `chars` characters of everything it printed (for a panel; does not move the read offset)."""
        try:
            with self.output_path.open("rb") as file:
                end = file.seek(0, os.SEEK_END)
                file.seek(max(0, end - 4 * chars))
                return file.read().decode("utf-8", errors="replace")[-chars:]
        except OSError:
            return ""


_LIVE: weakref.WeakSet[BackgroundShells] = weakref.WeakSet()


@atexit.register
def _stop_leftovers() -> None:
    """agentui is exiting without having closed a conversation (an error, a signal): no shell outlives it."""
    killed = [pid for shells in list(_LIVE) for pid in shells.kill_now()]
    deadline = time.monotonic() + 2.0
    while killed and time.monotonic() < deadline:  # (a killed process may be inside a system call for a moment)
        killed = [pid for pid in killed if _running(pid)]
        if killed:
            time.sleep(0.01)


standins.before_release_at_exit(_stop_leftovers)  # (the stand-ins they use go only once they are stopped)


class BackgroundShells:
    """The background shells of one workspace, by id."""

    def __init__(self, directory: Callable[[], Path]) -> None:
        self._directory = directory
        """Where output files go, asked for when the first shell starts (opening a conversation makes none)."""
        self._shells: dict[str, BackgroundShell] = {}
        self._watchers: set[asyncio.Task[None]] = set()
        self.on_change: Callable[[ShellInfo], None] = lambda info: None
        """Called when a shell starts, ends or is stopped (the conversation emits an event for it)."""
        self._detach: asyncio.Event | None = None
        _LIVE.add(self)

    # Starting

    def new_id(self) -> str:
        while (shell_id := "b" + secrets.token_hex(3)) in self._shells:
            pass
        return shell_id

    def _create_output(self, shell_id: str) -> tuple[Path, BinaryIO]:
        """The shell's output file, made new (never through a link a command planted at its name)."""
        from agentui.core.scratch_files import scratch_files

        directory = self._directory()
        return scratch_files(directory.parent).create_unique(directory.name, f"{shell_id}.output")

    async def start(
        self,
        argv: list[str],
        *,
        cwd: Path,
        env: dict[str, str],
        command: str,
        description: str | None,
        pass_fds: tuple[int, ...] = (),
        on_end: Callable[[], object] | None = None,
    ) -> BackgroundShell:
        """Start `argv` detached: its own process group, stdin empty, stdout and stderr into its output file;
        `on_end` runs once it and what it left running have ended."""
        shell_id = self.new_id()
        path, output = self._create_output(shell_id)
        with output:
            process = await start_group(
                *argv,
                env=env,
                cwd=cwd,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=output,
                stderr=output,
                pass_fds=pass_fds,
            )
        return self._adopt(BackgroundShell(shell_id, command, description, path, process), None, None, on_end)

    def adopt(
        self,
        process: asyncio.subprocess.Process,
        *,
        command: str,
        description: str | None,
        output_path: Path,
        reader: asyncio.Task[None],
        output: BinaryIO,
        on_end: Callable[[], object] | None = None,
    ) -> BackgroundShell:
        """Take over a foreground command the person sent to the background: `reader` goes on copying its output
        into `output` (already open on `output_path`), which is closed when the command ends."""
        shell = BackgroundShell(self.new_id(), command, description, output_path, process)
        return self._adopt(shell, reader, output, on_end)

    def _adopt(
        self,
        shell: BackgroundShell,
        reader: asyncio.Task[None] | None,
        output: BinaryIO | None,
        on_end: Callable[[], object] | None,
    ) -> BackgroundShell:
        self._shells[shell.id] = shell
        watcher = asyncio.get_running_loop().create_task(self._watch(shell, reader, output, on_end))
        self._watchers.add(watcher)
        watcher.add_done_callback(self._watchers.discard)
        self.on_change(shell.info())
        return shell

    async def _watch(
        self,
        shell: BackgroundShell,
        reader: asyncio.Task[None] | None,
        output: BinaryIO | None,
        on_end: Callable[[], object] | None,
    ) -> None:
        try:
            code = await shell.process.wait()
            await end_leftovers(shell.process.pid)  # what it left running in its group ends with it
            if reader is not None:
                try:
                    await asyncio.wait_for(reader, 5)
                except TimeoutError:
                    reader.cancel()
        finally:
            if output is not None:
                output.close()
            if on_end is not None:
                on_end()
        shell.exit_code = shell.process.returncode
        if shell.stopping:
            shell.status = "killed"
        else:
            shell.status = "completed" if code == 0 else "failed"
        shell.done.set()
        self.on_change(shell.info())

    # Sending the running foreground command to the background (Ctrl+B)

    def foreground_started(self) -> asyncio.Event:
        """A foreground command begins: the event it returns is set when the person asks to background it."""
        self._detach = asyncio.Event()
        return self._detach

    def foreground_ended(self, event: asyncio.Event) -> None:
        if self._detach is event:
            self._detach = None

    def detach_foreground(self) -> bool:
        """Ask the running foreground command to continue in the background; False if none is running."""
        if self._detach is None or self._detach.is_set():
            return False
        self._detach.set()
        return True

    # Reading and stopping

    def get(self, shell_id: str) -> BackgroundShell | None:
        return self._shells.get(shell_id)

    def tail(self, shell_id: str, chars: int) -> str:
        """The last `chars` characters a shell printed ("" for an unknown id)."""
        shell = self._shells.get(shell_id)
        return shell.tail(chars) if shell is not None else ""

    def all(self) -> list[ShellInfo]:
        return [shell.info() for shell in self._shells.values()]

    def running(self) -> list[BackgroundShell]:
        return [shell for shell in self._shells.values() if shell.status == "running"]

    async def wait(self, shell: BackgroundShell, seconds: float) -> bool:
        """Wait until the shell ends, at most `seconds`; True if it has ended."""
        try:
            await asyncio.wait_for(shell.done.wait(), seconds)
        except TimeoutError:
            return False
        return True

    async def stop(self, shell: BackgroundShell, grace: float = STOP_GRACE) -> None:
        """SIGTERM its process group, then SIGKILL what is left after `grace` seconds; returns once it has ended."""
        if shell.done.is_set():
            return
        shell.stopping = True
        signal_group(shell.process.pid, signal.SIGTERM)
        if not await self.wait(shell, grace):
            signal_group(shell.process.pid, signal.SIGKILL)
            await self.wait(shell, 10)

    async def stop_by_id(self, shell_id: str) -> bool:
        """Stop the shell `shell_id` and what it started; False if there is no such shell running."""
        shell = self._shells.get(shell_id)
        if shell is None or shell.status != "running":
            return False
        await self.stop(shell)
        return True

    async def stop_all(self) -> None:
        """Stop every shell still running (the next conversation on this workspace may start new ones, which the
        exit hook covers as well)."""
        await asyncio.gather(*(self.stop(shell) for shell in self.running()))

    def kill_now(self) -> list[int]:
        """Without an event loop (at exit): SIGKILL every group still running; returns their leaders' pids."""
        killed = []
        for shell in self._shells.values():
            if shell.status == "running" and shell.process.returncode is None:
                signal_group(shell.process.pid, signal.SIGKILL)
                killed.append(shell.process.pid)
        return killed


def _running(pid: int) -> bool:
    """The process exists and has not ended (a zombie has: it only waits to be reaped)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")
