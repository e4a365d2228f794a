"""Print mode (`agentui -p`): one prompt, no screen; text, json or stream-json on stdout, a policy answers
permissions."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

from agentui import __version__
from agentui.api import (
    AgentuiError,
    AttemptConfig,
    Branch,
    ChangedOutside,
    Conversation,
    Launch,
    PermissionOptions,
    RewindError,
    RewindRequest,
    RunResult,
    SessionRequest,
    Settings,
    compact_command,
    describe_call,
    limit_reached,
    list_sessions,
    open_conversation,
    open_project,
    project_dir,
)
from agentui.api.events import (
    CompactionEnd,
    CompactionStart,
    Event,
    LimitWait,
    MessageEnd,
    Notice,
    PermissionDecision,
    PermissionRequest,
    Retry,
    TextDelta,
    ToolEnd,
    ToolStart,
)
from agentui.api.messages import ImageBlock, Usage
from agentui.frontends.print.limit_note import note_pending_limit

if TYPE_CHECKING:
    from agentui.api import TaskNotices
    from agentui.frontends.claude_code.stream import ClaudeStream

OutputFormat = Literal["text", "json", "stream-json", "events"]
"""Plain text; Claude Code's json result or its stream-json messages; or agentui's own events (the bus)."""

CANNOT_ASK = (
    "agentui is running without a screen (-p) and cannot ask the user for permission, so this call was denied; "
    "the user can allow it with a rule (--allowedTools or .claude/settings.json) or --permission-mode."
)

NO_ONE_ANSWERS = {
    "questions": (
        "agentui is running without a screen (-p), so no one can answer questions; go on with your best judgment and "
        "say what you assumed."
    ),
    "plan": (
        "agentui is running without a screen (-p), so no one can approve the plan and nothing may be changed: end "
        "with the plan as your answer. The user can let plans go ahead with --allowedTools ExitPlanMode or another "
        "--permission-mode."
    ),
}
"""What the model is told when print mode cannot put a question or a plan to anyone (by what the call asks)."""

RESTARTED = "[agentui: the answer above was cut off and is given again in full below]"


class Printer:
    """Writes a run's events as the chosen format asks; text mode streams the answer as it arrives."""

    def __init__(self, output_format: OutputFormat, out: IO[str], err: IO[str], *, verbose: bool = False) -> None:
        self.format = output_format
        self.out = out
        self.err = err
        self.verbose = verbose
        self.closed = False
        self._wrote = False
        self._message_text = False
        self._separator = False
        self._last = "\n"
        self._printed: list[str] = []
        """The text of the message being streamed as printed so far: a retry must not print it twice."""
        self._replay: str | None = None
        """After a retry, what was printed of the failed attempt, while the new attempt is still repeating it."""
        self._matched = 0
        self._shared_terminal: bool | None = None

    def __call__(self, event: Event) -> None:
        if self.closed:
            return
        try:
            if isinstance(event, LimitWait):  # (every format: the one line that says when the run goes on)
                self._limit_wait(event)
            if self.format == "events":
                self.line(event.to_json())
            elif self.format == "text":
                self._text(event)
            elif isinstance(event, Notice) and event.level == "warning":
                # json and stream-json keep stdout for the protocol; a warning (a session that cannot be saved, a
                # hook that failed) still reaches the person, on stderr.
                self.note(event.message)
        except BrokenPipeError:
            self.closed = True  # the reader went away (| head); nothing more to say

    def _text(self, event: Event) -> None:
        match event:
            case TextDelta():
                self._say(self._unrepeated(event.text) if self._replay is not None else event.text)
            case MessageEnd():
                if not self._message_text and self._replay is None and event.message.text:
                    self._say(event.message.text)  # (a message that arrived whole: a chosen attempt's, replayed)
                if self._replay is not None and self._matched < len(self._replay):
                    self._restart(self._replay[: self._matched])  # the new answer is shorter than what was shown
                self._replay = None
                self._printed.clear()
                self._separator = self._separator or self._message_text
                self._message_text = False
            case Retry():
                # What streamed of the failed attempt is void, but it is on stdout already: the new attempt's text is
                # printed only past the point where it stops repeating it (or after a mark, where it differs).
                if self._printed or self._replay:  # (a second retry while repeating: all of it is still shown)
                    self._replay = (self._replay or "") + "".join(self._printed)
                    self._matched = 0
                    self._printed.clear()
                attempt = f"attempt {event.attempt} of {event.max_attempts}"
                self.note(f"retrying in {event.delay:.1f} s ({attempt}): {event.reason}")
            case Notice():
                self.note(event.message)
            case CompactionStart(trigger="auto", reason=reason) if reason:  # (said before, as it may take a while)
                self.note(f"compacting the conversation: {reason}.")
            case CompactionEnd():
                before = f"from about {event.pre_tokens:,} " if event.pre_tokens else ""
                self.note(f"the conversation was compacted {before}to about {event.post_tokens:,} tokens.")
            case ToolStart() if self.verbose:
                self.note(f"{event.name} {json.dumps(event.input, ensure_ascii=False)[:200]}")
            case ToolEnd(is_error=True) if self.verbose:
                verb = "was denied" if event.denied else "failed"
                self.note(f"{event.name} {verb}: {str(event.content)[:200]}")
            case _:  # the rest is for the other formats; text mode shows the answer and what went wrong
                pass

    def _say(self, text: str) -> None:
        if self._separator:
            self._write("\n" if self._last == "\n" else "\n\n")
            self._separator = False
        self._write(text)
        self._printed.append(text)
        self._message_text = True

    def _unrepeated(self, text: str) -> str:
        """The part of a retried attempt's delta that was not printed already; on a difference, a mark and the new
        attempt's text from its start."""
        assert self._replay is not None
        shown = self._replay[self._matched : self._matched + len(text)]
        if text.startswith(shown):
            self._matched += len(shown)
            if self._matched < len(self._replay):
                return ""
            self._replay = None
            return text[len(shown) :]
        self._restart(self._replay[: self._matched])
        return text

    def _restart(self, repeated: str) -> None:
        """Mark on stdout that the text above it was taken back, and print the new attempt's text so far."""
        self._replay = None
        self._write(("\n" if self._last != "\n" else "") + RESTARTED + "\n" + repeated)
        self._printed = [repeated]

    def _write(self, text: str) -> None:
        if not text:
            return
        self.out.write(text)
        self.out.flush()
        self._wrote = True
        self._last = text[-1]

    def line(self, text: str) -> None:
        """One whole line of machine-readable output."""
        self.out.write(text + "\n")
        self.out.flush()

    def _limit_wait(self, event: LimitWait) -> None:
        # What streamed of the failed attempt is void, as after a retry (nothing has: a limit is said before any).
        self._printed.clear()
        when = event.until.astimezone().strftime("%Y-%m-%d %H:%M:%S %Z").strip()
        self.note(f"{event.reason.rstrip('.')}; waiting until {when}, then the request is sent again.")

    def note(self, sentence: str) -> None:
        if self._wrote and self._last != "\n" and not self.closed and self._on_one_terminal():
            self._write("\n")  # never append a note to the answer's line on the screen; a pipe gets the text alone
        self.err.write(f"agentui: {sentence}\n")
        self.err.flush()

    def _on_one_terminal(self) -> bool:
        if self._shared_terminal is None:
            try:
                self._shared_terminal = self.out.isatty() and self.err.isatty()
            except (AttributeError, ValueError):
                self._shared_terminal = False
        return self._shared_terminal

    def finish(self, result: RunResult, summary: dict[str, object]) -> None:
        if self.closed:
            return
        try:
            if self.format == "text":
                if self._wrote and self._last != "\n":
                    self._write("\n")
            else:
                self.line(_compact(summary))
        except BrokenPipeError:
            self.closed = True


def result_summary(result: RunResult) -> dict[str, object]:
    """The final object of json and stream-json output, in Claude Code's shape."""
    subtype = {"end_turn": "success", "max_turns": "error_max_turns"}.get(result.stop, "error_during_execution")
    summary: dict[str, object] = {
        "type": "result",
        "subtype": subtype,
        "is_error": result.stop != "end_turn",
        "duration_ms": result.duration_ms,
        "duration_api_ms": result.api_duration_ms,
        "num_turns": result.num_turns,
        "result": result.text,
        "stop_reason": result.stop,
        "session_id": result.session_id,
        "total_cost_usd": result.cost_usd,
        "usage": result.usage.model_dump(),
    }
    if result.error:
        summary["error"] = result.error
    return summary


def exit_code(result: RunResult) -> int:
    """0 for an answer, 130 when the person interrupted, and 1 for every other end, a limit the person set among
    them (as Claude Code exits)."""
    if result.stop == "end_turn":
        return 0
    if result.stop == "cancelled":
        return 130
    return 1


async def run_print(
    settings: Settings,
    prompt: str,
    *,
    output_format: OutputFormat = "text",
    cwd: Path | None = None,
    permissions: PermissionOptions | None = None,
    launch: Mapping[str, Any] | None = None,
    verbose: bool = False,
    out: IO[str] | None = None,
    err: IO[str] | None = None,
    rewind: RewindRequest | None = None,
    partial: bool = False,
    replay_user: bool = False,
    hook_events: bool = False,
    attempts: Sequence[AttemptConfig] = (),
    evaluate: str = "judge",
) -> int:
    """Run `prompt` to the end, printing as `output_format` says; returns the process exit code. With `rewind`,
    first go back to before a prompt; with that and no prompt, only that. With `attempts`, run it as parallel
    attempts, chosen among as `evaluate` says, and apply the chosen one's changes."""
    printer = Printer(output_format, out or sys.stdout, err or sys.stderr, verbose=verbose)
    conversation = headless_conversation(settings, cwd or Path.cwd(), permissions, launch or {}, printer.note)
    if rewind is not None:
        done = _rewound(conversation, rewind, printer)
        if not done or not prompt.strip():  # (a failed rewind runs nothing; a rewind alone is all that was asked)
            await conversation.aclose()
            return 0 if done else 1
    for notice in await conversation.start_mcp():
        printer.note(notice)
    note_pending_limit(conversation, printer.note)

    stream = _listen(conversation, printer, settings, output_format, partial, replay_user, hook_events)

    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    with contextlib.suppress(NotImplementedError, RuntimeError):  # not on the main thread, or no signals here
        loop.add_signal_handler(signal.SIGINT, _stopper(conversation, stopping))
    from agentui.api import task_notices

    tasks = task_notices(conversation)
    try:
        prompt, images = await _mcp_prompt(conversation, prompt)
    except AgentuiError as exc:  # (a prompt an MCP server could not give: said, and nothing is run)
        printer.note(str(exc))
        await conversation.aclose()
        return 1
    if (expanded := conversation.expand_command(prompt)) is not None:  # `-p "/command arguments"`
        prompt, notices = expanded
        for notice in notices:
            printer.note(notice)
    instructions = compact_command(prompt)
    outcome: dict[str, Any] = {}
    try:
        if instructions is not None:  # (as Claude Code's `-p "/compact [instructions]"`: summarise, answer nothing)
            result = await conversation.compact(instructions or None)
            result = result.model_copy(update={"text": "", "num_turns": 0})  # (it answers nothing, as Claude Code's)
        elif attempts:
            result, outcome = await _attempted(conversation, prompt, attempts, evaluate, printer)
        else:
            result = await conversation.send(prompt, images)
            result = await _background(conversation, tasks, result, (stream, printer, output_format), stopping)
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        await conversation.aclose()

    _report(result, outcome, printer, stream, output_format)
    return exit_code(result)


async def _mcp_prompt(conversation: Conversation, prompt: str) -> tuple[str, list[ImageBlock]]:
    """`-p "/mcp__server__prompt words"`: the server's prompt (and its images) in place of the command as typed."""
    from agentui.api import expand_mcp_prompt

    expanded = await expand_mcp_prompt(conversation, prompt)
    return expanded if expanded is not None else (prompt, [])


def _stopper(conversation: Conversation, stopping: asyncio.Event) -> Callable[[], None]:
    """Ctrl+C: the run stops, and so does the waiting for background commands."""

    def stop() -> None:
        conversation.interrupt()
        stopping.set()

    return stop


async def _background(
    conversation: Conversation,
    notices: TaskNotices,
    result: RunResult,
    out: tuple[ClaudeStream, Printer, OutputFormat],
    stopping: asyncio.Event,
) -> RunResult:
    """As Claude Code's `-p`: while background commands the run started still run, wait; each one's end not told in
    the run (with a tool result) is reported and its `<task-notification>` answered by the model, as a prompt of its
    own. The last run's
    result is the result (stream-json shows each one's). The waiting ends at Ctrl+C, when the output is closed, or
    after BACKGROUND_WAIT seconds in all (`AGENTUI_BACKGROUND_WAIT`); what still runs is then stopped."""
    from agentui.api import background_wait

    stream, printer, output_format = out
    deadline = time.monotonic() + background_wait()
    while result.stop == "end_turn" and (notices.running or notices.ended):
        if output_format == "stream-json" and not stream.wrote(result):  # (as each run ends, as Claude Code does)
            try:
                printer.line(_compact(stream.result(result)))
            except BrokenPipeError:
                printer.closed = True
            stream.written.append(result)
        left = deadline - time.monotonic()
        if stopping.is_set() or printer.closed or left <= 0:
            if not stopping.is_set() and notices.running:
                printer.note(f"stopped waiting for {len(notices.running_ids())} background command(s).")
            break
        waiting = asyncio.ensure_future(notices.wait())
        stopped = asyncio.ensure_future(stopping.wait())
        await asyncio.wait([waiting, stopped], timeout=left, return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()
        stopped.cancel()
        if stopping.is_set() or not notices.ended:
            continue
        told = stream.tell_ends(notices)
        if output_format == "stream-json":
            stream.init(conversation.launch.settings)
        result = await conversation.send(told)
    if not stopping.is_set():
        return result
    cancelled = result.model_copy(update={"stop": "cancelled"})
    if stream.wrote(result):  # (its line went out already: not a second one)
        stream.written.append(cancelled)
    return cancelled


def _listen(
    conversation: Conversation,
    printer: Printer,
    settings: Settings,
    output_format: OutputFormat,
    partial: bool,
    replay_user: bool,
    hook_events: bool,
) -> ClaudeStream:
    """What print mode does with the conversation's events: questions answered no (no one is there to answer),
    the printer, and Claude Code's stream-json messages (written only in that format, their result kept)."""

    def deny_asks(event: Event) -> None:
        if isinstance(event, PermissionRequest):
            fallback = f"{CANNOT_ASK} It needed permission because {event.reason}."
            message = NO_ONE_ANSWERS.get(describe_call(event.tool_name, event.input).asks, fallback)
            conversation.answer(event.request_id, PermissionDecision(behavior="deny", message=message))

    conversation.on(deny_asks)
    conversation.on(_own(printer))  # (an attempt's events are not the conversation's until it is chosen)
    from agentui.frontends.claude_code.stream import ClaudeStream

    def write(message: dict[str, object]) -> None:
        if output_format == "stream-json" and not printer.closed:
            try:
                printer.line(_compact(message))
            except BrokenPipeError:
                printer.closed = True

    stream = ClaudeStream(
        conversation, write, partial=partial, replay_user=replay_user, hook_events=hook_events, refuses_asks=True
    )
    conversation.on(_own(stream))
    if output_format == "stream-json":
        stream.init(settings)
    elif output_format == "events":
        printer.line(_compact(_init_line(conversation, settings)))
    return stream


def _report(
    result: RunResult, outcome: dict[str, Any], printer: Printer, stream: ClaudeStream, output_format: OutputFormat
) -> None:
    """The run's end as the format has it, and on stderr why it stopped early."""
    if result.error and output_format == "text":
        printer.finish(result, {})
        printer.note(result.error)
    elif stream.wrote(result):  # (its line went out as the run ended, before the background waiting)
        pass
    else:
        summary = result_summary(result) if output_format == "events" else stream.result(result)
        printer.finish(result, {**summary, **outcome})
        if result.error and output_format != "text":
            printer.note(result.error)
    if result.stop == "max_turns" and output_format == "text":
        printer.note(f"stopped after {result.num_turns} turns (--max-turns).")
    if result.stop == "max_budget" and output_format == "text":
        printer.note(f"stopped after spending ${result.cost_usd:.4f} (--max-budget-usd).")
    if result.stop in ("max_total_tokens", "max_duration") and output_format == "text":
        printer.note(limit_reached(result.stop) or "")


def _own(listener: Callable[[Event], object]) -> Callable[[Event], None]:
    """`listener`, for the conversation's own events only (not those of attempts still running apart)."""

    def own(event: Event) -> None:
        if event.loop_id is None:
            listener(event)

    return own


async def _attempted(
    conversation: Conversation, prompt: str, configs: Sequence[AttemptConfig], evaluate: str, printer: Printer
) -> tuple[RunResult, dict[str, Any]]:
    """`--attempts`: run them, apply the chosen one's changes, and give its result (with what every attempt and the
    judge spent) and, for json, every attempt's outcome."""
    from agentui.api import WorkingCopyError

    started, judged_from = time.monotonic(), conversation.usage[1]

    def failed(error: str, usage: Usage, cost: float) -> RunResult:
        took = round((time.monotonic() - started) * 1000)
        return RunResult(session_id=conversation.session_id, stop="error", text="", num_turns=0, usage=usage,
                         cost_usd=cost, error=error, error_kind="attempts", duration_ms=took,
                         api_duration_ms=0)  # fmt: skip

    try:
        group, verdict = await conversation.attempt(prompt, configs, evaluate)
    except WorkingCopyError as exc:
        return failed(str(exc), Usage(), 0.0), {}
    try:
        outcome: dict[str, Any] = {
            "attempts": [_attempt_outcome(branch) for branch in group.branches],
            "chosen": verdict.chosen,
            "ranking": list(verdict.ranking),
            "reasons": verdict.reasons,
        }
        ran = [b.result for b in group.branches if b.result is not None]
        spent = sum((r.cost_usd for r in ran), conversation.usage[1] - judged_from)  # (the judge's call too)
        usage = sum((r.usage for r in ran), Usage())
        if verdict.chosen is None:
            return failed(f"No attempt was chosen: {verdict.reasons}", usage, spent), outcome
        chosen = group.branch(verdict.chosen)
        try:
            group.apply(verdict.chosen)
            printer.note(f"{verdict.chosen} was chosen ({verdict.reasons}); its changes were applied.")
        except WorkingCopyError as exc:
            printer.note(str(exc))
        assert chosen.result is not None  # (a strategy chooses only among attempts that finished)
        return chosen.result.model_copy(update={"usage": usage, "cost_usd": spent}), outcome
    finally:
        group.close()


def _attempt_outcome(branch: Branch) -> dict[str, Any]:
    result = branch.result
    return {
        "id": branch.id,
        "model": branch.agent.config.model,
        "stop_reason": result.stop if result else "error",
        "result": result.text if result else "",
        "error": branch.error or (result.error if result else None),
        "total_cost_usd": result.cost_usd if result else 0.0,
        "tokens": branch.tokens,
        "changes": branch.patch,
    }


def _rewound(conversation: Conversation, request: RewindRequest, printer: Printer) -> bool:
    """Rewind as asked, and say what was done (text: on stderr; json: one object on stdout)."""
    try:
        rewound = conversation.rewind(
            request.to, code=request.code, conversation=request.conversation, overwrite=request.overwrite
        )
    except ChangedOutside as exc:
        printer.note(f"{exc} To overwrite {'it' if len(exc.paths) == 1 else 'them'}, pass --rewind-overwrite.")
        return False
    except RewindError as exc:
        printer.note(str(exc))
        return False
    files = [str(change.path) for change in rewound.changes]
    if printer.format == "text":
        count = f"{len(files)} file{'' if len(files) == 1 else 's'} restored" if request.code else "no file restored"
        where = " (the conversation goes on from there)" if request.conversation else ""
        printer.note(f"Rewound to before “{rewound.prompt.splitlines()[0][:80]}”{where}: {count}.")
        for note in rewound.notes:
            printer.note(note)
    else:
        summary = {
            "type": "rewind",
            "session_id": conversation.session_id,
            "prompt": rewound.prompt,
            "files": files,
            "conversation": request.conversation,
            "notes": rewound.notes,
        }
        printer.line(_compact(summary))
    return True


def _compact(data: dict[str, object]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _init_line(conversation: Conversation, settings: Settings) -> dict[str, object]:
    return {
        "type": "system",
        "subtype": "init",
        "cwd": str(conversation.root),
        "session_id": conversation.session_id,
        "tools": conversation.tool_names,
        "model": conversation.model,
        "provider": settings.provider,
        "permissionMode": conversation.mode,
        "version": __version__,
    }


def print_sessions(cwd: Path, output_format: OutputFormat, out: IO[str] | None = None) -> int:
    """`agentui -p --resume` with no id: this project's sessions, newest first."""
    from datetime import datetime

    out = out or sys.stdout
    sessions = list_sessions(project_dir(cwd))
    if output_format != "text":
        rows = [
            {
                "session_id": s.session_id,
                "title": s.title,
                "last_prompt": s.last_prompt,
                "messages": s.messages,
                "modified": datetime.fromtimestamp(s.modified).isoformat(timespec="seconds"),
                "git_branch": s.git_branch,
                "path": str(s.path),
            }
            for s in sessions
        ]
        out.write(json.dumps(rows, ensure_ascii=False) + "\n")
        return 0
    if not sessions:
        out.write(f"No sessions yet for {cwd}.\n")
        return 0
    for s in sessions:
        when = datetime.fromtimestamp(s.modified).strftime("%Y-%m-%d %H:%M")
        count = f"{'~' if s.approximate else ''}{s.messages}"
        branch = f" [{s.git_branch}]" if s.git_branch else ""
        out.write(f"{s.session_id}  {when}  {count:>6} msgs{branch}  {s.title}\n")
    return 0


async def run_sdk(
    settings: Settings,
    *,
    permissions: PermissionOptions | None = None,
    launch: Mapping[str, Any] | None = None,
    partial: bool = False,
    replay_user: bool = False,
    hook_events: bool = False,
    ask_over_stdio: bool = False,
) -> int:
    """`--input-format stream-json`: serve an Agent SDK program on stdin and stdout until stdin closes."""
    from agentui.frontends.claude_code.sdk_stdio import SdkSession, stdin_lines

    conversation = headless_conversation(
        settings, Path.cwd(), permissions, launch or {}, lambda sentence: sys.stderr.write(f"agentui: {sentence}\n")
    )
    sdk: SdkSession | None = None
    try:
        sdk = SdkSession(
            conversation,
            settings,
            sys.stdout,
            sys.stderr,
            partial=partial,
            replay_user=replay_user,
            hook_events=hook_events,
            ask_over_stdio=ask_over_stdio,
        )
        return await sdk.serve(stdin_lines())
    finally:
        for each in [conversation, *(sdk.branches if sdk is not None else [])]:  # (and those a branch went on in)
            await each.aclose()


def headless_conversation(
    settings: Settings,
    cwd: Path,
    permissions: PermissionOptions | None,
    launch: Mapping[str, Any],
    note: Callable[[str], object],
) -> Conversation:
    """The conversation a headless front end works on: the project (its notices said through `note`) and what
    the command line asked for (`launch`: Launch's fields besides the settings, the place and the permissions)."""
    permissions = permissions or PermissionOptions()
    project = open_project(cwd, permissions)
    for notice in project.notices:
        note(notice)
    fields = {**launch, "session": launch.get("session") or SessionRequest()}
    chosen = Launch(settings=settings, cwd=project.root, permissions=permissions, **fields)
    return open_conversation(chosen, project=project, on_error=note)
