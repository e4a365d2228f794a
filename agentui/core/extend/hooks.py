"""Claude Code hooks: commands from the settings files run at PreToolUse, PostToolUse (PostToolUseFailure for a call
that failed), PostToolBatch (once a response's calls have all ended), UserPromptExpansion (a custom command's prompt),
UserPromptSubmit, Stop, StopFailure (a run the API's error ended), SessionStart, SessionEnd, PreCompact, PostCompact,
SubagentStart, SubagentStop, PermissionRequest (which may answer for the person), Notification, InstructionsLoaded (each
memory file as it is read), CwdChanged (the shell's directory moved), TaskCreated and TaskCompleted, with the event as
JSON on stdin, the fields Claude Code 2.1.197 gives each in its order.

Exit 0 succeeds (stdout may be JSON: `decision`, `reason`, `continue`, `systemMessage`, `hookSpecificOutput` with
`permissionDecision` or `additionalContext`; plain stdout of UserPromptSubmit and SessionStart becomes context for
the model). Exit 2 blocks, and stderr says why. Any other exit, or a timeout (60 s unless the hook says), is shown
as a warning and the run goes on. Several matching hooks run at once; a deny or block from any of them wins.

A "prompt" or "agent" hook is a model's answer instead of a command's (`model_hooks`): ok is exit 0, not ok is exit 2
with its reason. PermissionRequest's `updatedInput` with an allow is what runs, checked by the rules again first (the
dispatcher's `_recheck`). `suppressOutput` changes nothing here: a hook's JSON output is never shown as text.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agentui.core.claude_settings import SettingsSource
from agentui.core.errors import AgentuiError
from agentui.core.extend.model_hooks import AGENT_TIMEOUT, KINDS, PROMPT_TIMEOUT, HookModels, run_model_hook
from agentui.core.process_groups import start_group
from agentui.core.safety.confined import Confined
from agentui.core.sdk_permission import rule_value

if TYPE_CHECKING:
    from agentui.core.context.memory import MemoryFile, MemoryLoader
    from agentui.core.safety.guard import Guard
    from agentui.core.settings import InputFilter

DEFAULT_TIMEOUT = 60.0
EVENTS = (
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop", "SessionStart", "SessionEnd",
    "PreCompact", "PostCompact", "SubagentStart", "SubagentStop", "PermissionRequest", "Notification",
    "PostToolBatch", "StopFailure", "UserPromptExpansion", "InstructionsLoaded", "CwdChanged", "TaskCreated",
    "TaskCompleted", "Elicitation", "ElicitationResult",
)  # fmt: skip
_NO_PROMPT_ID = frozenset({"SessionStart"})
_NO_MODE = frozenset({"SessionStart", "SessionEnd", "StopFailure", "InstructionsLoaded", "CwdChanged", "TaskCreated",
                      "TaskCompleted", "Elicitation", "ElicitationResult"})  # fmt: skip
"""Claude Code's inputs for these events leave out the prompt's id, or the permission mode."""
MAX_OUTPUT = 100_000

Decision = Literal["allow", "deny", "ask", "block"]
_RANK = {"allow": 1, "ask": 2, "deny": 3, "block": 3}


HookCallback = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
"""A hook run in the front end's process (an Agent SDK program's): it takes the hook's input and returns its output,
as a command hook's JSON on stdout."""


@dataclass(frozen=True)
class HookSpec:
    event: str
    matcher: str
    command: str
    timeout: float
    source: str
    callback: HookCallback | None = field(default=None, compare=False)
    """Instead of `command`: a callback in the front end (`command` then only names it)."""
    kind: str = "command"
    """"command", or "prompt" or "agent" (`model_hooks`): a model answers, `command` then being the prompt."""
    model: str | None = None
    """The model a prompt or agent hook asks (else the small fast model)."""
    env: tuple[tuple[str, str], ...] = ()
    """Variables its command gets besides the others' (a plugin's CLAUDE_PLUGIN_ROOT)."""

    def matches(self, target: str | None) -> bool:
        if target is None or self.matcher in ("", "*"):
            return True
        try:
            return re.fullmatch(self.matcher, target) is not None
        except re.error:
            return self.matcher == target


@dataclass
class HookOutcome:
    decision: Decision | None = None
    reason: str | None = None
    context: list[str] = field(default_factory=list)
    updated_input: dict[str, Any] | None = None
    """PreToolUse's `updatedInput`: the arguments the call runs with instead (checked again before it runs)."""
    stop: str | None = None
    """`continue: false`: the run ends after this step, and `stopReason` says why (to the person, not the model)."""
    blocked_by: list[str] = field(default_factory=list)
    """Each blocking hook's reason after the hook (`[command]: reason`), as Claude Code tells them to the model."""
    answer: tuple[str, dict[str, Any] | None] | None = None
    """An Elicitation or ElicitationResult hook's answer for the MCP server: its `action` and `content`."""

    def absorb(self, decision: Decision | None, reason: str | None) -> None:
        if decision is None:
            return
        if self.decision is None or _RANK[decision] > _RANK[self.decision]:
            self.decision, self.reason = decision, reason
        elif _RANK[decision] == _RANK[self.decision] and reason and reason != self.reason:
            self.reason = f"{self.reason}; {reason}" if self.reason else reason


def specs_from(sources: Iterable[SettingsSource], *, trusted: bool) -> list[HookSpec]:
    """The hooks of every settings file; a project's own only when the project is trusted."""
    specs = []
    for source in sources:
        if source.from_project and not trusted:
            continue
        for event, matchers in source.settings.hooks.items():
            if event not in EVENTS:
                continue
            for matcher in matchers:
                for hook in matcher.hooks:
                    if hook.type == "command" and hook.command.strip():
                        specs.append(
                            HookSpec(event, matcher.matcher, hook.command, hook.timeout or DEFAULT_TIMEOUT, source.name)
                        )
                    elif hook.type in KINDS and hook.prompt.strip():
                        timeout = hook.timeout or (AGENT_TIMEOUT if hook.type == "agent" else PROMPT_TIMEOUT)
                        specs.append(HookSpec(event, matcher.matcher, hook.prompt, timeout, source.name,
                                              kind=hook.type, model=hook.model))  # fmt: skip
    return specs


class PromptBlocked(AgentuiError):
    """A UserPromptSubmit hook refused the prompt; the message is its reason."""

    def said(self) -> tuple[str, str]:
        """What ended the run (one sentence) and its kind."""
        return f"A UserPromptSubmit hook blocked the prompt: {self}", "hook_blocked"


class Hooks:
    def __init__(
        self,
        specs: list[HookSpec],
        *,
        cwd: Path,
        env: Mapping[str, str] | None = None,
        notify: Callable[[str], None] = lambda message: None,
        permission_mode: Callable[[], str] = lambda: "default",
        transcript_path: Callable[[], str] = lambda: "",
        guard: Guard | None = None,
    ) -> None:
        self.specs = specs
        self._guard = guard
        """What holds each hook's command, as it holds the Bash tool's outside the sandbox: a hook runs what the
        person configured, but on what the model wrote (a formatter loading the project's config, say), so it may
        not write the keys to the house either (`agentui.core.safety.guard`)."""
        self.cwd = cwd
        self.notify = notify
        self._env = {**(os.environ if env is None else env), "CLAUDE_PROJECT_DIR": str(cwd), "AGENTUI": "1"}
        self._mode = permission_mode
        self.transcript_path = transcript_path
        self.prompt_id: str | None = None
        """The id of the prompt being answered (Claude Code's promptId), sent with every hook's input."""
        self.last_answer: Callable[[], str] = str
        """The text of the last assistant message, for Stop (the assembly gives it)."""
        self.background_tasks: Callable[[], list[dict[str, Any]]] = list
        """What runs in the background now, as Claude Code's Stop input lists it (the assembly gives it)."""
        self.observer: Callable[[str, dict[str, Any]], None] | None = None
        """Told of each hook as it starts ("hook_started") and ends ("hook_response"), for front ends that show them."""
        self.models: HookModels | None = None
        """The model calls of prompt and agent hooks (the assembly gives them; without them such a hook warns)."""
        self.where: Callable[[], Path] = lambda: cwd
        """The shell's directory now (the project gives it): each input's `cwd`, as Claude Code's follows a `cd`."""
        self.memory: MemoryLoader | None = None
        """The memory files read, for InstructionsLoaded (the agent gives them)."""
        self._told: set[Path] = set()
        self.input_filters: tuple[InputFilter, ...] = ()
        """The settings' input filters, run on each prompt the person sends (`extend.input_filters`)."""
        self.expansion: tuple[str, str, str] | None = None
        """The custom command the next prompt was expanded from (its name, arguments and Claude Code's source)."""

    def __bool__(self) -> bool:
        return bool(self.specs)

    # Events

    async def pre_tool_use(
        self, session_id: str, tool_name: str, tool_input: dict[str, Any], tool_use_id: str
    ) -> HookOutcome:
        payload = {"tool_name": tool_name, "tool_input": tool_input, "tool_use_id": tool_use_id}
        return await self._event("PreToolUse", session_id, payload, target=tool_name)

    async def post_tool_use(
        self,
        session_id: str,
        call: tuple[str, dict[str, Any], str],
        tool_response: Any,
        duration_ms: int,
        *,
        error: str | None = None,
    ) -> HookOutcome:
        """PostToolUse after a call (its tool's name, input and id) that succeeded; PostToolUseFailure, with the
        `error`, after one that failed. `duration_ms` is the tool's own time (not asking, not hooks)."""
        tool_name, tool_input, tool_use_id = call
        head = {"tool_name": tool_name, "tool_input": tool_input}
        if error is not None:
            failed = {**head, "tool_use_id": tool_use_id, "error": error, "is_interrupt": False}
            return await self._event("PostToolUseFailure", session_id, {**failed, "duration_ms": duration_ms},
                                     target=tool_name)  # fmt: skip
        payload = {**head, "tool_response": tool_response, "tool_use_id": tool_use_id, "duration_ms": duration_ms}
        return await self._event("PostToolUse", session_id, payload, target=tool_name)

    async def before_prompt(self, session_id: str, prompt: str, *, start: str | None = None) -> list[str]:
        """SessionStart (before the first prompt of this process, `start` saying "startup" or "resume") and
        UserPromptSubmit: the context they add for the model. Raises PromptBlocked when a hook refuses the prompt."""
        context = (await self.session_start(session_id, start)).context if start else []
        if start:
            await self.instructions_loaded(session_id, "session_start")
        if self.expansion is not None:
            expansion, self.expansion = self.expansion, None
            expanded = await self.user_prompt_expansion(session_id, *expansion)
            if expanded.decision == "block":
                raise PromptBlocked(expanded.reason or "no reason given")
            context += expanded.context
            prompt = _typed(*expansion[:2])  # (UserPromptSubmit reads the command as typed, as Claude Code's does)
        outcome = await self.user_prompt_submit(session_id, prompt)
        if outcome.decision == "block":
            raise PromptBlocked(outcome.reason or "no reason given")
        return [*context, *outcome.context]

    async def user_prompt_submit(self, session_id: str, prompt: str) -> HookOutcome:
        return await self._event("UserPromptSubmit", session_id, {"prompt": prompt})

    async def stop(self, session_id: str, stop_hook_active: bool) -> HookOutcome:
        payload = {"stop_hook_active": stop_hook_active, "last_assistant_message": self.last_answer()}
        payload |= {"background_tasks": self.background_tasks(), "session_crons": []}  # (agentui schedules none)
        return await self._event("Stop", session_id, payload)

    async def session_end(self, session_id: str, reason: str = "other") -> HookOutcome:
        """SessionEnd, as the conversation closes (`reason` as Claude Code's: "clear", "resume", "other"...)."""
        return await self._event("SessionEnd", session_id, {"reason": reason})

    async def session_start(self, session_id: str, source: str = "startup") -> HookOutcome:
        """SessionStart: an SDK program's callbacks are not among the hooks of a start or a resume (Claude Code's
        session has started before the program's `initialize` registers them), only of a compaction."""
        return await self._event("SessionStart", session_id, {"source": source}, target=source)

    async def post_compact(self, session_id: str, trigger: str, summary: str) -> HookOutcome:
        return await self._event("PostCompact", session_id, {"trigger": trigger, "compact_summary": summary},
                                 target=trigger)  # fmt: skip

    async def subagent_start(self, session_id: str, agent_id: str, agent_type: str) -> HookOutcome:
        payload = {"agent_id": agent_id, "agent_type": agent_type}
        return await self._event("SubagentStart", session_id, payload, target=agent_type)

    async def subagent_stop(self, session_id: str, agent: tuple[str, str, str], last_message: str) -> HookOutcome:
        """SubagentStop, for the sub-agent (its id, type and transcript's path) as it ends."""
        agent_id, agent_type, transcript = agent
        payload = {"stop_hook_active": False, "agent_id": agent_id, "agent_transcript_path": transcript,
                   "agent_type": agent_type, "last_assistant_message": last_message}  # fmt: skip
        return await self._event("SubagentStop", session_id, payload, target=agent_type)

    async def permission_request(
        self, session_id: str, tool_name: str, tool_input: dict[str, Any], suggestions: list[str]
    ) -> HookOutcome:
        """PermissionRequest, as the person is about to be asked: a hook's `decision` answers for them."""
        await self._event("Notification", session_id, {"message": f"agentui needs your permission to use {tool_name}",
                                                      "notification_type": "permission_prompt"},
                          target="permission_prompt")  # fmt: skip
        rules = [{"type": "addRules", "rules": [rule_value(text) for text in suggestions], "behavior": "allow",
                  "destination": "session"}] if suggestions else []  # fmt: skip
        payload = {"tool_name": tool_name, "tool_input": tool_input, "permission_suggestions": rules}
        return await self._event("PermissionRequest", session_id, payload, target=tool_name)

    async def pre_compact(self, session_id: str, trigger: str, custom_instructions: str | None) -> HookOutcome:
        payload = {"trigger": trigger, "custom_instructions": custom_instructions or None}
        return await self._event("PreCompact", session_id, payload, target=trigger)

    # Claude Code 2.1's newer events: inputs that take work to build are built only when a hook listens

    def listens(self, event: str) -> bool:
        return any(spec.event == event for spec in self.specs)

    async def post_tool_batch(self, session_id: str, calls: list[tuple[str, dict[str, Any], str, Any]]) -> HookOutcome:
        """PostToolBatch, once every call of a response has ended, before the next model call: each call's name,
        input, id and the result the model reads."""
        keys = ("tool_name", "tool_input", "tool_use_id", "tool_response")
        tool_calls = [dict(zip(keys, call, strict=True)) for call in calls]
        return await self._event("PostToolBatch", session_id, {"tool_calls": tool_calls})

    async def stop_failure(self, session_id: str, error: str, message: str, details: str | None = None) -> None:
        """StopFailure, as a run ends on the API's error (`error` is Claude Code's name for its kind); what the
        hooks say changes nothing."""
        payload = {"error": error, **({"error_details": details} if details else {}), "last_assistant_message": message}
        await self._event("StopFailure", session_id, payload, target=error)

    async def user_prompt_expansion(self, session_id: str, name: str, arguments: str, source: str) -> HookOutcome:
        """UserPromptExpansion, before a custom command's prompt replaces what was typed; a block refuses it."""
        typed = _typed(name, arguments)
        payload = {"expansion_type": "slash_command", "command_name": name, "command_args": arguments,
                   "command_source": source, "prompt": typed}  # fmt: skip
        return await self._event("UserPromptExpansion", session_id, payload)

    async def instructions_loaded(
        self, session_id: str, reason: str, trigger: Path | None = None, found: list[MemoryFile] | None = None
    ) -> None:
        """InstructionsLoaded for each memory file not told yet: all read so far ("session_start"), or those a tool's
        `trigger` path `found` ("nested_traversal"); an imported file's reason is "include"."""
        every = [] if self.memory is None else self.memory.files
        files = [memory for memory in (every if found is None else found) if memory.path not in self._told]
        self._told.update(memory.path for memory in files)
        if files and self.listens("InstructionsLoaded"):
            held, self.prompt_id = self.prompt_id, None if reason == "session_start" else self.prompt_id
            try:  # (Claude Code reads the start's memory before there is a prompt: their inputs have no id)
                for memory in files:
                    await self._instructions(session_id, reason, trigger, memory, every)
            finally:
                self.prompt_id = held

    async def _instructions(
        self, session_id: str, reason: str, trigger: Path | None, memory: MemoryFile, every: list[MemoryFile]
    ) -> None:
        why = "include" if memory.imported_by is not None else "path_glob_match" if memory.globs else reason
        payload: dict[str, object] = {
            "file_path": str(memory.path),
            "memory_type": _memory_type(memory, every),
            "load_reason": why,
        }
        if memory.globs:
            payload["globs"] = list(memory.globs)
        if trigger is not None and memory.imported_by is None:
            payload["trigger_file_path"] = str(trigger)
        if memory.imported_by is not None:
            payload["parent_file_path"] = str(memory.imported_by)
        await self._event("InstructionsLoaded", session_id, payload, target=why)

    async def elicitation(self, session_id: str, server: str, request: dict[str, Any]) -> HookOutcome:
        """Elicitation, before an MCP server's request for input is put to the person (`request`: its message, mode,
        url, id and schema): a hook may answer it (`answer`); one that blocks declines it."""
        return await self._event("Elicitation", session_id, {"mcp_server_name": server, **request}, target=server)

    async def elicitation_result(self, session_id: str, server: str, result: dict[str, Any]) -> HookOutcome:
        """ElicitationResult, before the answer (`result`: the request's id and mode, the action and content) goes
        back to the server: a hook may change it (`answer`); one that blocks declines it."""
        payload = {"mcp_server_name": server, **result}
        return await self._event("ElicitationResult", session_id, payload, target=server)

    async def cwd_changed(self, session_id: str, old: Path, new: Path) -> None:
        await self._event("CwdChanged", session_id, {"old_cwd": str(old), "new_cwd": str(new)})

    async def task_event(self, session_id: str, event: str, task: tuple[str, str, str]) -> str | None:
        """TaskCreated or TaskCompleted for the task (its id, subject and description): what a hook that refuses it
        says, as Claude Code words it for the model, or None."""
        task_id, subject, description = task
        payload = {"task_id": task_id, "task_subject": subject, "task_description": description}
        outcome = await self._event(event, session_id, payload)
        return f"{event} hook feedback:\n{outcome.reason}" if outcome.decision == "block" else None

    # Running

    async def _event(
        self, event: str, session_id: str, payload: dict[str, Any], *, target: str | None = None
    ) -> HookOutcome:
        outcome = HookOutcome()
        specs = [spec for spec in self.specs if spec.event == event and spec.matches(target)]
        if event == "SessionStart" and target in ("startup", "resume"):
            specs = [spec for spec in specs if spec.source != "sdk"]
        if not specs:
            return outcome
        body: dict[str, Any] = {
            "session_id": session_id,
            "transcript_path": self.transcript_path(),
            "cwd": str(self.where()),
        }
        if self.prompt_id and event not in _NO_PROMPT_ID:
            body["prompt_id"] = self.prompt_id
        if event not in _NO_MODE:
            body["permission_mode"] = self._mode()
        body = {**body, "hook_event_name": event, **payload}  # (in Claude Code's order)
        data = json.dumps(body, ensure_ascii=False, default=str).encode()
        ids = [uuid.uuid4().hex for _ in specs]
        for hook_id, spec in zip(ids, specs, strict=True):
            self._observe("hook_started", hook_id, spec)
        results = await asyncio.gather(*(self._run(spec, data) for spec in specs), return_exceptions=True)
        for hook_id, spec, result in zip(ids, specs, results, strict=True):
            if isinstance(result, BaseException):
                ended = "cancelled" if isinstance(result, asyncio.CancelledError) else "error"
                self._observe("hook_response", hook_id, spec, outcome=ended, stderr=str(result))
                continue
            code, out, err = result
            ended = "success" if code == 0 else "error"
            self._observe(
                "hook_response", hook_id, spec, outcome=ended, output=out, stdout=out, stderr=err, exit_code=code
            )
        for spec, result in zip(specs, results, strict=True):
            if isinstance(result, asyncio.CancelledError):
                raise result
            if isinstance(result, BaseException):  # a hook must never take the run down
                self.notify(f"The {event} hook `{_short(spec.command)}` could not run ({result}); continuing.")
                continue
            self._interpret(spec, *result, outcome)
        return outcome

    def _observe(self, kind: str, hook_id: str, spec: HookSpec, **fields: Any) -> None:
        if self.observer is not None and spec.kind == "command":  # (Claude Code tells of no prompt or agent hook)
            name = f"{spec.event}:{spec.matcher}" if spec.matcher else spec.event
            self.observer(kind, {"hook_id": hook_id, "hook_name": name, "hook_event": spec.event, **fields})

    async def run_command(self, spec: HookSpec, data: bytes) -> tuple[int | None, str, str]:
        """Run `spec`'s command as a hook's is run (confined, stopped at its timeout) with `data` on stdin: (exit code
        or None on timeout, stdout, stderr). For commands configured like hooks (input filters)."""
        return await self._run(spec, data)

    async def _run(self, spec: HookSpec, data: bytes) -> tuple[int | None, str, str]:
        """(exit code or None on timeout, stdout, stderr)."""
        if spec.kind != "command":
            return await run_model_hook(spec, data, self.models, self.transcript_path())
        if spec.callback is not None:
            try:
                output = await asyncio.wait_for(spec.callback(json.loads(data)), spec.timeout)
            except TimeoutError:
                return None, "", ""
            return 0, json.dumps(output, default=str), ""
        try:
            confined = self._confined(spec.command, dict(spec.env))
        except OSError as exc:
            return 127, "", f"agentui could not confine the hook: {exc}"
        try:
            process = await start_group(
                *confined.argv,
                env=confined.env,
                cwd=self.cwd,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
        except OSError as exc:
            confined.ended()
            return 127, "", str(exc)
        try:
            return await self._finish(process, data, spec.timeout)
        finally:
            confined.ended()

    @property
    def guard(self) -> Guard | None:
        """What holds the hooks' commands, for the other programs agentui starts for the person (language servers)."""
        return self._guard

    def _confined(self, command: str, extra: Mapping[str, str]) -> Confined:
        """The hook's command under the guard, where bubblewrap can run here (else as it is: no one is asked before a
        hook runs)."""
        argv, env = ["bash", "-c", command], {**self._env, **extra}
        if self._guard is None or not self._guard.available:
            return Confined(argv, env)
        return self._guard.wrap(argv, cwd=self.cwd, scratch=self._guard.workspace.scratch, env=env)

    async def _finish(
        self, process: asyncio.subprocess.Process, data: bytes, limit: float
    ) -> tuple[int | None, str, str]:
        try:
            stdout, stderr = await asyncio.wait_for(process.communicate(data), limit)
        except (TimeoutError, asyncio.CancelledError) as exc:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            await process.wait()
            if isinstance(exc, asyncio.CancelledError):
                raise
            return None, "", ""
        return (
            process.returncode,
            stdout[:MAX_OUTPUT].decode(errors="replace"),
            stderr[:MAX_OUTPUT].decode(errors="replace"),
        )

    def _interpret(self, spec: HookSpec, code: int | None, stdout: str, stderr: str, outcome: HookOutcome) -> None:
        name = f"The {spec.event} hook `{_short(spec.command)}`"
        if code is None:
            self.notify(f"{name} timed out after {spec.timeout:g} s and was stopped; continuing.")
            return
        if code == 2:
            reason = stderr.strip() or "no reason given"
            if spec.event == "SessionStart":
                self.notify(f"{name}: {reason}")
            else:
                outcome.absorb("block", reason)
                outcome.blocked_by.append(_labelled(spec, stderr if stderr.strip() else reason))  # (as written)
            return
        if code != 0:
            detail = stderr.strip().splitlines()[0] if stderr.strip() else "no message"
            if spec.kind != "command":
                self.notify(f"{name} could not be answered: {detail}; continuing.")
                return
            self.notify(f"{name} failed with exit code {code} ({detail}); continuing.")
            return
        text = stdout.strip()
        output: dict[str, Any] | None = None
        if text.startswith("{"):
            try:
                parsed = json.loads(text)
                output = parsed if isinstance(parsed, dict) else None
            except ValueError:
                output = None
        if output is None:
            if text and spec.event in ("UserPromptSubmit", "SessionStart"):
                outcome.context.append(text)
            return
        self._json(spec, name, output, outcome)

    def _json(self, spec: HookSpec, name: str, output: dict[str, Any], outcome: HookOutcome) -> None:
        if isinstance(output.get("systemMessage"), str):
            self.notify(f"{name}: {output['systemMessage']}")
        stopped = output.get("continue") is False
        if stopped and spec.event in ("PreToolUse", "PostToolUse"):
            outcome.stop = str(output.get("stopReason") or "a hook stopped the run")
        elif stopped:
            outcome.absorb("block", str(output.get("stopReason") or "the hook stopped the run"))
        specific = output.get("hookSpecificOutput")
        if not isinstance(specific, dict):
            specific = {}
        if spec.event == "PreToolUse" and isinstance(specific.get("updatedInput"), dict):
            outcome.updated_input = specific["updatedInput"]
        answer = specific.get("decision")
        if (
            spec.event == "PermissionRequest"
            and isinstance(answer, dict)
            and answer.get("behavior") in ("allow", "deny")
        ):
            outcome.absorb(answer["behavior"], str(answer.get("message") or "") or None)
            if isinstance(answer.get("updatedInput"), dict):
                outcome.updated_input = answer["updatedInput"]
        decision = specific.get("permissionDecision")
        if spec.event == "PreToolUse" and decision in ("allow", "deny", "ask"):
            outcome.absorb(decision, specific.get("permissionDecisionReason"))
        legacy = output.get("decision")
        if legacy == "block":
            outcome.absorb("block", str(output.get("reason") or "blocked by a hook"))
            outcome.blocked_by.append(_labelled(spec, str(output.get("reason") or "blocked by a hook")))
        elif legacy == "approve" and spec.event == "PreToolUse":
            outcome.absorb("allow", output.get("reason"))
        if isinstance(specific.get("additionalContext"), str):
            outcome.context.append(specific["additionalContext"])
        action = specific.get("action")
        if spec.event in ("Elicitation", "ElicitationResult") and action in ("accept", "decline", "cancel"):
            content = specific.get("content")
            outcome.answer = (action, content if isinstance(content, dict) else None)
            if action == "decline":
                outcome.absorb("block", str(output.get("reason") or "declined by a hook"))


def _typed(name: str, arguments: str) -> str:
    """A custom command as typed."""
    return f"/{name} {arguments}" if arguments else f"/{name}"


def _memory_type(memory: MemoryFile, files: list[MemoryFile]) -> str:
    """Claude Code's name for where a memory file comes from (an imported file's is its importer's)."""
    for _ in range(len(files)):  # (imports are a tree: at most this many steps up)
        importer = next((f for f in files if f.path == memory.imported_by), None) if memory.kind == "import" else None
        if importer is None:
            break
        memory = importer
    return {"user": "User", "local": "Local"}.get(memory.kind, "Project")


def _short(command: str) -> str:
    command = " ".join(command.split())
    return command if len(command) <= 60 else command[:57] + "..."


def _labelled(spec: HookSpec, reason: str) -> str:
    """A blocking hook's reason as Claude Code tells it: after the command as written (a prompt or agent hook's
    reason says its prompt already)."""
    return f"[{spec.command}]: {reason}" if spec.kind == "command" else reason


def stop_feedback(outcome: HookOutcome) -> str:
    """What the model is told when Stop hooks keep the run going, in Claude Code 2.1.197's words."""
    return "Stop hook feedback:\n" + "\n".join(outcome.blocked_by or [outcome.reason or "no reason given"])
