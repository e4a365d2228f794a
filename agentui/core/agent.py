"""The agent loop: prompt -> provider stream -> tool calls -> repeat, with steering, follow-ups and cancel.

Every step that can take time (a model call, a batch of tool calls) runs as its own task, so `cancel()` stops it
at once; the history is then repaired so every tool_use has its tool_result, and the run ends as "cancelled".
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Coroutine
from contextlib import aclosing
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from agentui.core import compaction
from agentui.core.context import ContextMeter, TokenCounter, context_window
from agentui.core.dispatch import INTERRUPTED, ToolDispatcher
from agentui.core.events import (
    AgentEnd,
    AgentStart,
    CompactionEnd,
    CompactionStart,
    ContentBlockEnd,
    Error,
    Event,
    EventBus,
    MessageEnd,
    MessageStart,
    Notice,
    PermissionDecision,
    Retry,
    RunStop,
    Subscription,
    TextDelta,
    ThinkingDelta,
    ToolUseDelta,
    TurnEnd,
    TurnStart,
    UsageUpdate,
    UserMessage,
)
from agentui.core.hooks import Hooks
from agentui.core.memory import MemoryLoader
from agentui.core.messages import Message, TextBlock, ToolResultBlock, Usage
from agentui.core.permissions import KindGate, PermissionGate
from agentui.core.pricing import cost_usd
from agentui.core.providers.base import (
    ContextOverflowError,
    Provider,
    ProviderError,
    ProviderRequest,
    StreamInterruptedError,
)
from agentui.core.providers.retry import RetryNotice, RetryPolicy, stream_with_retry
from agentui.core.providers.stream import (
    BlockDelta,
    BlockStart,
    BlockStop,
    MessageAccumulator,
    StreamEnd,
    StreamStart,
)
from agentui.core.tools.base import ToolRegistry

T = TypeVar("T")

INTERRUPTED_BY_USER = "[Request interrupted by user]"
INTERRUPTED_FOR_TOOL_USE = "[Request interrupted by user for tool use]"


class AgentConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    model: str
    system_prompt: str = ""
    """Instructions and memory: the stable, cached part of the system prompt."""
    environment: str = ""
    """Facts about the session (directory, date, git status), sent after the cached part."""
    max_turns: int | None = Field(default=None, ge=1)
    """Model calls allowed per run; None for no limit."""
    max_tokens: int = Field(default=8192, ge=1)
    thinking_budget: int | None = None
    context_window: int | None = None
    """The model's context size in tokens when the built-in table does not know it (or knows it wrong)."""
    auto_compact: bool = True
    compact_threshold: float = Field(default=0.9, gt=0.1, le=1.0)
    """How full the context may get before a model call, as a fraction of the window, before it is compacted."""
    cwd: Path = Field(default_factory=Path.cwd)


class RunResult(BaseModel):
    session_id: str
    stop: RunStop
    text: str
    """The last assistant message's text: the answer, for print mode."""
    num_turns: int
    usage: Usage
    cost_usd: float
    """At list prices of the models the server reported; 0 for models with no known price (local ones)."""
    error: str | None = None
    error_kind: str | None = None
    duration_ms: int
    api_duration_ms: int


class _Cancelled(Exception):
    """The person cancelled; raised out of the step that was running."""


class _Blocked(Exception):
    """A UserPromptSubmit hook refused the prompt."""


class _Done(Exception):
    """The run's work is done early (a /compact with nothing sent meanwhile)."""


MAX_STOP_HOOK_CONTINUATIONS = 8
"""A Stop hook that keeps saying "not done" gets this many extra turns, so a buggy one cannot loop forever."""

TOOL_RESULTS_SHARE = 0.25
"""When the context is full, tool results beyond the newest this share of the window become placeholders."""
KEEP_SHARE = 0.25
"""An automatic summary keeps the recent turns up to this share of the window as they are."""
MANUAL_KEEP_SHARE = 0.05
"""/compact is asked for to free context: it keeps less."""
EXACT_COUNT_SHARE = 0.5
"""Past this share of the window, count with tiktoken (if its encoding is on disk) rather than estimate."""
SUMMARY_MAX_TOKENS = 8192
UNKNOWN_WINDOW = 128_000
"""For /compact on a model whose window is unknown: how much of the history a summary may read."""


class Agent:
    """Runs conversations with one provider and one tool set. One run at a time; the history persists across runs."""

    def __init__(
        self,
        provider: Provider,
        config: AgentConfig,
        *,
        tools: ToolRegistry | None = None,
        gate: PermissionGate | None = None,
        bus: EventBus | None = None,
        session_id: str | None = None,
        messages: list[Message] | None = None,
        retry: RetryPolicy | None = None,
        hooks: Hooks | None = None,
        memory: MemoryLoader | None = None,
        counter: TokenCounter | None = None,
    ) -> None:
        self.provider = provider
        self.config = config
        self.tools = tools or ToolRegistry()
        self.bus = bus or EventBus()
        self.session_id = session_id or str(uuid.uuid4())
        self.messages: list[Message] = list(messages or [])
        self.retry = retry or RetryPolicy()
        self.usage = Usage()
        self.cost_usd = 0.0
        self.hooks = hooks if hooks else None
        if self.hooks is not None:
            self.hooks.notify = self._warn
        self.gate = gate or KindGate()
        self._dispatcher = ToolDispatcher(
            self.tools,
            self.gate,
            self.bus.emit,
            session_id=self.session_id,
            cwd=config.cwd,
            hooks=self.hooks,
            memory=memory,
        )
        self.children: list[Agent] = []
        """Sub-agents running now (the Task tool's): their permission questions are answered through this agent."""
        self.memory = memory
        self.meter = ContextMeter(counter or TokenCounter())
        self.meter.recount(self.messages, self._overhead())
        self._session_started = False
        self._steering: list[str] = []
        self._follow_ups: list[str] = []
        self._task: asyncio.Task[RunResult] | None = None
        self._step_task: asyncio.Task[Any] | None = None
        self._cancel_requested = False
        self._accumulator: MessageAccumulator | None = None
        self._calls_in_flight: list[Any] = []
        self._turns = 0
        self._api_seconds = 0.0
        self._run_usage = Usage()
        self._run_cost = 0.0

    # Control, from any front end

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self, prompt: str) -> Run:
        """Start a run and return its handle: iterate it for events, await `result()` for the outcome."""
        task = self._launch(prompt)  # first, so a refused start leaves no subscription behind
        return Run(self, task, self.bus.subscribe())

    async def prompt(self, prompt: str) -> RunResult:
        """Run to the end and return the result (observe through `bus` meanwhile)."""
        return await self._launch(prompt)

    def inject(self, text: str) -> None:
        """Steer: deliver `text` after the current tool calls, before the model is called again."""
        self._steering.append(text)

    def follow_up(self, text: str) -> None:
        """Queue `text` as the next prompt once the model ends its turn."""
        self._follow_ups.append(text)

    def respond_permission(self, request_id: str, decision: PermissionDecision) -> bool:
        if self._dispatcher.respond_permission(request_id, decision):
            return True
        return any(child.respond_permission(request_id, decision) for child in list(self.children))

    def add_context(self, text: str) -> None:
        """Add a user message between runs (a shell command's output, a note): the model sees it with the next
        prompt, and the session records it."""
        if self.running:
            self.inject(text)
        else:
            self._add_user_text(text, "context")

    async def compact(self, instructions: str | None = None) -> RunResult:
        """Summarise the history now (`/compact`), as a run of its own: cancellable, and reported by its events."""
        if self.running:
            raise RuntimeError("the agent is running; compact once it has finished")
        self._task = asyncio.get_running_loop().create_task(self._run(None, instructions))
        return await self._task

    @property
    def window(self) -> int | None:
        """The model's context window in tokens, if known."""
        return context_window(self.config.model, self.config.context_window)

    @property
    def context_tokens(self) -> int:
        """How many tokens the next request will hold (the provider's count, plus an estimate of what is new)."""
        return self.meter.tokens(self.messages)

    def cancel(self) -> None:
        """Stop the running step (stream or tools) now; the run ends with stop "cancelled"."""
        if not self.running:
            return
        self._cancel_requested = True
        if self._step_task is not None:
            self._step_task.cancel()

    # The loop

    def _launch(self, prompt: str) -> asyncio.Task[RunResult]:
        if self.running:
            raise RuntimeError("the agent is already running; inject() or follow_up() instead")
        self._task = asyncio.get_running_loop().create_task(self._run(prompt))
        return self._task

    async def _run(self, prompt: str | None, instructions: str | None = None) -> RunResult:
        """A run: answer `prompt`, or (when it is None) compact with `instructions` and then answer whatever was
        sent meanwhile."""
        started = time.monotonic()
        self._cancel_requested = False
        self._turns, self._api_seconds, self._run_usage, self._run_cost = 0, 0.0, Usage(), 0.0
        self._emit(AgentStart(session_id=self.session_id, model=self.config.model, provider=self.provider.name))
        stop: RunStop = "end_turn"
        error: tuple[str, str] | None = None  # (one sentence, kind)
        try:
            if prompt is None:
                await self._step(self._compact("manual", instructions))
                queued = [*self._steering, *self._follow_ups]
                if not queued:
                    raise _Done
                self._steering.clear()
                self._follow_ups.clear()
                prompt = "\n\n".join(queued)
            context = await self._step(self._prompt_hooks(prompt)) if self.hooks else []
            self._add_user_message(Message(role="user", content=[TextBlock(text=prompt), *context]), "prompt")
            stop_hook_active, continuations = False, 0
            while True:
                if self.config.max_turns is not None and self._turns >= self.config.max_turns:
                    stop = "max_turns"
                    break
                self._turns += 1
                self._emit(TurnStart(session_id=self.session_id, turn=self._turns))
                message = await self._step(self._answer())
                self._add_assistant(message)
                if calls := message.tool_uses:
                    self._calls_in_flight = calls
                    self._dispatcher.finished.clear()
                    results = await self._step(self._dispatcher.run_all(calls))
                    self._calls_in_flight = []
                    self._add(Message(role="user", content=list(results)))
                self._emit(TurnEnd(session_id=self.session_id, turn=self._turns, stop_reason=message.stop_reason or ""))
                if self._deliver(self._steering, "steer") or message.tool_uses:
                    continue
                if self._deliver(self._follow_ups, "follow_up"):
                    continue
                if self.hooks and continuations < MAX_STOP_HOOK_CONTINUATIONS:
                    outcome = await self._step(self.hooks.stop(self.session_id, stop_hook_active))
                    if outcome.decision == "block" and outcome.reason:
                        stop_hook_active, continuations = True, continuations + 1
                        self._add_user_text(f"Stop hook feedback: {outcome.reason}", "hook")
                        continue
                break
        except _Done:
            pass
        except _Cancelled:
            stop = "cancelled"
            self._settle_cancel()
        except _Blocked as exc:
            stop, error = "error", (f"A UserPromptSubmit hook blocked the prompt: {exc}", "hook_blocked")
        except StreamInterruptedError as exc:
            stop, error = "interrupted", (exc.message, exc.kind)
            self._settle_interrupted()
        except ProviderError as exc:  # before any block completed: nothing of the answer is kept
            stop, error = "error", (exc.message, exc.kind)
            self._accumulator = None
        if error is not None:
            self._emit(Error(session_id=self.session_id, message=error[0], kind=error[1]))
        self._emit(
            AgentEnd(
                session_id=self.session_id,
                stop=stop,
                num_turns=self._turns,
                usage=self._run_usage,
                error=error[0] if error else None,
            )
        )
        last = next((m for m in reversed(self.messages) if m.role == "assistant"), None)
        return RunResult(
            session_id=self.session_id,
            stop=stop,
            text=last.text if last else "",
            num_turns=self._turns,
            usage=self._run_usage,
            cost_usd=round(self._run_cost, 6),
            error=error[0] if error else None,
            error_kind=error[1] if error else None,
            duration_ms=round((time.monotonic() - started) * 1000),
            api_duration_ms=round(self._api_seconds * 1000),
        )

    async def _step(self, work: Coroutine[Any, Any, T]) -> T:
        """Run one step as its own task so cancel() can stop it without cancelling the loop itself."""
        if self._cancel_requested:
            work.close()
            raise _Cancelled
        task = asyncio.get_running_loop().create_task(work)
        self._step_task = task
        try:
            return await task
        except asyncio.CancelledError:
            if self._cancel_requested and task.cancelled():
                raise _Cancelled from None
            task.cancel()  # the loop itself is being cancelled: take the step down with it
            raise
        finally:
            self._step_task = None

    async def _answer(self) -> Message:
        """One model call, with the context made to fit first, and once more if the provider says it overflowed."""
        await self._fit_context()
        try:
            return await self._call_model()
        except ContextOverflowError:
            # With no known window, what just overflowed is the best guess at it.
            window = self.window or self.context_tokens
            self._shorten_tool_results(window)
            if not await self._compact("auto", window=window):
                raise
            return await self._call_model()

    async def _call_model(self) -> Message:
        request = ProviderRequest(
            model=self.config.model,
            system=self.config.system_prompt,
            system_volatile=self.config.environment,
            messages=tuple(self.messages),
            tools=self.tools.specs(),
            max_tokens=self.config.max_tokens,
            thinking_budget=self.config.thinking_budget,
        )
        accumulator = self._accumulator = MessageAccumulator()
        session_id, emit = self.session_id, self._emit
        began = time.monotonic()
        try:
            async with aclosing(stream_with_retry(self.provider, request, self.retry)) as stream:
                async for event in stream:
                    kind = type(event)
                    if kind is BlockDelta:
                        block = accumulator.delta(event)
                        if block is None or event.kind == "signature":
                            continue
                        if event.kind == "text":
                            emit(TextDelta(session_id=session_id, index=event.index, text=event.text))
                        elif event.kind == "thinking":
                            emit(ThinkingDelta(session_id=session_id, index=event.index, text=event.text))
                        else:
                            emit(
                                ToolUseDelta(
                                    session_id=session_id,
                                    index=event.index,
                                    tool_call_id=block.tool_id,
                                    name=block.tool_name,
                                    partial_json=event.text,
                                )
                            )
                    elif kind is BlockStart:
                        accumulator.open(event)
                    elif kind is BlockStop:
                        if (finished := accumulator.close(event)) is not None:
                            emit(
                                ContentBlockEnd(
                                    session_id=session_id,
                                    index=event.index,
                                    block=finished,
                                    message_id=accumulator.message_id,
                                )
                            )
                    elif kind is StreamStart:
                        accumulator.start(event)
                        emit(
                            MessageStart(
                                session_id=session_id,
                                message_id=event.message_id,
                                model=event.model,
                                request_id=event.request_id or None,
                            )
                        )
                    elif kind is StreamEnd:
                        accumulator.end(event)
                    elif kind is RetryNotice:
                        accumulator = self._accumulator = MessageAccumulator()
                        emit(
                            Retry(
                                session_id=session_id,
                                attempt=event.attempt,
                                max_attempts=event.max_attempts,
                                delay=event.delay,
                                reason=event.error.message,
                            )
                        )
        finally:
            self._api_seconds += time.monotonic() - began
        return accumulator.message()

    # Context

    def _overhead(self) -> int:
        """Tokens every request carries besides the history: the system prompt and the tool definitions."""
        counter = self.meter.counter
        tools = [
            {"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in self.tools.specs()
        ]
        return (
            counter.count(self.config.system_prompt)
            + counter.count(self.config.environment)
            + counter.count(json.dumps(tools))
        )

    def _context_full(self) -> bool:
        window = self.window
        if not window:
            return False
        tokens = self.context_tokens
        if tokens >= EXACT_COUNT_SHARE * window:
            self.meter.counter.want_exact()  # from here on, estimates decide when to compact: make them exact
        return tokens >= self.config.compact_threshold * window

    async def _fit_context(self) -> None:
        """Before a model call: past the threshold, shorten old tool results; if that is not enough, summarise."""
        if not self.config.auto_compact or not self._context_full():
            return
        if self._shorten_tool_results() and not self._context_full():
            return
        await self._compact("auto")

    def _shorten_tool_results(self, window: int | None = None) -> int:
        """Replace tool results older than the budget (never the latest turn's) with placeholders; how many were."""
        window = window or self.window or UNKNOWN_WINDOW
        latest = next((i for i in range(len(self.messages) - 1, -1, -1) if self.messages[i].role == "assistant"), 0)
        changed = compaction.shorten_tool_results(
            self.messages, int(window * TOOL_RESULTS_SHARE), self.meter.counter, before=latest
        )
        for index, freed in changed:
            self.meter.shrunk(index, freed)
        if changed:
            self._emit(
                Notice(
                    session_id=self.session_id,
                    level="info",
                    message=f"Older tool results in {len(changed)} messages were shortened to save context.",
                )
            )
        return len(changed)

    async def _compact(self, trigger: str, instructions: str | None = None, *, window: int | None = None) -> bool:
        """Summarise all but the recent turns; False if there was nothing to summarise."""
        window = window or self.window or UNKNOWN_WINDOW
        counter = self.meter.counter
        keep = KEEP_SHARE if trigger == "auto" else MANUAL_KEEP_SHARE
        split = compaction.split_index(self.messages, int(window * keep), counter)
        if split is None:
            if trigger == "manual":
                self._warn("There is nothing to compact yet.")
            return False
        pre_tokens = self.context_tokens
        self._emit(CompactionStart(session_id=self.session_id, trigger=trigger, pre_tokens=pre_tokens))  # type: ignore[arg-type]
        if self.hooks:
            await self.hooks.pre_compact(self.session_id, trigger, instructions)
        older, kept = self.messages[:split], self.messages[split:]
        max_tokens = max(256, min(self.config.max_tokens, SUMMARY_MAX_TOKENS, window // 4))
        request, included = compaction.summary_request(
            self.config.model,
            older,
            instructions=instructions,
            max_tokens=max_tokens,
            counter=counter,
            input_budget=int(window * 0.85) - max_tokens,
        )
        summary, usage = "", None
        if included:  # else not even one message fits in a summary request
            began = time.monotonic()
            try:
                summary, usage = await compaction.summarise(self.provider, request, self.retry)
            except ContextOverflowError:  # even the summary does not fit: drop the oldest turns instead, never loop
                pass
            finally:
                self._api_seconds += time.monotonic() - began
        first = compaction.summary_message(summary) if summary else compaction.dropped_message(len(older))
        self.messages[:] = [first, *kept]
        self.meter.recount(self.messages, self._overhead())
        post_tokens = self.context_tokens
        self._emit(CompactionEnd(session_id=self.session_id, summary=first.text, post_tokens=post_tokens, kept=kept))
        if usage is not None:
            self._count_usage(usage, request.model, post_tokens)
        return True

    # History

    def _emit(self, event: Event) -> None:
        self.bus.emit(event)

    def _warn(self, message: str) -> None:
        self._emit(Notice(session_id=self.session_id, level="warning", message=message))

    def _add(self, message: Message) -> None:
        self.messages.append(message)

    def _add_user_text(self, text: str, source: str) -> None:
        self._add_user_message(Message.user(text), source)

    def _add_user_message(self, message: Message, source: str) -> None:
        self._add(message)
        self._emit(UserMessage(session_id=self.session_id, message=message, source=source))  # type: ignore[arg-type]

    async def _prompt_hooks(self, prompt: str) -> list[TextBlock]:
        """SessionStart (once) and UserPromptSubmit: what they add for the model, or _Blocked."""
        assert self.hooks is not None
        context: list[str] = []
        if not self._session_started:
            self._session_started = True
            context += (await self.hooks.session_start(self.session_id, "startup")).context
        outcome = await self.hooks.user_prompt_submit(self.session_id, prompt)
        if outcome.decision == "block":
            raise _Blocked(outcome.reason or "no reason given")
        context += outcome.context
        return [TextBlock(text=text) for text in context]

    def _add_assistant(self, message: Message) -> None:
        self._accumulator = None
        if not message.content:
            return  # nothing to keep (an empty answer, or a cancel before any text)
        self._add(message)
        self._emit(MessageEnd(session_id=self.session_id, message=message))
        if message.usage is not None:
            usage = message.usage
            self.meter.reported(usage.context_tokens + usage.output_tokens, len(self.messages))
            self._count_usage(usage, message.model or self.config.model, self.context_tokens)

    def _count_usage(self, usage: Usage, model: str, context: int) -> None:
        cost = cost_usd(model, usage)
        self.usage, self.cost_usd = self.usage + usage, self.cost_usd + cost
        self._run_usage, self._run_cost = self._run_usage + usage, self._run_cost + cost
        window = self.window
        self._emit(
            UsageUpdate(
                session_id=self.session_id,
                usage=usage,
                total=self.usage,
                cost_usd=round(self.cost_usd, 6),
                context_tokens=context,
                context_percent=round(100 * context / window, 1) if window else None,
            )
        )

    def _deliver(self, queue: list[str], source: str) -> bool:
        if not queue:
            return False
        texts, queue[:] = list(queue), []
        for text in texts:
            self._add_user_text(text, source)
        return True

    def _settle_cancel(self) -> None:
        """After a cancel: keep what streamed, answer every tool call, and tell the model it was interrupted."""
        if self._accumulator is not None:  # cancelled while the model was answering
            partial = self._accumulator.message(stop_reason="cancelled", keep_partial_text=True)
            self._add_assistant(partial)
            self._answer_calls(partial, INTERRUPTED)
            self._add_user_text(INTERRUPTED_BY_USER, "interrupt")
        elif self._calls_in_flight:  # cancelled while tools ran
            self._dispatcher.interrupt_running()
            finished = self._dispatcher.finished
            results = [finished.get(call.id) or _error_result(call.id, INTERRUPTED) for call in self._calls_in_flight]
            self._calls_in_flight = []
            self._add(Message(role="user", content=list(results)))
            self._add_user_text(INTERRUPTED_FOR_TOOL_USE, "interrupt")

    def _settle_interrupted(self) -> None:
        """After a stream broke mid-answer: keep the completed blocks; their tool calls are not run."""
        if self._accumulator is not None:
            partial = self._accumulator.message(stop_reason="interrupted")
            self._add_assistant(partial)
            self._answer_calls(partial, "Not run: the response was cut off before this call could run.")

    def _answer_calls(self, partial: Message, reason: str) -> None:
        """Give each tool call of a message that will not run an error result, so the history stays valid."""
        if partial.tool_uses:
            self._add(Message(role="user", content=[_error_result(call.id, reason) for call in partial.tool_uses]))


def _error_result(tool_use_id: str, text: str) -> ToolResultBlock:
    return ToolResultBlock(tool_use_id=tool_use_id, content=text, is_error=True)


class Run:
    """A run in progress: an async iterator of its events (ending with AgentEnd) and the controls for it."""

    def __init__(self, agent: Agent, task: asyncio.Task[RunResult], subscription: Subscription) -> None:
        self._agent = agent
        self._task = task
        self._subscription = subscription
        self.session_id = agent.session_id

    def __aiter__(self) -> AsyncIterator[Event]:
        return self._events()

    async def _events(self) -> AsyncIterator[Event]:
        try:
            async for event in self._subscription:
                yield event
                if isinstance(event, AgentEnd):
                    return
        finally:
            self._subscription.close()

    async def result(self) -> RunResult:
        try:
            return await self._task
        finally:
            self._subscription.close()

    def respond_permission(self, request_id: str, decision: PermissionDecision) -> bool:
        return self._agent.respond_permission(request_id, decision)

    def inject(self, text: str) -> None:
        self._agent.inject(text)

    def follow_up(self, text: str) -> None:
        self._agent.follow_up(text)

    def cancel(self) -> None:
        self._agent.cancel()
