"""Tool dispatch, the one seam every tool call passes: look up, validate, permission, run, report.

Hooks (PreToolUse / PostToolUse) plug in around `tool.run`; a front end answers permission requests through
`respond_permission`, resolving the future the call is waiting on.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agentui.core.context.memory import MemoryFile, MemoryLoader, render_memory
from agentui.core.errors import AgentuiError
from agentui.core.escapes import scrub, visible
from agentui.core.events import (
    Event,
    Notice,
    PermissionDecision,
    PermissionRequest,
    PermissionResolved,
    ToolEnd,
    ToolProgress,
    ToolStart,
)
from agentui.core.extend.hooks import Hooks
from agentui.core.loop.answer_wait import answer_or_default
from agentui.core.loop.blackboard import Member
from agentui.core.loop.result_cache import ResultCache
from agentui.core.messages import REFUSED, TextBlock, ToolResultBlock, ToolUseBlock, not_run
from agentui.core.safety.permissions import PermissionGate, Verdict
from agentui.core.safety.permissions.readonly import only_reads
from agentui.core.tools.base import Tool, ToolContext, ToolRegistry, ToolResult

log = logging.getLogger(__name__)

INTERRUPTED = "Interrupted by user: the tool call was stopped before it finished."
_REJECTED = REFUSED + " The tool use was rejected (nothing was written or run)."
_WAIT = " Stop and wait for the user to say how to proceed."
_NOT_RUN_AFTER_NO = "Not run: the user refused an earlier call of this response, which ended the turn."


class ToolDispatcher:
    def __init__(
        self,
        tools: ToolRegistry,
        gate: PermissionGate,
        emit: Callable[[Event], None],
        *,
        session_id: str,
        cwd: Path,
        hooks: Hooks | None = None,
        memory: MemoryLoader | None = None,
        cache: ResultCache | None = None,
        notices: Callable[[], str | None] = lambda: None,
        member: Member | None = None,
    ) -> None:
        self.tools = tools
        self.member = member
        """The agent's seat on the blackboard: it claims a file before a tool changes it, and counts failing calls."""
        self.notices = notices
        """The background ends not told to the model yet, taken as one reminder (None: none): it goes with the next
        tool result, as in Claude Code."""
        self.cache = cache
        self.gate = gate
        self.hooks = hooks
        self.memory = memory
        self._emit = emit
        self._session_id = session_id
        self._cwd = cwd
        self._asks: dict[str, asyncio.Future[PermissionDecision]] = {}
        self._running: dict[str, str] = {}  # tool_call_id -> tool name, between ToolStart and ToolEnd
        self.finished: dict[str, ToolResultBlock] = {}
        """Results of the current batch so far, so a cancel keeps the results that did arrive."""
        self.halted: str | None = None
        """A hook said `continue: false` (its `stopReason`): the run ends once this batch's calls have ended."""
        self.notes: list[str] = []
        """What hooks add for the model beside this batch's results (after them, in the same message)."""
        self._reached: list[tuple[Path, list[MemoryFile]]] = []
        """The paths this batch's calls reached and the nested CLAUDE.md files each brought (for InstructionsLoaded)."""
        self.refused = False
        """The person answered a question of this batch with a plain No (`PermissionDecision.interrupt`): the calls
        after it are not run, and the turn ends there."""
        self.before_write: Callable[[str, Path], None] | None = None
        self._chosen: dict[str, dict[str, str]] = {}
        """The queued changes the person picked, by call, for the approved plan's run: each file's digest as it was
        shown."""
        """Called with the call's id and the file's resolved path before a tool that writes runs (once allowed)."""
        self.before_shell: Callable[[str, str], Awaitable[None]] | None = None
        """Awaited with the call's id and the command before a tool that runs commands runs (once allowed)."""

    # Answers from a front end

    def respond_permission(self, request_id: str, decision: PermissionDecision) -> bool:
        """Resolve a pending permission request; False if it is unknown or already answered."""
        future = self._asks.get(request_id)
        if future is None or future.done():
            return False
        future.set_result(decision)
        return True

    def pending_permissions(self) -> list[str]:
        return [request_id for request_id, future in self._asks.items() if not future.done()]

    # Running calls

    async def run_all(self, calls: Sequence[ToolUseBlock]) -> list[ToolResultBlock | TextBlock]:
        """Run one response's calls: consecutive read-only calls together, anything else alone and in order; their
        results, then what hooks added beside them."""
        self.finished.clear()
        self.refused, self.halted, self.notes, self._reached = False, None, [], []
        for batch in self._batches(calls):
            if self.refused or self.halted:  # (each call still ends, so its block and the history say it did not run)
                why = _NOT_RUN_AFTER_NO if self.refused else f"Not run: a hook stopped the run ({self.halted})."
                for call in batch:
                    self._finish(call.id, call.name, ToolResult.error(why))
            elif len(batch) == 1:
                await self.run(batch[0])
            else:
                await asyncio.gather(*(self.run(call) for call in batch))
        if self.hooks and not self.refused and not self.halted:
            await self._after_batch(calls)
        notes = [TextBlock(text=note) for note in self.notes]
        return [*(self.finished[call.id] for call in calls), *notes]

    async def _after_batch(self, calls: Sequence[ToolUseBlock]) -> None:
        """PostToolBatch, once every call of the response has ended (its context joins the results, its block ends
        the run), then InstructionsLoaded for the CLAUDE.md files the calls reached, as Claude Code orders them."""
        assert self.hooks is not None
        if self.hooks.listens("PostToolBatch"):
            done = [(call.name, call.input, call.id, _said(self.finished[call.id])) for call in calls]
            outcome = await self.hooks.post_tool_batch(self._session_id, done)
            self.notes += [f"<system-reminder>\nPostToolBatch hook additional context: {said}\n</system-reminder>"
                           for said in outcome.context]  # fmt: skip
            if outcome.decision == "block" or outcome.stop is not None:
                self.halted = outcome.stop or outcome.reason or "a PostToolBatch hook stopped the run"
                return
        for path, found in self._reached:
            await self.hooks.instructions_loaded(self._session_id, "nested_traversal", path, found)

    def _batches(self, calls: Sequence[ToolUseBlock]) -> list[list[ToolUseBlock]]:
        batches: list[list[ToolUseBlock]] = []
        previous_read = False
        for call in calls:
            tool = self.tools.get(call.name)
            is_read = tool is not None and tool.kind == "read"
            if is_read and previous_read:
                batches[-1].append(call)
            else:
                batches.append([call])
            previous_read = is_read
        return batches

    async def run(self, call: ToolUseBlock) -> ToolResultBlock:
        self._running[call.id] = call.name
        self._emit(ToolStart(session_id=self._session_id, tool_call_id=call.id, name=call.name, input=call.input))
        try:
            result = await self._execute(call)
        except Exception as exc:  # (anything around the tool: every tool_use still gets its tool_result)
            log.exception("tool call %s (%s) failed", call.id, call.name)
            result = ToolResult.error(_failure(call.name, exc))
        member = self.member if result.is_error and not result.denied else None  # (a failing call: a doom loop?)
        if member is not None and (nudge := member.failed(call.name, call.input, _text(result))) is not None:
            self.notes.append(nudge)  # (beside this batch's results: the model reads it in its next turn)
        return self._finish(call.id, call.name, result)

    def interrupt(self, calls: Sequence[ToolUseBlock]) -> list[ToolResultBlock]:
        """After a cancel: end every call still running with an 'interrupted' result, and return a result for each
        of `calls` (the batch that was running), so the history stays valid."""
        for tool_call_id, name in list(self._running.items()):
            self._finish(tool_call_id, name, ToolResult.error(INTERRUPTED, interrupted=True))
        return [self.finished.get(call.id) or not_run(call.id, INTERRUPTED) for call in calls]

    def _finish(self, tool_call_id: str, name: str, result: ToolResult) -> ToolResultBlock:
        self._running.pop(tool_call_id, None)
        result = _visible(result)
        # (not with the result of a call that sends a command away: its end would be told before its start is)
        if not result.details.get("backgroundTaskId") and (told := self.notices()) is not None:
            result = _with_note(result, told)
        block = ToolResultBlock(tool_use_id=tool_call_id, content=result.content, is_error=result.is_error)
        self.finished[tool_call_id] = block
        self.notes += result.context
        self._emit(
            ToolEnd(
                session_id=self._session_id,
                tool_call_id=tool_call_id,
                name=name,
                content=result.content,
                is_error=result.is_error,
                details={**result.details, "denied": True} if result.denied else result.details,
                cached=result.cached,
                denied=result.denied,
                context=list(result.context),
            )
        )
        return block

    async def run_unseen(self, call: ToolUseBlock) -> ToolResult:
        """A call that is not the model's (a custom command's shell command): checked, asked and run as the model's
        would be, with no event of a call (the model never made it)."""
        try:
            return await self._execute(call)
        except Exception as exc:  # (as `run`: the command gets its result)
            log.exception("call %s (%s) failed", call.id, call.name)
            return ToolResult.error(_failure(call.name, exc))

    async def _execute(self, call: ToolUseBlock) -> ToolResult:
        tool = self.tools.get(call.name)
        if tool is None:
            available = ", ".join(self.tools.names()) or "none"
            return ToolResult.error(f"There is no tool named {call.name!r}; the available tools are: {available}.")
        if call.input_error:
            return ToolResult.error(
                f"{call.name} was not run: {call.input_error}. Send the arguments as a JSON object."
            )
        try:
            args = tool.Args.model_validate(call.input)
        except ValidationError as exc:
            return ToolResult.error(f"{call.name} was not run: {_describe(exc)}.")

        verdict = self.gate.check(tool, args, call)
        if self.hooks:  # (before a deny rule refuses the call, as Claude Code runs them; a hook cannot undo a deny)
            hooked = await self._pre_hooks(tool, call, args, verdict)
            if isinstance(hooked, ToolResult):
                return hooked
            call, args, verdict = hooked
        if verdict.behavior == "deny":
            return _refused(call, verdict)
        lifted = False
        if verdict.behavior == "ask":
            decision = await self._ask(tool, call, verdict)
            try:
                self.gate.remember(tool, args, call, decision)
            except (OSError, AgentuiError) as exc:  # ("always": the rule holds for the session, the file is kept)
                said = f"Your answer holds for this session, but it could not be saved: {exc}"
                self._emit(Notice(session_id=self._session_id, level="warning", message=said))
            if decision.behavior == "deny":
                if decision.interrupt:
                    self._refuse_the_rest(decision)
                if decision.verbatim and decision.message:
                    return ToolResult.error(decision.message, denied=True)
                said = f" The user said: {decision.message}" if decision.message else _WAIT
                return ToolResult.error(_REJECTED + said, denied=True)
            lifted = verdict.protected  # (the person said yes to a question that named the protected write)
            if decision.updated_input is not None:  # (the person's answer, for a tool that asks one; a hook's input)
                changed = self._recheck(tool, call, decision.updated_input)
                if isinstance(changed, ToolResult):
                    return changed
                lifted = lifted and changed[2].path == verdict.path  # (the yes was about that path, no other)
                call, args, verdict = changed

        raw = tool.permission_path(args)
        path = verdict.path or (self._cwd / Path(raw).expanduser() if raw else None)
        member = self.member if path is not None and tool.kind == "write" else None  # (another agent may be on it)
        if member is not None and path is not None and (held := await member.claim(_real(path))) is not None:
            return ToolResult.error(held)
        if path is not None and tool.kind == "write" and self.before_write is not None:
            self.before_write(call.id, _real(path))  # (as the permission check resolves a path)
        command = getattr(args, "command", None)  # (the validated arguments, as the tool will run them)
        if tool.kind == "execute" and self.before_shell is not None and isinstance(command, str):
            await self.before_shell(call.id, command)
        ctx = ToolContext(
            cwd=self._cwd,
            session_id=self._session_id,
            tool_call_id=call.id,
            progress=self._progress(call.id),
            checked_path=verdict.path,
            protection_lifted=lifted,
            chosen_changes=self._chosen.pop(call.id, None),  # (an approved plan's queued changes the person picked)
            before_change=self._backup(call.id),
        )
        started, place = time.monotonic(), self.hooks.where() if self.hooks else None
        result = await self._run_or_recall(tool, args, ctx, _real(path) if path is not None else None)
        if self.hooks:
            result = await self._post_hooks(call, result, round((time.monotonic() - started) * 1000))
        if self.hooks and place is not None and (moved := self.hooks.where()) != place:  # (a `cd` in Bash)
            await self.hooks.cwd_changed(self._session_id, place, moved)
        if self.memory is not None and not result.is_error and path is not None:
            result = self._with_nested_memory(result, path)
        return result

    async def _pre_hooks(
        self, tool: Tool[Any], call: ToolUseBlock, args: Any, verdict: Verdict
    ) -> ToolResult | tuple[ToolUseBlock, Any, Verdict]:
        """PreToolUse: the call as its hooks leave it (their `updatedInput`, checked again), and the verdict their
        decision makes of it; or the result of a call they refuse or that a deny rule refuses."""
        assert self.hooks is not None
        outcome = await self.hooks.pre_tool_use(self._session_id, call.name, call.input, call.id)
        if outcome.stop is not None:  # (`continue: false`: nothing more runs, and the model is not called again)
            self.halted = outcome.stop
            return ToolResult.error(f"Not run: a hook stopped the run ({outcome.stop}).")
        if outcome.updated_input is not None:
            call = call.model_copy(update={"input": outcome.updated_input})
            try:
                args = tool.Args.model_validate(call.input)
            except ValidationError as exc:
                return ToolResult.error(f"{call.name} was not run: a PreToolUse hook gave {_describe(exc)}.")
            verdict = self.gate.check(tool, args, call)  # (what runs is what is checked)
        if verdict.behavior == "deny":
            return _refused(call, verdict)
        if outcome.decision in ("deny", "block"):  # (its reason is what the model reads, as in Claude Code)
            return ToolResult.error(outcome.reason or f"A PreToolUse hook blocked {call.name}.", denied=True)
        if outcome.decision == "allow" and verdict.behavior == "ask" and not verdict.hard:
            verdict = replace(verdict, behavior="allow", reason="a PreToolUse hook allowed it")
        elif outcome.decision == "ask" and verdict.behavior == "allow":
            verdict = replace(verdict, behavior="ask", reason=f"a PreToolUse hook asks: {outcome.reason or 'confirm'}")
        return call, args, verdict

    async def _hook_answers(self, tool: Tool[Any], call: ToolUseBlock, verdict: Verdict) -> PermissionDecision | None:
        """PermissionRequest hooks, as the person is about to be asked: their answer, or None to ask (a question
        only the person may answer, about a protected file or a command not understood, is always asked). An allow's
        `updatedInput` is checked again before it runs (`_recheck`): a deny rule still refuses it."""
        assert self.hooks is not None
        outcome = await self.hooks.permission_request(
            self._session_id, call.name, call.input, list(verdict.suggestions)
        )
        if outcome.decision in ("deny", "block"):  # (exit 2 denies too, as in Claude Code)
            return PermissionDecision(behavior="deny", message=outcome.reason, verbatim=bool(outcome.reason))
        if outcome.decision != "allow" or verdict.hard:
            return None
        changed = outcome.updated_input
        if changed is not None and changed != call.input:
            try:
                again = self.gate.check(
                    tool, tool.Args.model_validate(changed), call.model_copy(update={"input": changed})
                )
            except ValidationError:
                again = None  # (`_recheck` says what is wrong with it)
            if again is not None and again.behavior == "ask" and again.hard:  # (nor for the input the hook gave)
                return None
        return PermissionDecision(behavior="allow", updated_input=changed)

    def _recheck(
        self, tool: Tool[Any], call: ToolUseBlock, updated: dict[str, Any]
    ) -> ToolResult | tuple[ToolUseBlock, Any, Verdict]:
        """The call with the input an answer gave, checked again (what runs is what is checked): a deny rule still
        refuses it, and the tool acts on the path its own check resolved; or why it is not run."""
        call = call.model_copy(update={"input": updated})
        try:
            args = tool.Args.model_validate(updated)
        except ValidationError as exc:
            return ToolResult.error(f"{call.name} was not run: the answer had {_describe(exc)}.")
        again = self.gate.check(tool, args, call)
        if again.behavior == "deny":
            return _refused(call, again)
        return call, args, replace(again, behavior="allow")

    async def _post_hooks(self, call: ToolUseBlock, result: ToolResult, took: int) -> ToolResult:
        """PostToolUse (or PostToolUseFailure, for a call that failed) with the tool's time; what the hooks say
        joins the result."""
        assert self.hooks is not None
        text = result.content if isinstance(result.content, str) else ""
        error = (text or "the tool failed") if result.is_error else None
        outcome = await self.hooks.post_tool_use(
            self._session_id, (call.name, call.input, call.id), result.details or text, took, error=error
        )
        if outcome.stop is not None:
            self.halted = outcome.stop
        if outcome.decision == "block" and isinstance(result.content, str):
            result = replace(result, content="\n\n".join([result.content, f"PostToolUse hook: {outcome.reason}"]))
        for said in outcome.context:  # (beside the results, as Claude Code gives a hook's context)
            hook = f"PostToolUse:{call.name} hook additional context: {said}"
            self.notes.append(f"<system-reminder>\n{hook}\n</system-reminder>")
        return result

    async def _run_or_recall(self, tool: Tool[Any], args: Any, ctx: ToolContext, path: Path | None) -> ToolResult:
        """Run the tool, unless the model holds its result already (a repeated read-only call); and forget what a
        call that may have changed files makes stale."""
        arguments = args.model_dump()
        if self.cache is not None and tool.kind == "read":
            cached = self.cache.answer(tool.name, arguments, path)
            if cached is not None:
                return replace(cached, cached=True)
        try:
            result = await tool.run(args, ctx)
        except Exception as exc:  # a tool's bug must not end the run; the model sees what happened
            log.exception("tool %s failed", tool.name)
            result = ToolResult.error(_failure(tool.name, exc))
        if self.cache is not None:
            command = arguments.get("command")
            if tool.kind == "read":
                self.cache.remember(tool.name, arguments, path, result)
            elif not (
                tool.kind == "execute"
                and isinstance(command, str)
                and not arguments.get("run_in_background")
                and only_reads(command)
            ):
                self.cache.wrote()
        return result

    def _with_nested_memory(self, result: ToolResult, path: Path) -> ToolResult:
        """The first time a tool reaches into a subdirectory, its CLAUDE.md files join the result, as in Claude Code."""
        assert self.memory is not None
        found = self.memory.touch(path)
        if not found:
            return result
        self._reached.append((path, found))
        return _with_note(result, f"<system-reminder>\n{render_memory(found)}\n</system-reminder>")

    def _refuse_the_rest(self, decision: PermissionDecision) -> None:
        """A plain No ends the turn: the questions of the calls running beside this one get the same answer (a
        batch of reads asks together), and the calls after it are not run."""
        self.refused = True
        for future in self._asks.values():
            if not future.done():
                future.set_result(decision)

    async def _ask(self, tool: Tool[Any], call: ToolUseBlock, verdict: Verdict) -> PermissionDecision:
        if self.hooks and (said := await self._hook_answers(tool, call, verdict)) is not None:
            return said
        request_id = uuid.uuid4().hex
        future: asyncio.Future[PermissionDecision] = asyncio.get_running_loop().create_future()
        # Registered before the request goes out, so a front end may answer from inside its event callback.
        self._asks[request_id] = future
        shown = tool.queued_changes()
        try:
            self._emit(
                PermissionRequest(
                    session_id=self._session_id,
                    request_id=request_id,
                    tool_call_id=call.id,
                    tool_name=tool.name,
                    input=call.input,
                    reason=verdict.reason,
                    suggestions=list(verdict.suggestions),
                    changes=shown,
                )
            )
            decision = await answer_or_default(future, tool, call)
        finally:
            del self._asks[request_id]
        if decision.behavior == "allow" and decision.changes:  # (each as it was shown: a later change is not)
            digests = {change.file_path: change.digest for change in shown}
            self._chosen[call.id] = {path: digests[path] for path in decision.changes if path in digests}
        self._emit(
            PermissionResolved(
                session_id=self._session_id, request_id=request_id, tool_call_id=call.id, decision=decision
            )
        )
        return decision

    def _backup(self, tool_call_id: str) -> Callable[[Path], None]:
        def backup(path: Path) -> None:
            if self.before_write is not None:
                self.before_write(tool_call_id, path)

        return backup

    def _progress(self, tool_call_id: str) -> Callable[[str], None]:
        def progress(text: str) -> None:
            self._emit(ToolProgress(session_id=self._session_id, tool_call_id=tool_call_id, text=text))

        return progress


def _visible(result: ToolResult) -> ToolResult:
    """The result with file names that are not UTF-8 written as `\\xNN`: shown, sent and stored as valid text."""
    content = result.content
    if isinstance(content, str):
        content = visible(content)
    else:
        content = [b.model_copy(update={"text": visible(b.text)}) if isinstance(b, TextBlock) else b for b in content]
    return replace(result, content=content, details=scrub(result.details) if result.details else result.details)


def _said(block: ToolResultBlock) -> Any:
    """A result as the model reads it, as JSON: its text, or its blocks."""
    content = block.content
    return (
        content if isinstance(content, str) else [part.model_dump(mode="json", exclude_none=True) for part in content]
    )


def _text(result: ToolResult) -> str:
    """A result's text (its text blocks', joined)."""
    content = result.content
    return content if isinstance(content, str) else "\n".join(b.text for b in content if isinstance(b, TextBlock))


def _failure(name: str, exc: Exception) -> str:
    """One sentence for an exception a tool call raised (its first line: a traceback's worth of text helps nobody)."""
    said = (str(exc).strip().splitlines() or [""])[0][:300]
    return f"{name} failed: {type(exc).__name__}" + (f": {said}" if said else "") + "."


def _real(path: Path) -> Path:
    """Where `path` leads; a link loop leaves it as named (`Path.resolve` raises RuntimeError there)."""
    return Path(os.path.realpath(path))


def _refused(call: ToolUseBlock, verdict: Verdict) -> ToolResult:
    """A call the permission rules refuse, and why."""
    return ToolResult.error(f"Permission to use {call.name} was denied: {verdict.reason}.", denied=True)


def _describe(error: ValidationError) -> str:
    """Pydantic's errors as one line the model can act on: `file_path: Field required; limit: ...`."""
    problems = []
    for item in error.errors()[:5]:
        where = ".".join(str(part) for part in item["loc"]) or "arguments"
        problems.append(f"{where}: {item['msg']}")
    return "invalid arguments (" + "; ".join(problems) + ")"


def _with_note(result: ToolResult, note: str) -> ToolResult:
    """`note` for the model after the result's own content."""
    if isinstance(result.content, str):
        return replace(result, content=f"{result.content}\n\n{note}")
    return replace(result, content=[*result.content, TextBlock(text=note)])
