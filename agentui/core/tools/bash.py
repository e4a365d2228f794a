"""Bash: run a command in its own process group, stream its output, cap it for the model, stop it cleanly.

Each call is a fresh `bash -c`, but the working directory carries over from one call to the next (recorded by an
EXIT trap). When a command ends, is cancelled or times out, its whole process group is stopped (SIGTERM, then
SIGKILL), so `sleep 100 & sleep 100` leaves nothing behind. Provider keys and other secrets stay out of its
environment.

Every command is confined: in the sandbox when it is on and the command runs inside it; otherwise under the guard
(`agentui.core.safety.guard`), unless the person lifted it for this call (`ToolContext.protection_lifted`) or bubblewrap
cannot run here (the permission engine then asks first).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shlex
import shutil
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, BinaryIO, NotRequired

from pydantic import Field
from typing_extensions import TypedDict

from agentui.core.call_views import ResultView, plural
from agentui.core.process_groups import end_leftovers, start_group, stop_group
from agentui.core.safety.confined import Confined
from agentui.core.safety.environ import child_environment
from agentui.core.safety.guard import Guard
from agentui.core.safety.sandbox import Sandbox
from agentui.core.scratch_files import read_small_file, scratch_files
from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolResult
from agentui.core.tools.output import OutputCapture
from agentui.core.workspace import Workspace

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
OUTPUT_LIMIT = 30_000
TIMEOUT_GRACE = 2.0
CANCEL_GRACE = 0.3  # a person pressing Esc expects the command gone at once
PROGRESS_INTERVAL = 0.1
PROGRESS_MAX_CHARS = 4000


class BashArgs(ToolArgs):
    command: str = Field(description="The command to run")
    timeout: int | None = Field(
        default=None,
        ge=1,
        le=MAX_TIMEOUT_MS,
        description=f"Timeout in milliseconds (default {DEFAULT_TIMEOUT_MS}, max {MAX_TIMEOUT_MS})",
    )
    description: str | None = Field(default=None, description="What the command does, in 5-10 words")
    run_in_background: bool = Field(
        default=False,
        description="Run the command in the background and return its ID at once (a server, a watcher, a long build)",
    )
    dangerouslyDisableSandbox: bool = Field(  # (Claude Code's name for it)
        default=False,
        description="Run this command outside the sandbox (when the sandbox is on); the user is always asked",
    )


class BashDetails(TypedDict):
    """Claude Code's fields (its stdout has no final line break), then agentui's; a background command's have the
    first five, `backgroundTaskId`, and `backgroundedByUser` and `sandboxed` when true."""

    stdout: str
    stderr: str
    interrupted: bool
    isImage: bool
    noOutputExpected: bool
    exitCode: NotRequired[int | None]
    truncated: NotRequired[bool]
    outputFile: NotRequired[str | None]
    """Where the whole output is, when what the model was given was cut."""
    cwd: NotRequired[str]
    sandboxed: NotRequired[bool]
    guarded: NotRequired[bool]
    backgroundTaskId: NotRequired[str]
    backgroundedByUser: NotRequired[bool]


class Bash(Tool[BashArgs]):
    name = "Bash"
    description = (
        "Run a bash command in the project. The working directory persists between calls; the environment does "
        "not. Output (stdout and stderr, interleaved) is capped at about 30000 characters, keeping the start and "
        "the end; the full output is saved to a file named in the result. Default timeout 2 minutes, at most 10. "
        "Background processes (`&`) are stopped when the command ends: to keep a server running, use "
        "run_in_background and read its output with TaskOutput. Prefer Read, Grep and Glob to cat, grep and find."
    )
    Args = BashArgs
    Details = BashDetails
    kind = "execute"
    shown = "execute"
    opens = True
    tail = True

    @classmethod
    def title(cls, arguments: Mapping[str, Any], cwd: Path | None) -> str:
        command = str(arguments.get("command", "")).strip()
        first = command.splitlines()[0] if command else ""
        return first + (" …" if "\n" in command else "")

    @classmethod
    def command(cls, arguments: Mapping[str, Any]) -> str | None:
        return str(arguments.get("command", ""))

    @classmethod
    def purpose(cls, arguments: Mapping[str, Any]) -> str:
        return str(arguments.get("description") or "")

    @classmethod
    def result(cls, text: str, details: Mapping[str, Any]) -> ResultView:
        if details.get("backgroundTaskId"):
            moved = "sent to the background" if details.get("backgroundedByUser") else "running in the background"
            return ResultView(f"{moved} as {details['backgroundTaskId']}")
        code = details.get("exitCode")
        printed = str(details.get("stdout", text))  # (not the "(no output)" the model reads)
        count = len(printed.splitlines())
        if not count:
            return ResultView(f"exit {code} · no output" if code else "no output")
        return ResultView(f"exit {code} · {plural(count, 'line')}" if code else f"{plural(count, 'line')} of output")

    def __init__(
        self,
        workspace: Workspace,
        env: Mapping[str, str] | None = None,
        sandbox: Sandbox | None = None,
        guard: Guard | None = None,
    ) -> None:
        self.workspace = workspace
        self.sandbox = sandbox
        self.guard = guard or Guard(workspace)
        """What holds the commands that do not run in the sandbox (the project sets it up with its home and env)."""
        self._helper_checked: set[int] = set()
        self._env = child_environment(os.environ, env)
        self._bash = shutil.which("bash") or "/bin/bash"

    @property
    def environment(self) -> dict[str, str]:
        """The environment commands run with (the permission check expands their words from it)."""
        return self._env

    async def run(self, args: BashArgs, ctx: ToolContext) -> ToolResult:
        if args.run_in_background:
            return await self._start_background(args, ctx)
        ws = self.workspace
        cwd = self._cwd()
        if gone := _gone(cwd):
            return gone
        files = scratch_files(ws.scratch)
        cwd_file = files.commands_dir() / f"cwd-{secrets.token_hex(6)}"  # (written by the command's trap)
        capture = OutputCapture(ws.scratch / f"bash-{secrets.token_hex(6)}.log", OUTPUT_LIMIT)
        script = f"trap 'pwd -P >| {shlex.quote(str(cwd_file))}' EXIT\n{args.command}\n"
        confined = await self._prepare(script, args, cwd, ctx)
        process, read_end = await _spawn(confined, cwd)
        stream, transport = await _open_reader(read_end)
        route = _Route(capture, ctx.progress)
        reader = asyncio.create_task(_pump(stream, route))
        timeout = (args.timeout or DEFAULT_TIMEOUT_MS) / 1000
        timed_out = False
        shells = ws.shells
        detach = shells.foreground_started()
        detached = False
        try:
            try:
                if await _exits_or_detaches(process, detach, timeout):
                    detached = True
                    return self._detached(args, process, capture, route, reader, transport, confined)
            except TimeoutError:
                timed_out = True
                await stop_group(process, TIMEOUT_GRACE)
                await _reaped(process)
            if confined.how == "none":  # (in bubblewrap, what is left ends with its PID namespace when bwrap exits)
                await end_leftovers(process.pid)
            try:
                await asyncio.wait_for(reader, 5)
            except TimeoutError:  # something left the group and holds the pipe open: stop listening to it
                reader.cancel()
        except asyncio.CancelledError:
            await stop_group(process, CANCEL_GRACE)
            await _reaped(process)
            reader.cancel()
            capture.close()
            raise
        finally:
            shells.foreground_ended(detach)
            if route.file is None:
                transport.close()
            if not detached:  # (a detached command's shell undoes its set-up when it ends)
                confined.ended()

        notes = self._follow_cwd(cwd_file, cwd)
        return self._result(capture, process.returncode, notes, timeout if timed_out else None, confined.how)

    def _result(
        self, capture: OutputCapture, code: int | None, notes: list[str], timed_out: float | None, how: str
    ) -> ToolResult:
        """What the model and the session are told: the output, then why it ended (a timeout of `timed_out`
        seconds, or its exit code) and where the shell is now."""
        output = capture.finish()
        if timed_out is not None:
            notes.insert(0, f"Command timed out after {timed_out:g} s and was stopped.")
        elif code:
            notes.insert(0, f"Exit code {code}")
        text = output.rstrip("\n") or ("(no output)" if not notes else "")
        content = "\n".join(part for part in [text, *notes] if part)
        details: BashDetails = {
            "stdout": output.rstrip("\n"),
            "stderr": "",
            "interrupted": timed_out is not None,
            "isImage": False,
            "noOutputExpected": False,
            "exitCode": code,
            "truncated": capture.truncated,
            "outputFile": str(capture.spill_path) if capture.truncated else None,
            "cwd": str(self.workspace.shell_cwd),
            "sandboxed": how == "sandbox",
            "guarded": how == "guard",
        }
        return ToolResult(content=content, details=details, is_error=timed_out is not None or bool(code))

    def _cwd(self) -> Path:
        ws = self.workspace
        return ws.shell_cwd if ws.shell_cwd and ws.shell_cwd.is_dir() else ws.root

    async def _prepare(self, script: str, args: BashArgs, cwd: Path, ctx: ToolContext) -> Confined:
        """How `script` runs: inside the sandbox when it is on and applies; else under the guard, unless the person
        lifted it for this call or it cannot run here."""
        argv = [self._bash, "-c", script]
        scratch = self.workspace.scratch
        sandbox = self.sandbox
        if sandbox is not None and sandbox.runs_inside(args.command, disable=args.dangerouslyDisableSandbox):
            await sandbox.start_network(scratch)
            await self._check_helper(sandbox)
            return sandbox.wrap(argv, cwd=cwd, scratch=scratch, env=self._env)
        if not ctx.protection_lifted and self.guard.available:
            await self._check_helper(self.guard)
            return self.guard.wrap(argv, cwd=cwd, scratch=scratch, env=self._env)
        return Confined(argv, dict(self._env))

    async def _check_helper(self, confine: Guard | Sandbox) -> None:
        """The mount helper is built (once per machine, ~0.1 s) and checked (once per session) off the event loop."""
        if id(confine) not in self._helper_checked:
            await asyncio.to_thread(confine.mount_helper)
            self._helper_checked.add(id(confine))

    async def _start_background(self, args: BashArgs, ctx: ToolContext) -> ToolResult:
        cwd = self._cwd()
        if gone := _gone(cwd):
            return gone
        confined = await self._prepare(args.command, args, cwd, ctx)
        try:
            shell = await self.workspace.shells.start(
                confined.argv,
                cwd=cwd,
                env=confined.env,
                command=args.command,
                description=args.description,
                pass_fds=confined.pass_fds,
                on_end=confined.ended,
            )
        except BaseException:
            confined.ended()
            raise
        finally:
            confined.started()
        content = (
            f"Command running in background with ID: {shell.id}. Output is being written to: {shell.output_path}. "
            "Read new output with TaskOutput and stop it with TaskStop."
        )
        return ToolResult(content=content, details=_background_details(shell.id, confined.how == "sandbox"))

    def _detached(
        self,
        args: BashArgs,
        process: asyncio.subprocess.Process,
        capture: OutputCapture,
        route: _Route,
        reader: asyncio.Task[None],
        transport: asyncio.BaseTransport,
        confined: Confined,
    ) -> ToolResult:
        """The person sent the command to the background: from now on its output goes to a file a shell owns."""
        shells = self.workspace.shells
        output = capture.detach()
        route.to_file(output)
        reader.add_done_callback(lambda _: transport.close())
        shell = shells.adopt(
            process,
            command=args.command,
            description=args.description,
            output_path=capture.spill_path,
            reader=reader,
            output=output,
            on_end=confined.ended,
        )
        content = (
            f"The user sent this command to the background; it goes on running with ID: {shell.id}. Output so far "
            f"and from now on is in: {shell.output_path}. Read new output with TaskOutput and stop it with TaskStop."
        )
        details = _background_details(shell.id, confined.how == "sandbox", by_user=True)
        return ToolResult(content=content, details=details)

    def _follow_cwd(self, cwd_file: Path, previous: Path) -> list[str]:
        """Carry the command's final directory to the next call, unless it left the project. The file is the
        command's (it could have put a link or a FIFO there): read only if it is a small regular file."""
        ws = self.workspace
        written = read_small_file(cwd_file, 16384)
        with contextlib.suppress(OSError):
            cwd_file.unlink()
        try:
            recorded = Path(os.fsdecode(written.strip())) if written else None
        except ValueError:
            recorded = None
        if recorded is None or not recorded.is_absolute():
            return []
        if recorded.is_dir() and ws.contains(Path(os.path.realpath(recorded))):
            ws.shell_cwd = recorded
            return []
        ws.shell_cwd = ws.root
        if recorded != previous:
            return [f"Shell cwd was reset to {ws.root} (the command left the project)."]
        return []


def _gone(cwd: Path) -> ToolResult | None:
    """One sentence, and nothing run, where the project directory itself is gone (deleted or moved while agentui
    runs): no command has a place to run in."""
    if cwd.is_dir():
        return None
    return ToolResult.error(
        f"The project directory {cwd} no longer exists (it was deleted or moved), so the command was not run; "
        "restore it, or start agentui again in a directory that exists."
    )


async def _spawn(confined: Confined, cwd: Path) -> tuple[asyncio.subprocess.Process, int]:
    """The confined command started in a session of its own, and the read end of the one pipe its stdout and stderr
    share. Our own pipe, not asyncio's: Process.wait() waits for the pipes it owns to close as well as for the exit,
    so a background job still holding stdout would stall it."""
    read_end, write_end = os.pipe()
    try:
        process = await start_group(
            *confined.argv,
            env=confined.env,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=write_end,
            stderr=write_end,
            pass_fds=confined.pass_fds,
        )
    except BaseException:
        os.close(read_end)
        confined.ended()
        raise
    finally:
        os.close(write_end)
        confined.started()
    return process, read_end


async def _open_reader(fd: int) -> tuple[asyncio.StreamReader, asyncio.BaseTransport]:
    loop = asyncio.get_running_loop()
    stream = asyncio.StreamReader(limit=2**20)
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(stream), os.fdopen(fd, "rb", buffering=0)
    )
    return stream, transport


class _Route:
    """Where a foreground command's output goes: the capture and live progress, or, once the command was sent to
    the background, its output file."""

    def __init__(self, capture: OutputCapture, progress: Callable[[str], None]) -> None:
        self.capture = capture
        self.progress = progress
        self.file: BinaryIO | None = None
        self._pending: list[str] = []
        self._pending_size = 0
        self._last = 0.0  # the first output shows at once; after that, at most every PROGRESS_INTERVAL

    def feed(self, chunk: bytes) -> None:
        if self.file is not None:
            self.file.write(chunk)
            self.file.flush()
            return
        text = self.capture.feed(chunk)
        self._pending.append(text)
        self._pending_size += len(text)
        now = time.monotonic()
        if now - self._last >= PROGRESS_INTERVAL:
            self.flush()
            self._last = now

    def flush(self) -> None:
        if self._pending and self.file is None:
            self.progress(_recent(self._pending, self._pending_size))
        self._pending, self._pending_size = [], 0

    def to_file(self, file: BinaryIO) -> None:
        self.flush()
        self.file = file


async def _pump(stream: asyncio.StreamReader, route: _Route) -> None:
    while chunk := await stream.read(65536):
        route.feed(chunk)
    route.flush()


async def _reaped(process: asyncio.subprocess.Process) -> None:
    """After SIGKILL: wait a moment for the process to be gone (its stand-ins go after it), never for long."""
    with contextlib.suppress(TimeoutError, asyncio.CancelledError):
        await asyncio.wait_for(asyncio.shield(process.wait()), 5)


async def _exits_or_detaches(process: asyncio.subprocess.Process, detach: asyncio.Event, seconds: float) -> bool:
    """Wait for the command to exit (False) or for the person to send it to the background (True); raises
    TimeoutError after `seconds`."""
    exited = asyncio.ensure_future(process.wait())
    detached = asyncio.ensure_future(detach.wait())
    try:
        done, _ = await asyncio.wait({exited, detached}, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        detached.cancel()
        if not exited.done():
            exited.cancel()
    if exited in done:
        return False
    if detached in done:
        return True
    raise TimeoutError


def _background_details(shell_id: str, sandboxed: bool, *, by_user: bool = False) -> BashDetails:
    """toolUseResult as Claude Code writes it for a background command."""
    details: BashDetails = {
        "stdout": "",
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
        "backgroundTaskId": shell_id,
    }
    if by_user:
        details["backgroundedByUser"] = True
    if sandboxed:
        details["sandboxed"] = True
    return details


def _recent(parts: list[str], size: int) -> str:
    text = "".join(parts)
    return text if size <= PROGRESS_MAX_CHARS else text[-PROGRESS_MAX_CHARS:]
