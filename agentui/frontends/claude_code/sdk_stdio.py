"""`--input-format stream-json`: the Agent SDKs' side of Claude Code's headless interface. User messages arrive as
JSON lines on stdin and each runs to a `result`; the control protocol goes both ways: the SDK's requests
(initialize with hook callbacks, interrupt, set_permission_mode, set_model, mcp_status) are answered with
`control_response`s, and agentui asks the SDK (`can_use_tool` with `--permission-prompt-tool stdio`, `hook_callback`
for hooks it registered). A malformed line or a closed stdin ends the process cleanly with one sentence; an unknown
request gets an error response. Output is Claude Code's stream-json (stream.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
import uuid
from collections.abc import AsyncIterator
from typing import IO, Any, Literal

from agentui.api import (
    HOOK_EVENTS,
    Branched,
    Conversation,
    RunResult,
    Settings,
    background_wait,
    can_use_tool_request,
    compact_command,
    image_from_bytes,
    rotate_if_idle,
    set_instructions,
    task_notices,
)
from agentui.api.events import Event, PermissionDecision, PermissionRequest
from agentui.api.messages import ImageBlock
from agentui.frontends.claude_code.stream import ClaudeStream

GONE = "The SDK program closed its input, so no one can answer."
NOTHING_TO_COMPACT = "There is nothing to compact yet."
CONTROL_TIMEOUT = 600.0
"""How long a question to the SDK (a permission, a hook) may wait for its answer."""
MODES = ("default", "acceptEdits", "plan", "bypassPermissions")


CONTINUATIONS: tuple[Literal["default", "rerun", "branch"], ...] = ("default", "rerun", "branch")
"""The kinds of agentui's `continue` control request."""


class InputError(Exception):
    """A line on stdin that is not a message of the protocol: the sentence says which and why."""


class SdkSession:
    def __init__(
        self,
        conversation: Conversation,
        settings: Settings,
        out: IO[str],
        err: IO[str],
        *,
        partial: bool = False,
        replay_user: bool = False,
        hook_events: bool = False,
        ask_over_stdio: bool = False,
    ) -> None:
        self.conversation = conversation
        self.settings = settings
        self.out, self.err = out, err
        self.ask_over_stdio = ask_over_stdio
        self.stream = ClaudeStream(
            conversation,
            self.send,
            partial=partial,
            replay_user=replay_user,
            hook_events=hook_events,
            refuses_asks=not ask_over_stdio,  # (no permission callback: a question is answered no at once)
        )
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._run: asyncio.Task[None] | None = None
        """Answering the messages in `_queue`, one run each."""
        self._queue: list[tuple[int, str, list[ImageBlock]]] = []
        self._steered: list[tuple[int, str, list[ImageBlock]]] = []
        """Messages joined to the run going on: back in the queue if it ends without reading them."""
        self._arrived = 0
        self._compacting = False
        self._started = False
        self._mcp_started = False
        self._initializing: asyncio.Task[Any] | None = None
        self._closed = False
        self._tasks: set[asyncio.Task[Any]] = set()
        from agentui.frontends.claude_code.controls import SessionTotals

        self._totals = SessionTotals(conversation, self.stream.model_usage)
        self.branches: list[Conversation] = []
        """The conversations a `continue` of kind "branch" went on in (the last is `conversation`): closed at the end
        with the first."""
        self.failed = False
        self.out_closed = False
        self.last_failed = False
        """The last result was an error: the process then ends with 1, as Claude Code's does."""
        conversation.on(self.stream)
        conversation.on(self._permission)

    # Writing

    def send(self, message: dict[str, Any]) -> None:
        if self.out_closed:
            return
        try:
            self.out.write(json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n")
            self.out.flush()
        except BrokenPipeError:  # (the program has gone: nothing waits for its answers any more)
            self.out_closed = True

    def note(self, sentence: str) -> None:
        self.err.write(f"agentui: {sentence}\n")
        self.err.flush()

    # Reading

    async def serve(self, lines: AsyncIterator[str]) -> int:
        number = 0
        watching = self._spawn(self._told_when_idle())
        try:
            async for line in lines:
                number += 1
                if not line.strip():
                    continue
                try:
                    message = json.loads(line)
                except ValueError:
                    raise InputError(f"line {number} of the input is not JSON: {line.strip()[:80]!r}") from None
                if not isinstance(message, dict):
                    raise InputError(f"line {number} of the input is not a JSON object")
                await self._handle(message, number)
        except InputError as exc:
            self.note(f"{exc}; stopping.")
            self.failed = True
            self.conversation.interrupt()
        self._closed = True
        for future in self._pending.values():  # (no answer can come any more: each question is a no)
            if not future.done():
                future.set_exception(ConnectionError(GONE))
        if self._run is not None:  # (the input ended: the message being answered is answered first)
            await asyncio.gather(self._run, return_exceptions=True)
        watching.cancel()
        if not self.failed:
            await self._background_after_input()
        return 1 if self.failed or self.last_failed else 0

    async def _told_when_idle(self) -> None:
        """As Claude Code: a background command's end not told with a run's tool results gets a turn of its own
        (its `<task-notification>` as the prompt), once no run goes on."""
        notices = task_notices(self.conversation)
        while True:
            await notices.next_end()
            if self._run is None or self._run.done():
                self._run = asyncio.get_running_loop().create_task(self._drain())
            await asyncio.wait([self._run])  # (not gather: this watcher's cancelling must not cancel the turn)

    async def _background_after_input(self) -> None:
        """The input has ended with background commands still running: as Claude Code, wait for them (at most
        `background_wait()` seconds in all), each end a turn of its own; what still runs is then stopped."""
        notices = task_notices(self.conversation)
        deadline = time.monotonic() + background_wait()
        while (notices.running or notices.ended) and not self.out_closed:
            left = deadline - time.monotonic()
            if left <= 0:
                self.note(f"stopped waiting for {len(notices.running_ids())} background command(s).")
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(notices.wait(), left)
            await self._drain()

    async def _handle(self, message: dict[str, Any], number: int) -> None:
        kind = message.get("type")
        if kind == "user":
            self._user(message, number)
        elif kind == "control_request" and (message.get("request") or {}).get("subtype") == "continue":
            self._run = self._spawn(self._continued(message, self._run))  # (in line with the messages)
        elif kind == "control_request":
            task = self._spawn(self._control(message))
            if (message.get("request") or {}).get("subtype") == "initialize":
                self._initializing = task  # (a message sent with it waits for it, as the SDK itself would)
        elif kind == "control_response":
            response = message.get("response") or {}
            future = self._pending.get(str(response.get("request_id")))
            if future is not None and not future.done():
                future.set_result(response)
        elif kind in ("control_cancel_request", "keep_alive", "update_environment_variables"):
            pass  # (nothing of ours to cancel or refresh)
        else:
            raise InputError(f"line {number} of the input is a message of an unknown type ({kind!r})")

    async def _start_mcp(self, sdk_servers: list[str] | None = None) -> None:
        """The MCP servers (the SDK program's own among them: in `--mcp-config` from the Python SDK, named in
        `initialize` by the TypeScript one), once: at initialize, or before the first message."""
        if self._mcp_started:
            return
        self._mcp_started = True
        names = [str(name) for name in sdk_servers or [] if isinstance(name, str) and name]
        for notice in await self.conversation.start_mcp(sdk_bridge=self._mcp_message, sdk_servers=names):
            self.note(notice)

    async def _mcp_message(self, server: str, message: dict[str, Any]) -> dict[str, Any] | None:
        response = await self.ask({"subtype": "mcp_message", "server_name": server, "message": message})
        if response.get("subtype") == "error":
            raise RuntimeError(str(response.get("error") or "the SDK could not deliver the message"))
        answer = (response.get("response") or {}).get("mcp_response")
        return answer if isinstance(answer, dict) else None

    def _user(self, message: dict[str, Any], number: int) -> None:
        """A message: joined to the run going on with its next tool results (a command never: it waits), or
        answered in its turn; every message gets its answer, in the order they came."""
        body = message.get("message")
        content = body.get("content") if isinstance(body, dict) else None
        text, images = _prompt(content, number)
        self._arrived += 1
        if self._run is not None and not self._run.done():
            if self.conversation.running and not self._compacting and not text.lstrip().startswith("/"):
                self._steered.append((self._arrived, text, images))
                self.conversation.steer(text, images, with_tool_results=True)
            else:  # (between runs, or while compacting: a run of its own, once the one before has its result)
                self._queue.append((self._arrived, text, images))
            return
        self._queue.append((self._arrived, text, images))
        self._run = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        """The messages in line, each answered in turn; then the background ends not told yet, a turn of their own."""
        notices = task_notices(self.conversation)
        while self._queue or notices.ended:
            if self._queue:
                _, text, images = self._queue.pop(0)
                await self._answer(text, images)
                continue
            told = self.stream.tell_ends(notices)
            if self._started:  # (a turn the program did not ask for starts as Claude Code's do)
                self.stream.init(self.settings)
            await self._answer(told, [])

    async def _ready(self) -> None:
        """Before a run: initialize done, the MCP servers started, and the stream's `init` said once."""
        if self._initializing is not None:
            await asyncio.gather(self._initializing, return_exceptions=True)
        await self._start_mcp()
        if not self._started:
            self._started = True
            self.stream.init(self.settings)

    async def _continued(self, message: dict[str, Any], before: asyncio.Task[None] | None) -> None:
        """A `continue` request, a run in line: after the messages before it have their results, and before those
        that came while it ran."""
        if before is not None:
            await asyncio.gather(before, return_exceptions=True)
        await self._control(message)
        if self._queue:
            await self._drain()

    def _adopt(self, conversation: Conversation) -> None:
        """Go on in `conversation` (a branch's, or an idle rotation's new session)."""
        self.branches.append(conversation)
        self.conversation = self.stream.conversation = conversation
        self.conversation.on(self.stream)
        self.conversation.on(self._permission)

    async def _continue(self, request: dict[str, Any]) -> dict[str, Any]:
        """agentui's own control request, `continue`: a continuation of kind "default" (`text` as a new prompt),
        "rerun" (the last prompt again, its answer dropped) or "branch" (`text` on a new session forked at the message
        `at`), answered as a user message is (its messages, then its result); the response names the session the
        conversation goes on in (a branch's from then on)."""
        named = str(request.get("kind") or "default")
        kind = next((kind for kind in CONTINUATIONS if kind == named), None)
        if kind is None:
            raise ValueError(f"{named!r} is not a kind of continuation (default, rerun or branch)")
        await self._ready()
        at = request.get("at")
        outcome = await self.conversation.continue_(kind, str(request.get("text") or ""), str(at) if at else None)
        if isinstance(outcome, Branched):
            self._adopt(outcome.conversation)
        result = outcome.result if isinstance(outcome, Branched) else outcome
        assert isinstance(result, RunResult)
        message = self.stream.result(result)
        self.last_failed = message["is_error"] is True
        self.send(message)
        return {"session_id": self.conversation.session_id}

    async def _answer(self, text: str, images: list[ImageBlock]) -> None:
        await self._ready()
        if (instructions := compact_command(text)) is not None:  # (a command, not text for the model)
            await self._compact(instructions or None)
            return
        if (fresh := await rotate_if_idle(self.conversation)) is not None:  # (--idle-rotate: a new session)
            self._adopt(fresh)
        if (expanded := self.conversation.expand_command(text)) is not None:  # ("/command arguments", as typed)
            text, notices = expanded
            for notice in notices:
                self.note(notice)
        try:
            result = await self.conversation.send(text, images)
        finally:
            if expanded is not None:  # (a command's allowed-tools hold for its run only)
                self.conversation.end_grants()
        message = self.stream.result(result)
        self.last_failed = message["is_error"] is True
        self._totals.api_ms += result.api_duration_ms
        self.send(message)
        self._requeue(result.unsent)

    def _requeue(self, unsent: list[str]) -> None:
        """The messages the run ended without reading, back in line by when they came, with their images."""
        left = list(unsent)
        for entry in self._steered:
            if entry[1] in left:
                left.remove(entry[1])
                self._queue.append(entry)
        self._steered.clear()
        self._queue.sort(key=lambda entry: entry[0])

    async def _compact(self, instructions: str | None) -> None:
        """`/compact [instructions]`, as Claude Code answers it: status lines and the boundary (the stream writes
        them as it happens), then a result with no answer; or, with nothing to summarise yet, the status says it
        failed and the result says why."""
        before = self.stream.compactions
        self._compacting = True
        try:
            result = await self.conversation.compact(instructions)
        finally:
            self._compacting = False
        said = ""
        if self.stream.compactions == before and result.stop == "end_turn":
            said = NOTHING_TO_COMPACT
            self.stream.status("compacting")
            self.stream.status(None, compact_result="failed", compact_error=said)
        message = self.stream.result(result.model_copy(update={"text": said, "num_turns": 0}))
        self.last_failed = message["is_error"] is True
        self.send(message)

    def _spawn(self, work: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # Requests from the SDK

    async def _control(self, message: dict[str, Any]) -> None:
        request_id = message.get("request_id")
        request = message.get("request") or {}
        subtype = request.get("subtype")
        try:
            response = await self._answer_request(str(subtype), request)
        except Exception as exc:  # one error response per request that cannot be done, never a hang
            self.send(
                {
                    "type": "control_response",
                    "response": {"subtype": "error", "request_id": request_id, "error": str(exc) or type(exc).__name__},
                }
            )
            return
        answered: dict[str, Any] = {"subtype": "success", "request_id": request_id}
        if response is not None:  # (a request with nothing to say back has no `response`, as in Claude Code)
            answered["response"] = response
        self.send({"type": "control_response", "response": answered})

    async def _answer_request(self, subtype: str, request: dict[str, Any]) -> dict[str, Any] | None:
        conversation = self.conversation
        if subtype == "initialize":
            self._register_hooks(request.get("hooks") or {})
            self._instructions(request)
            for problem in conversation.add_agent_types(request.get("agents") or {}):
                self.note(problem)
            servers = request.get("sdkMcpServers")
            await self._start_mcp(servers if isinstance(servers, list) else None)
            from agentui.frontends.claude_code.initialize import initialize_response

            return initialize_response(conversation, self.settings)
        if subtype == "interrupt":
            conversation.interrupt()
            return {}
        if subtype == "set_permission_mode":
            mode = request.get("mode")
            if mode not in MODES:
                raise ValueError(f"{mode!r} is not a permission mode (default, acceptEdits, plan, bypassPermissions)")
            launched = conversation.launch.permissions
            if mode == "bypassPermissions" and not (launched.mode == mode or launched.bypass_available):
                raise ValueError(
                    "Cannot set permission mode to bypassPermissions because the session was not launched with "
                    "--dangerously-skip-permissions"
                )  # (Claude Code's words; --allow-dangerously-skip-permissions allows it too)
            conversation.set_mode(mode)
            return {}
        if subtype == "set_model":
            model = request.get("model")
            conversation.set_model(str(model) if model else self.settings.model)
            return {}
        if subtype == "continue":
            return await self._continue(request)
        if subtype == "mcp_status":
            return {"mcpServers": [{"name": s.name, "status": s.state} for s in conversation.mcp_status()]}
        from agentui.frontends.claude_code import controls

        return await controls.answer(conversation, self._totals, subtype, request)

    def _instructions(self, request: dict[str, Any]) -> None:
        """The TypeScript SDK's system prompt, sent in `initialize`: its `systemPrompt` (a list of parts, joined as
        Claude Code joins them; empty when the program gave none, as with the Python SDK's `--system-prompt ""`)
        takes the place of agentui's instructions, and `appendSystemPrompt` (its preset's `append`) follows them."""
        system, append = request.get("systemPrompt"), request.get("appendSystemPrompt")
        if system is None and append is None:
            return
        if isinstance(system, list):
            system = "\n\n".join(str(part) for part in system if part)
        else:  # (none given: the command line's, if it gave one)
            system = str(system) if system is not None else self.conversation.launch.system_prompt
        set_instructions(self.conversation, system, str(append) if append else None)

    def _register_hooks(self, hooks: dict[str, Any]) -> None:
        for event, matchers in hooks.items():
            if event not in HOOK_EVENTS or not isinstance(matchers, list):  # (an SDK's callbacks: the same events)
                continue
            for matcher in matchers:
                for callback_id in matcher.get("hookCallbackIds") or []:
                    timeout = float(matcher.get("timeout") or 60)
                    self.conversation.add_hook(
                        event, matcher.get("matcher") or "", self._hook(str(callback_id)), name=str(callback_id),
                        timeout=timeout,
                    )  # fmt: skip

    def _hook(self, callback_id: str) -> Any:
        async def run(hook_input: dict[str, Any]) -> dict[str, Any]:
            response = await self.ask(
                {"subtype": "hook_callback", "callback_id": callback_id, "input": hook_input,
                 "tool_use_id": hook_input.get("tool_use_id")}
            )  # fmt: skip
            if response.get("subtype") == "error":
                raise RuntimeError(str(response.get("error") or "the SDK's hook failed"))
            output = response.get("response")
            return output if isinstance(output, dict) else {}

        return run

    # Requests to the SDK

    async def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send a control request to the SDK and wait for its response (the whole `response` object); once stdin
        has closed, no answer can come, and the request is refused at once."""
        if self._closed:
            raise ConnectionError(GONE)
        request_id = f"agentui_{uuid.uuid4().hex[:12]}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        self.send({"type": "control_request", "request_id": request_id, "request": request})
        try:
            return await asyncio.wait_for(future, CONTROL_TIMEOUT)
        except (TimeoutError, ConnectionError, asyncio.CancelledError):
            self.send({"type": "control_cancel_request", "request_id": request_id})
            raise
        finally:
            self._pending.pop(request_id, None)

    def _permission(self, event: Event) -> None:
        if isinstance(event, PermissionRequest):
            self._spawn(self._decide(event))

    async def _decide(self, event: PermissionRequest) -> None:
        if not self.ask_over_stdio:
            message = (
                "agentui is running for an SDK program without a permission callback (--permission-prompt-tool "
                f"stdio), so this call was denied; it needed permission because {event.reason}."
            )
            self.conversation.answer(event.request_id, PermissionDecision(behavior="deny", message=message))
            return
        try:
            response = await self.ask(
                {"subtype": "can_use_tool", **can_use_tool_request(event, self.conversation.root)}
            )
        except (TimeoutError, ConnectionError, asyncio.CancelledError) as exc:
            said = (
                GONE if isinstance(exc, ConnectionError) else "The SDK program did not answer the permission question."
            )
            self.conversation.answer(event.request_id, PermissionDecision(behavior="deny", message=said))
            return
        self.conversation.answer(event.request_id, _decision(response, event))


def _decision(response: dict[str, Any], event: PermissionRequest) -> PermissionDecision:
    """The SDK's answer to `can_use_tool` as a permission decision."""
    if response.get("subtype") == "error":
        return PermissionDecision(
            behavior="deny", message=f"The SDK's permission callback failed: {response.get('error')}"
        )
    answer = response.get("response") or {}
    if answer.get("behavior") != "allow":
        message = str(answer.get("message") or "") or None
        interrupt = answer.get("interrupt") is True
        return PermissionDecision(behavior="deny", message=message, interrupt=interrupt, verbatim=True)
    updated = answer.get("updatedInput")
    mode = None
    scope: Literal["once", "session"] = "once"
    for update in answer.get("updatedPermissions") or []:
        if update.get("type") == "setMode" and update.get("mode") in (
            "default",
            "acceptEdits",
            "plan",
            "bypassPermissions",
        ):
            mode = update["mode"]
        elif update.get("type") == "addRules" and update.get("behavior") == "allow":
            # (agentui's own rules for the call hold for the session: what a program sends back is not written to
            # the settings, so a suggestion it returns whole cannot make more than the session's rules lasting)
            scope = "session"
    return PermissionDecision(
        behavior="allow",
        scope=scope,
        updated_input=updated if isinstance(updated, dict) and updated != event.input else None,
        mode=mode,
    )


def _prompt(content: Any, number: int) -> tuple[str, list[ImageBlock]]:
    """A user message's text and images."""
    if isinstance(content, str):
        return content, []
    if not isinstance(content, list):
        raise InputError(f"line {number} of the input is a user message without content")
    texts, images = [], []
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            texts.append(str(block.get("text", "")))
        elif block.get("type") == "image" and isinstance(block.get("source"), dict):
            source = block["source"]
            if source.get("type") == "base64":
                import base64

                images.append(image_from_bytes(base64.b64decode(str(source.get("data", ""))), "an image in the input"))
    return "\n\n".join(texts), images


async def stdin_lines() -> AsyncIterator[str]:
    """The lines of stdin, as they come, without blocking the loop."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=64 * 1024 * 1024)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := await reader.readline():
        yield line.decode("utf-8", errors="replace")
