"""Claude Code's stream-json, written from a conversation's events: `system`/`init`, an `assistant` message per
finished content block, a `user` message per tool result (with its `tool_use_result`), `stream_event` lines with
the Messages API's stream events when partial messages are asked for, and the `result` (also the whole of the
json format). Scripts and the Agent SDKs parse this, so field names and order follow Claude Code 2.1's output."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from agentui import __version__
from agentui.api import (
    Conversation,
    RunResult,
    Settings,
    TaskNotices,
    describe_call,
    limit_reached,
    plugins_in_use,
    style_in_use,
)
from agentui.api.events import (
    AgentStart,
    BackgroundAgentUpdate,
    BackgroundShellUpdate,
    CompactionEnd,
    CompactionStart,
    ContentBlockEnd,
    Event,
    MessageEnd,
    MessageStart,
    TextDelta,
    ThinkingDelta,
    ToolEnd,
    ToolStart,
    ToolUseDelta,
    TurnStart,
    UsageUpdate,
    UserMessage,
)
from agentui.api.messages import Message, Usage
from agentui.frontends.claude_code.held_end import HeldEnd

CLAUDE_CODE_VERSION = "2.1.197"
"""The Claude Code release whose headless interface this one follows (the Agent SDKs read it from `init`)."""
WINDOWS = {"claude": 200_000}
"""Context windows by model family, for `modelUsage` when the conversation does not know its model's."""
API_STOP_REASONS = frozenset({"end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal"})


def _id() -> str:
    return str(uuid.uuid4())


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class ClaudeStream:
    """Turns the events of a conversation's runs into Claude Code's stream-json messages, handed to `write` one at a
    time (as dicts); also keeps what the final `result` reports."""

    def __init__(
        self,
        conversation: Conversation,
        write: Callable[[dict[str, Any]], None],
        *,
        partial: bool = False,
        replay_user: bool = False,
        hook_events: bool = False,
        refuses_asks: bool = False,
    ) -> None:
        self.conversation = conversation
        self._held = HeldEnd(refuses_asks)
        """A message's end, held while its calls are refused (`refuses_asks`: questions are answered no at once)."""
        self.write = write
        self.partial = partial
        self.replay_user = replay_user
        self.session_id = conversation.session_id
        self.denials: list[dict[str, Any]] = []
        self._inputs: dict[str, tuple[str, dict[str, Any]]] = {}
        self._message_id = ""
        self._model = conversation.model
        self._stop_reason: str | None = None
        """The last model message's stop reason (None while one streams, or if it never ended)."""
        self._open: set[int] = set()
        """Indexes of the content blocks whose `content_block_start` was written (partial messages)."""
        self._by_model: dict[str, dict[str, Any]] = {}
        self._cost = 0.0
        self._trigger = "manual"
        self._start_usage: dict[str, int] = {"input_tokens": 0, "output_tokens": 0}
        """What the server said of the answer as it began: each assistant message of it carries this."""
        self._timing = RunTiming()
        self.compactions = 0
        self.written: list[RunResult] = []
        """The results whose line has been written already (print mode writes each run's as it ends while it
        waits for background commands)."""
        """Compactions that happened (a front end tells one that found nothing to summarise by this)."""
        if hook_events:
            conversation.on_hook(self._hook)
        conversation.on_subagent(self._subagent)

    def _subagent(self, parent: str, event: Event) -> None:
        """A sub-agent's messages, under the id of the Agent call that started it (as Claude Code writes them)."""
        match event:
            case ContentBlockEnd():
                self._assistant(event, parent)
            case ToolStart():
                self._inputs[event.tool_call_id] = (event.name, event.input)
            case ToolEnd():
                self._tool_result(event, parent)
            case _:
                pass

    def _hook(self, kind: str, fields: dict[str, Any]) -> None:
        self.write({"type": "system", "subtype": kind, **fields, "uuid": _id(), "session_id": self.session_id})

    # The messages

    def init(self, settings: Settings) -> dict[str, Any]:
        conversation = self.conversation
        mcp = [{"name": status.name, "status": status.state} for status in conversation.mcp_status()]
        message = {
            "type": "system",
            "subtype": "init",
            "cwd": str(conversation.root),
            "session_id": self.session_id,
            "tools": conversation.tool_names,
            "mcp_servers": mcp,
            "model": conversation.model,
            "permissionMode": conversation.mode,
            "slash_commands": conversation.command_names(),
            "apiKeySource": key_source(settings),
            "claude_code_version": CLAUDE_CODE_VERSION,
            "output_style": style_in_use(conversation),
            "agents": conversation.agent_names(),
            "skills": conversation.skill_names(),
            "plugins": plugins_in_use(conversation.root, conversation.env),
            "analytics_disabled": True,  # (agentui sends nothing anywhere but the model's server)
            "product_feedback_disabled": True,
            "uuid": _id(),
            "memory_paths": {},  # (Claude Code's `auto` is its automatic memory, which agentui does not keep)
            "fast_mode_state": "off",
            "agentui_version": __version__,
            "provider": settings.provider,
        }
        self.write(message)
        return message

    def __call__(self, event: Event) -> None:
        self._timing.see(event)
        if self._held.lines and not self._held.keeps(event):
            self._release()
        match event:
            case AgentStart():
                self._stop_reason = None
                self.session_id = event.session_id  # (a branch's run: its new session's, from then on)
            case TextDelta() | ThinkingDelta() | ToolUseDelta() if self.partial:
                self._delta(event)
            case TurnStart() if self.partial:  # (before each model call, as Claude Code says it)
                self.status("requesting")
            case MessageStart():
                self._message_id, self._model = event.message_id, event.model or self._model
                self._stop_reason = None
                self._start_usage = _start_usage(event.usage)
                self._open.clear()
                if self.partial:
                    self._stream_event(
                        {
                            "type": "message_start",
                            "message": {
                                "id": event.message_id, "type": "message", "role": "assistant", "content": [],
                                "model": event.model, "stop_reason": None, "stop_sequence": None,
                                "usage": dict(self._start_usage),
                            },
                        },
                        ttft_ms=self._timing.since_request(),
                    )  # fmt: skip
            case ContentBlockEnd():
                self._assistant(event)
            case MessageEnd():
                reason = event.message.stop_reason  # (one the API gave: a message cut short by agentui has none)
                self._stop_reason = reason if reason in API_STOP_REASONS else None
                if self.partial:
                    self._message_end(event.message)
            case ToolStart():
                self._inputs[event.tool_call_id] = (event.name, event.input)
            case ToolEnd():
                self._tool_result(event)
            case UsageUpdate():
                self._count(event)
            case CompactionStart():
                self._trigger = event.trigger
                self.status("compacting")
            case CompactionEnd():
                self._compacted(event)
            case (
                BackgroundShellUpdate(status="completed" | "failed" | "killed")
                | BackgroundAgentUpdate(status="completed" | "failed" | "killed")
            ):  # (as it ends, told or not)
                ended = {"status": event.status, "end_time": round(time.time() * 1000)}
                task_id = event.task_id if isinstance(event, BackgroundAgentUpdate) else event.shell_id
                self.write({"type": "system", "subtype": "task_updated", "task_id": task_id, "patch": ended,
                            "uuid": _id(), "session_id": self.session_id})  # fmt: skip
            case UserMessage() if self.replay_user and event.source in ("prompt", "steer", "follow_up"):
                self.write(self._user(_api_message(event.message), replay=True))
            case _:
                pass

    def _compacted(self, event: CompactionEnd) -> None:
        self.compactions += 1
        self.status(None, compact_result="success")
        metadata = {"trigger": self._trigger, "pre_tokens": event.pre_tokens, "post_tokens": event.post_tokens}
        self.write({"type": "system", "subtype": "compact_boundary", "session_id": self.session_id, "uuid": _id(),
                    "compact_metadata": metadata})  # fmt: skip

    def wrote(self, result: RunResult) -> bool:
        return any(written is result for written in self.written)

    def tell_ends(self, notices: TaskNotices) -> str:
        """The background commands' ends not told yet, taken out: their `task_notification` lines, as Claude Code
        writes them before the turn that tells them (each `task_updated` came as it ended), and that turn's prompt."""
        ended = notices.take()
        for update, _, summary in ended:
            task_id = notices.task_id(update)
            line: dict[str, Any] = {"type": "system", "subtype": "task_notification", "task_id": task_id,
                    "tool_use_id": notices.tool_use_id(task_id), "status": update.status,
                    "output_file": update.output_path, "summary": summary}  # fmt: skip
            if isinstance(update, BackgroundAgentUpdate):  # (a sub-agent's, as Claude Code's: what it took)
                line["usage"] = {"total_tokens": update.total_tokens, "tool_uses": update.tool_uses,
                                 "duration_ms": update.duration_ms}  # fmt: skip
            self.write({**line, "session_id": self.session_id, "uuid": _id()})
        return "\n".join(text for _, text, _ in ended)

    def status(self, status: str | None, **more: str) -> None:
        """A `system`/`status` line: "requesting" before a model call; "compacting", then null with how it went
        (`compact_result`, `compact_error`). (Claude Code writes the two kinds' last fields in different orders.)"""
        message = {"type": "system", "subtype": "status", "status": status, **more}
        ids = [("uuid", _id()), ("session_id", self.session_id)]
        self.write({**message, **dict(ids if status == "requesting" else ids[::-1])})

    def _assistant(self, event: ContentBlockEnd, parent: str | None = None) -> None:
        self.write(
            {
                "type": "assistant",
                "message": {
                    "id": event.message_id or self._message_id,
                    "type": "message",
                    "role": "assistant",
                    "content": [_block(event.block)],
                    "model": self._model,
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": dict(self._start_usage),
                    "context_management": None,
                },
                "parent_tool_use_id": parent,
                "session_id": self.session_id,
                "uuid": _id(),
            }
        )
        if self.partial and parent is None:  # (after the block's message, as Claude Code writes them)
            self._stream_event({"type": "content_block_stop", "index": event.index})

    def _tool_result(self, event: ToolEnd, parent: str | None = None) -> None:
        content: Any = event.content
        if not isinstance(content, str):
            content = [block.model_dump(exclude_none=True) for block in content]
        result: dict[str, Any] = {"tool_use_id": event.tool_call_id, "type": "tool_result", "content": content}
        name, given = self._inputs.get(event.tool_call_id, (event.name, {}))
        if event.is_error or describe_call(name, given, self.conversation.root).shown == "execute":
            result["is_error"] = event.is_error  # (Claude Code says it of a command's result either way)
        if event.denied:  # (Claude Code writes a refusal's block in another order)
            result = {"type": "tool_result", "content": content, "is_error": True, "tool_use_id": event.tool_call_id}
        if isinstance(task := (event.details or {}).get("backgroundTaskId"), str) and parent is None:
            self._task_started(task, event, name, given)
        message = self._user({"role": "user", "content": [result]}, parent=parent)
        message["timestamp"] = _now()
        text = content if isinstance(content, str) else ""
        message["tool_use_result"] = f"Error: {text}" if event.is_error else (event.details or content)
        self.write(message)
        for said in event.context:  # (a skill's instructions after its result: Claude Code's synthetic message)
            follows = self._user({"role": "user", "content": [{"type": "text", "text": said}]}, parent=parent)
            self.write({**follows, "timestamp": _now(), "isSynthetic": True})
        if event.denied:
            name, given = self._inputs.get(event.tool_call_id, (event.name, {}))
            self.denials.append({"tool_name": name, "tool_use_id": event.tool_call_id, "tool_input": given})

    def _task_started(self, task: str, event: ToolEnd, name: str, given: dict[str, Any]) -> None:
        """A background shell's or sub-agent's `task_started` line, as Claude Code writes each."""
        about = str(given.get("description") or given.get("command") or name)
        started: dict[str, Any] = {"task_id": task, "tool_use_id": event.tool_call_id, "description": about}
        if event.details.get("isAsync"):  # (an Agent call's)
            kind = str(given.get("subagent_type") or "general-purpose")
            started |= {"subagent_type": kind, "task_type": "local_agent", "prompt": str(given.get("prompt") or "")}
        else:
            started["task_type"] = "local_bash"
        ids = {"uuid": _id(), "session_id": self.session_id}
        self.write({"type": "system", "subtype": "task_started", **started, **ids})

    def _user(self, message: dict[str, Any], *, replay: bool = False, parent: str | None = None) -> dict[str, Any]:
        line: dict[str, Any] = {
            "type": "user",
            "message": message,
            "parent_tool_use_id": parent,
            "session_id": self.session_id,
            "uuid": _id(),
        }
        if replay:
            line["timestamp"] = _now()
            line["isReplay"] = True
        return line

    # Partial messages: the Messages API's stream events, from the deltas (any provider's)

    def _delta(self, event: TextDelta | ThinkingDelta | ToolUseDelta) -> None:
        if event.index not in self._open:
            self._open.add(event.index)
            match event:
                case ToolUseDelta():
                    start: dict[str, Any] = {
                        "type": "tool_use",
                        "id": event.tool_call_id,
                        "name": event.name,
                        "input": {},
                    }
                case ThinkingDelta():
                    start = {"type": "thinking", "thinking": "", "signature": ""}
                case _:
                    start = {"type": "text", "text": ""}
            self._stream_event({"type": "content_block_start", "index": event.index, "content_block": start})
        match event:
            case ToolUseDelta():
                delta = {"type": "input_json_delta", "partial_json": event.partial_json}
            case ThinkingDelta():
                delta = {"type": "thinking_delta", "thinking": event.text}
            case _:
                delta = {"type": "text_delta", "text": event.text}
        self._stream_event({"type": "content_block_delta", "index": event.index, "delta": delta})

    def _message_end(self, message: Message) -> None:
        usage = message.usage or Usage()
        delta = {
            "type": "message_delta",
            "delta": {"stop_reason": message.stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": usage.output_tokens},
        }
        for event in (delta, {"type": "message_stop"}):
            if message.tool_uses:  # (until its calls are decided: see HeldEnd)
                self._held.lines.append(self._stream_line(event))
            else:
                self.write(self._stream_line(event))

    def _release(self) -> None:
        for line in self._held.release():
            self.write(line)

    def _stream_event(self, event: dict[str, Any], **more: Any) -> None:
        self.write({**self._stream_line(event), **more})

    def _stream_line(self, event: dict[str, Any]) -> dict[str, Any]:
        line = {"type": "stream_event", "event": event, "session_id": self.session_id, "parent_tool_use_id": None}
        return {**line, "uuid": _id()}

    # The result

    def _count(self, event: UsageUpdate) -> None:
        model = event.model or self._model or self.conversation.model
        entry = self._by_model.setdefault(
            model,
            {"inputTokens": 0, "outputTokens": 0, "cacheReadInputTokens": 0, "cacheCreationInputTokens": 0,
             "webSearchRequests": 0, "costUSD": 0.0},
        )  # fmt: skip
        usage = event.usage
        entry["inputTokens"] += usage.input_tokens
        entry["outputTokens"] += usage.output_tokens
        entry["cacheReadInputTokens"] += usage.cache_read_input_tokens
        entry["cacheCreationInputTokens"] += usage.cache_creation_input_tokens
        entry["costUSD"] = round(entry["costUSD"] + max(0.0, event.cost_usd - self._cost), 6)
        self._cost = event.cost_usd

    def result(self, result: RunResult, started: float | None = None) -> dict[str, Any]:
        """The `result` message of a run, with Claude Code's fields in Claude Code's order: a success has the answer
        in `result`; an error (a limit, an interrupt, a failure) has no answer but an `errors` list the SDKs read,
        and the stop reason of the last model message. A failure of the API after part of an answer keeps that
        part in `result` (agentui's: it would be lost otherwise)."""
        self._release()  # (a run that ended while its last message's calls were being refused)
        subtype = {"end_turn": "success", "max_turns": "error_max_turns", "max_budget": "error_max_budget_usd"}.get(
            result.stop, "error_during_execution"
        )
        model_usage = self.model_usage()
        usage = result.usage
        duration = result.duration_ms if started is None else round((time.monotonic() - started) * 1000)
        message: dict[str, Any] = {"type": "result", "subtype": subtype}
        if subtype == "success":
            message |= {"is_error": False, "api_error_status": None, "duration_ms": duration}
            message |= {"duration_api_ms": result.api_duration_ms, **self._timing.fields()}
            message["num_turns"] = result.num_turns
            stop_reason = (self._stop_reason or "end_turn") if result.num_turns else None  # (none: no model call)
            message |= {"result": result.text, "stop_reason": stop_reason}
        else:
            message |= {"duration_ms": duration, "duration_api_ms": result.api_duration_ms, "is_error": True}
            message["num_turns"] = result.num_turns
            if result.stop == "interrupted" and result.text:  # (a failure before any answer has none of its own)
                message["result"] = result.text
            message["stop_reason"] = self._stop_reason
        message |= {
            "session_id": result.session_id,
            "total_cost_usd": result.cost_usd,
            "usage": {
                "input_tokens": usage.input_tokens,
                "cache_creation_input_tokens": usage.cache_creation_input_tokens,
                "cache_read_input_tokens": usage.cache_read_input_tokens,
                "output_tokens": usage.output_tokens,
                "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
                "service_tier": "standard",
                "cache_creation": {  # (agentui asks for the 5-minute cache only)
                    "ephemeral_1h_input_tokens": 0,
                    "ephemeral_5m_input_tokens": usage.cache_creation_input_tokens,
                },
                "inference_geo": "",
                "iterations": [],
                "speed": "standard",
            },
            "modelUsage": model_usage,
            "permission_denials": list(self.denials),
            "terminal_reason": _terminal_reason(result.stop),
            "fast_mode_state": "off",
            "uuid": _id(),
        }
        if (structured := self.conversation.structured_output) is not None:
            message["structured_output"] = structured
        if subtype != "success":
            message["errors"] = [self._error(result)]
        if result.error:
            message["error"] = result.error  # (agentui's, as before: one sentence)
        return message

    def model_usage(self) -> dict[str, dict[str, Any]]:
        """Each model's tokens and cost so far, as `modelUsage` has them."""
        window = self.conversation.window or WINDOWS["claude"]
        return {
            model: {**counts, "contextWindow": window, "maxOutputTokens": self.conversation.max_output_tokens}
            for model, counts in self._by_model.items()
        }

    def _error(self, result: RunResult) -> str:
        """Why a run ended without its answer, as Claude Code words it where it has the same stop."""
        launch = self.conversation.launch
        if result.stop == "max_turns":
            return f"Reached maximum number of turns ({launch.max_turns})"
        if result.stop == "max_budget":
            budget = launch.limits.over(launch.settings.limits).max_budget_usd
            return f"Reached maximum budget (${_js_number(budget or 0.0)})"
        if result.stop == "cancelled":
            return "The run was interrupted before it finished."
        return result.error or limit_reached(result.stop) or f"The run stopped ({result.stop})."


def key_source(settings: Settings) -> str:
    """Where the key came from, named as Claude Code names it (the variable), or "none"."""
    if settings.provider == "anthropic" and settings.api_key:
        return "ANTHROPIC_API_KEY"
    if settings.provider == "anthropic" and settings.auth_token:
        return "ANTHROPIC_AUTH_TOKEN"
    openai = settings.provider in ("openai", "openai-responses")
    return "OPENAI_API_KEY" if openai and settings.api_key else "none"


class RunTiming:
    """When a run's first model call was sent and its answer began, from the run's start (Claude Code's
    `time_to_request_ms`, `ttft_stream_ms` and `ttft_ms`), and when the latest call was sent."""

    def __init__(self) -> None:
        self.started = self.request = 0.0
        self.marks: dict[str, float] = {}

    def see(self, event: Event) -> None:
        now = time.monotonic()
        match event:
            case AgentStart():
                self.started, self.marks = now, {}
            case TurnStart():
                self.request = now
                self.marks.setdefault("time_to_request_ms", now)
            case MessageStart():
                self.marks.setdefault("ttft_stream_ms", now)
            case TextDelta() | ThinkingDelta() | ToolUseDelta():
                self.marks.setdefault("ttft_ms", now)
            case _:
                pass

    def since_request(self) -> int:
        return round((time.monotonic() - self.request) * 1000)

    def fields(self) -> dict[str, int]:
        """The three, in Claude Code's order, each that happened in this run."""
        names = ("ttft_ms", "ttft_stream_ms", "time_to_request_ms")
        return {name: round((self.marks[name] - self.started) * 1000) for name in names if name in self.marks}


def _start_usage(usage: Usage | None) -> dict[str, int]:
    """A message's usage as its stream began, as the Messages API gives it (cache counts only when there are any)."""
    usage = usage or Usage()
    counts = {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}
    for name in ("cache_creation_input_tokens", "cache_read_input_tokens"):
        if value := getattr(usage, name):
            counts[name] = value
    return counts


def _js_number(value: float) -> str:
    """A number as JavaScript prints it (Claude Code's messages): 0.5, 2, 0.000001, 1e-7, 2.5e+21."""
    from decimal import Decimal

    if value == 0 or 1e-6 <= abs(value) < 1e21:
        return format(Decimal(repr(value)), "f").removesuffix(".0")
    mantissa, _, exponent = repr(value).partition("e")
    return f"{mantissa.removesuffix('.0')}e{int(exponent):+d}"


def _block(block: Any) -> dict[str, Any]:
    """A content block as the Messages API gives it."""
    data: dict[str, Any] = block.model_dump(exclude_none=True)
    data.pop("input_error", None)
    return data


def _api_message(message: Message) -> dict[str, Any]:
    content: Any = [_block(block) for block in message.content]
    if len(content) == 1 and content[0].get("type") == "text":
        content = content[0]["text"]
    return {"role": message.role, "content": content}


def _terminal_reason(stop: str) -> str:
    return {
        "end_turn": "completed",
        "max_turns": "max_turns",
        "max_budget": "max_budget_usd",
        "max_total_tokens": "max_total_tokens",
        "max_duration": "max_duration",
        "cancelled": "aborted_streaming",
        "interrupted": "aborted_streaming",
    }.get(stop, "error")
