"""Claude Code's `statusLine` setting: `{"type": "command", "command": "...", "padding": N}` in a settings file, a
command given the session as JSON on stdin whose first line of output is the status line.

Which file's setting applies (the most specific one, a project's own only once the project is trusted), and running
the command as a hook's is run: under the guard, in the project, with Claude Code's 5-second limit, its output cut
off past `MAX_OUTPUT`, and whatever goes wrong one sentence, never an exception."""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from agentui.core.claude_settings import SettingsSource
from agentui.core.process_groups import start_group, stop_group
from agentui.core.safety.confined import Confined

if TYPE_CHECKING:
    from agentui.core.safety.guard import Guard

TIMEOUT = 5.0
"""Seconds a run may take (Claude Code's limit), then it is stopped."""
MAX_OUTPUT = 64 * 1024
"""Bytes of output read; a command that prints more is stopped there (its first line is still shown)."""
MAX_ERRORS = 4096
"""Bytes of the error output kept, for the sentence that says why a run failed."""
T = TypeVar("T")
SHAPE = 'statusLine must be {"type": "command", "command": "..."}'


@dataclass(frozen=True)
class StatusLineSetting:
    command: str
    padding: int = 0
    """Columns left empty on either side of the line."""
    refresh_seconds: float | None = None
    """`refreshInterval`: also run every so many seconds (at least 1), not only when the conversation changes."""
    source: str = "user"
    """The settings file it comes from (user, project, local, flag, managed)."""


@dataclass(frozen=True)
class StatusLineOutcome:
    text: str | None
    """The first line the command printed (its colours as it wrote them); None for nothing to show."""
    problem: str | None = None
    """Why the run failed, or was cut short, in one sentence; None if it went well."""


def status_line_setting(
    sources: list[SettingsSource], trusted: bool, notices: list[str], held_back: list[str]
) -> StatusLineSetting | None:
    """The statusLine of the most specific settings file that has one (managed, --settings, local, project, user).
    A project's own waits for trust (said in `held_back`: it is a command to run); one that is not a command is
    ignored, with a notice."""
    found: StatusLineSetting | None = None
    for source in sources:  # (lowest precedence first: the last usable one wins)
        value = source.settings.statusLine
        if value is None:
            continue
        setting = _parse(value, source.name)
        if setting is None:
            notices.append(f"{source.path}: {SHAPE}; it is ignored.")
        elif source.from_project and not trusted:
            held_back.append("status line")
        else:
            found = setting
    return found


def _parse(value: Any, source: str) -> StatusLineSetting | None:
    if not isinstance(value, dict) or value.get("type") != "command":
        return None
    command = value.get("command")
    if not isinstance(command, str) or not command.strip():
        return None
    padding = _number(value.get("padding"))
    refresh = _number(value.get("refreshInterval"))
    return StatusLineSetting(
        command,
        padding=max(0, min(20, int(padding))) if padding is not None else 0,
        refresh_seconds=max(1.0, refresh) if refresh is not None else None,  # (Claude Code ignores a bad one)
        source=source,
    )


def _number(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


class StatusLine:
    """The status line's command, ready to run in the project (under the guard where it can run, as hooks are)."""

    def __init__(
        self, setting: StatusLineSetting, *, cwd: Path, env: Mapping[str, str], guard: Guard | None = None
    ) -> None:
        self.setting = setting
        self.cwd = cwd
        self._env = {**env, "CLAUDE_PROJECT_DIR": str(cwd)}
        self._guard = guard

    @property
    def name(self) -> str:
        """The command as a sentence names it: its first 60 characters."""
        command = " ".join(self.setting.command.split())
        return command if len(command) <= 60 else command[:57] + "..."

    async def run(
        self, session: Mapping[str, Any], *, columns: int | None = None, limit: float | None = None
    ) -> StatusLineOutcome:
        """Run the command with `session` as JSON on its stdin; its first line, or why there is none. It may take
        `limit` seconds (`TIMEOUT` unless said). Cancelling the caller stops the command (and what it started) at
        once."""
        data = json.dumps(session, ensure_ascii=False, default=str).encode()
        env = {**self._env, **({"COLUMNS": str(columns)} if columns else {})}
        # Wrapping and starting are seen through even when the caller is cancelled meanwhile: what they set up
        # (stand-ins, the process) is undone, never left behind.
        wrapping = asyncio.ensure_future(asyncio.to_thread(self._confined, env))
        try:
            confined = await _unless_cancelled(wrapping, lambda done: done.ended())
        except OSError as exc:
            return StatusLineOutcome(None, f"The status line command `{self.name}` could not be confined ({exc}).")
        starting = asyncio.ensure_future(
            start_group(
                *confined.argv,
                env=confined.env,
                cwd=self.cwd,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
        )
        try:
            process = await _unless_cancelled(starting, lambda started: _stop_soon(started, confined))
        except OSError as exc:
            confined.ended()
            return StatusLineOutcome(None, f"The status line command `{self.name}` could not start ({exc}).")
        try:
            return await self._outcome(process, data, TIMEOUT if limit is None else limit)
        finally:
            # (also when cancelled: a newer run takes its place, and this one's processes end now)
            ending = asyncio.ensure_future(_end(process, confined))
            _stopping.add(ending)
            ending.add_done_callback(_stopping.discard)
            await asyncio.shield(ending)

    def _confined(self, env: Mapping[str, str]) -> Confined:
        argv = ["bash", "-c", self.setting.command]
        if self._guard is None or not self._guard.available:
            return Confined(argv, dict(env))
        return self._guard.wrap(argv, cwd=self.cwd, scratch=self._guard.workspace.scratch, env=env)

    async def _outcome(self, process: asyncio.subprocess.Process, data: bytes, limit: float) -> StatusLineOutcome:
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        errors = asyncio.ensure_future(_read(process.stderr, MAX_ERRORS, drain=True))
        try:
            async with asyncio.timeout(limit):
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # (one that reads nothing)
                    process.stdin.write(data)
                    await process.stdin.drain()
                    process.stdin.close()
                output, cut = await _read(process.stdout, MAX_OUTPUT, drain=False)
                if cut:
                    line = first_line(output)
                    why = f"printed more than {MAX_OUTPUT // 1024} KB, so it was stopped"
                    return StatusLineOutcome(line, f"The status line command `{self.name}` {why}.")
                code = await process.wait()
                stderr, _ = await errors
        except TimeoutError:
            return StatusLineOutcome(
                None, f"The status line command `{self.name}` took longer than {limit:g} s and was stopped."
            )
        finally:
            errors.cancel()
        if code != 0:
            detail = stderr.decode(errors="replace").strip().splitlines()
            said = f": {detail[0][:120]}" if detail else ""
            return StatusLineOutcome(None, f"The status line command `{self.name}` failed with exit code {code}{said}.")
        return StatusLineOutcome(first_line(output))


async def _unless_cancelled(step: asyncio.Future[T], undo: Callable[[T], object]) -> T:
    """`step`'s result; if the caller is cancelled first, `step` still finishes and `undo` gets what it made."""
    try:
        return await asyncio.shield(step)
    except asyncio.CancelledError:
        step.add_done_callback(lambda done: None if done.cancelled() or done.exception() else undo(done.result()))
        raise


def _stop_soon(process: asyncio.subprocess.Process, confined: Confined) -> None:
    _stopping.add(task := asyncio.ensure_future(_end(process, confined)))
    task.add_done_callback(_stopping.discard)


async def _end(process: asyncio.subprocess.Process, confined: Confined) -> None:
    """Stop what is left of the command, then read what is left in its pipes (their writers are gone) so that they
    close now, not when the garbage collector finds them; then undo what was set up for it."""
    try:
        await stop_group(process, 0.1)
        if process.stdin is not None:
            process.stdin.close()
        left = [stream.read() for stream in (process.stdout, process.stderr) if stream is not None]
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(1.0):  # (unless something left the group and holds a pipe open)
                await asyncio.gather(*left, return_exceptions=True)
    finally:
        confined.ended()


_stopping: set[asyncio.Future[None]] = set()
"""Stops under way of commands whose run was cancelled as they started (held here until done)."""


async def _read(stream: asyncio.StreamReader, limit: int, *, drain: bool) -> tuple[bytes, bool]:
    """Up to `limit` bytes of `stream` until it ends, and whether there was more (read and dropped with `drain`, else
    left unread)."""
    kept = bytearray()
    more = False
    while chunk := await stream.read(65536):
        room = limit - len(kept)
        if len(chunk) > room:
            kept += chunk[:room]
            more = True
            if not drain:
                break
        else:
            kept += chunk
    return bytes(kept), more


def first_line(output: bytes) -> str | None:
    """The first line with something on it, as Claude Code takes it (surrounding space trimmed)."""
    for line in output.decode(errors="replace").splitlines():
        if line.strip():
            return line.strip()
    return None
