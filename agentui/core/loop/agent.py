"""The agent loop: prompt -> provider stream -> tool calls -> repeat, with steering, follow-ups and cancel.

Every step that can take time (a model call, a batch of tool calls) runs as its own task, so `cancel()` stops it
at once; the history is then repaired so every tool_use has its tool_result, and the run ends as "cancelled".
What is not the loop lives beside it: one model call (ModelCall), keeping to the window (Compactor), what it cost
(Ledger).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from agentui.core.context.compaction import Compactor
from agentui.core.context.memory import MemoryLoader
from agentui.core.context.window import ContextMeter, TokenCounter
from agentui.core.events import (
    AgentEnd,
    AgentStart,
    Error,
    EventBus,
    MessageEnd,
    Notice,
    PermissionDecision,
    RunStop,
    TurnEnd,
    TurnStart,
    UserMessage,
    UserSource,
)
from agentui.core.extend.hooks import Hooks, PromptBlocked
from agentui.core.loop.accounting import Ledger
from agentui.core.loop.agent_config import AgentConfig
from agentui.core.loop.budget import Budget
from agentui.core.loop.dispatch import INTERRUPTED, ToolDispatcher, not_run
from agentui.core.loop.model_call import ModelCall
from agentui.core.loop.result_cache import ResultCache
from agentui.core.loop.routing import Router
from agentui.core.loop.run import Run, RunResult
from agentui.core.messages import (
    INTERRUPTED_BY_USER,
    INTERRUPTED_FOR_TOOL_USE,
    ImageBlock,
    Message,
    TextBlock,
    ToolUseBlock,
)
from agentui.core.providers.base import (
    ContextOverflowError,
    Provider,
    ProviderError,
    StreamInterruptedError,
)
from agentui.core.providers.retry import RetryPolicy
from agentui.core.safety.permissions import KindGate, PermissionGate
from agentui.core.tools.base import ToolRegistry

T = TypeVar("T")

MAX_STOP_HOOK_CONTINUATIONS = 8
"""A Stop hook that keeps saying "not done" gets this many extra turns, so a buggy one cannot loop forever."""


SEED_TOLERANCE = 1.5
"""How much larger than its recorded usage a resumed history may estimate and still be counted from that usage
(estimates are rough; more than this, and the history holds what the model did not see)."""


class _Cancelled(Exception):
    """The person cancelled; raised out of the step that was running."""


@dataclass(frozen=True)
class Lineage:
    """What a spawned agent shares with the one it came from: the budget its spending counts against (one pool),
    and for a sub-agent the ledger that counts its calls too and the prompt its lines carry."""

    budget: Budget
    ledger: Ledger | None = None
    prompt_id: str | None = None


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
        router: Router | None = None,
        reminders: Callable[[], list[str]] = list,
        quiet: Callable[[], bool] = lambda: True,
        lineage: Lineage | None = None,
    ) -> None:
        self.provider, self.config, self.memory = provider, config, memory
        self.tools = tools or ToolRegistry()
        self.bus = bus or EventBus()
        self.session_id = session_id or str(uuid.uuid4())
        self.messages: list[Message] = list(messages or [])
        self.retry = retry or RetryPolicy()
        self.hooks = hooks if hooks else None
        if self.hooks is not None:
            self.hooks.notify = self.warn
        self.gate = gate or KindGate()
        self.children: list[Agent] = []
        """Sub-agents running now (the Task tool's): their permission questions are answered through this agent."""
        self.router = router or Router(provider)
        """Where each kind of model call besides the loop's goes (the config's routes; none by default)."""
        self.budget = Budget()
        """This run's spending against its limits; a sub-agent's is its parent's (one pool)."""
        self.shared_budget = lineage.budget if lineage is not None else None
        """Set on a sub-agent: the parent's budget, which its spending counts against."""
        self.prompt_id: str | None = None
        """The prompt being answered (Claude Code's promptId): on its user lines and in every hook's input."""
        self.inherited_prompt_id = lineage.prompt_id if lineage is not None else None
        """A sub-agent's: its parent's prompt id, which its lines and hooks carry instead of one of their own."""
        self.ledger = Ledger(self.session_id, self.bus.emit, lineage.ledger if lineage is not None else None)
        self.ledger.on_spend = lambda usage, cost: self.budget.spend(usage, cost)
        self.compactor = Compactor(self, ContextMeter(counter or TokenCounter()))
        self.compactor.recount()
        self._seed_meter()
        self.results = ResultCache(lambda: self.compactor.generation, quiet)
        """Repeated read-only calls answered from results the model already holds."""
        self._dispatcher = ToolDispatcher(
            self.tools,
            self.gate,
            self.bus.emit,
            session_id=self.session_id,
            cwd=config.cwd,
            hooks=self.hooks,
            memory=memory,
            cache=self.results,
        )
        self.reminders = reminders
        """Notes for the model added to each prompt (plan mode's), as Claude Code's system reminders."""
        self._session_started = False
        self._steering: list[str] = []
        self._steering_images: list[ImageBlock] = []
        """Images pasted into steering messages: they go with the next of them delivered."""
        self._follow_ups: list[str] = []
        self._task: asyncio.Task[RunResult] | None = None
        self._step_task: asyncio.Task[Any] | None = None
        self._cancel_requested = False
        self._time_up = False
        """The run's time budget ran out: its cancel ends it "max_duration", not "cancelled"."""
        self._call: ModelCall | None = None
        self._calls_in_flight: list[ToolUseBlock] = []
        self._turns = 0

    def on_write(self, callback: Callable[[str, Path], None]) -> None:
        """`callback(tool_call_id, path)` before a tool changes a file, once its call is allowed (the file
        history backs the file up then)."""
        self._dispatcher.before_write = callback

    def back_up_into(self, parent: Agent) -> None:
        """A sub-agent's changes are backed up as its parent's are, into the parent's session: a rewind of the
        parent's prompt undoes what the sub-agent did for it."""
        self._dispatcher.before_write = parent._dispatcher.before_write
        self._dispatcher.before_shell = parent._dispatcher.before_shell

    def _seed_meter(self) -> None:
        """A resumed history's context, as Claude Code counts it: the usage recorded with its last answer (and an
        estimate of what came after), not an estimate of the whole. Unless the history estimates far larger than
        that usage: then it holds what the model did not see (results a session shortened in memory and wrote in
        full), and it is counted as it will be sent."""
        for index in range(len(self.messages) - 1, -1, -1):
            usage = self.messages[index].usage
            tokens = usage.total_tokens if usage is not None else 0
            if self.messages[index].role == "assistant" and tokens > 0:
                meter = self.compactor.meter
                estimated = meter.tokens(self.messages) - meter.counter.messages(self.messages[index + 1 :])
                if estimated <= tokens * SEED_TOLERANCE:
                    meter.reported(tokens, index + 1)
                return

    def use_hooks(self, hooks: Hooks) -> None:
        """Hooks added after the agent was made (an SDK program's callbacks): its calls and prompts run them now."""
        self.hooks = hooks if hooks else None
        if self.hooks is not None:
            self.hooks.notify = self.warn
        self._dispatcher.hooks = self.hooks

    def on_shell(self, callback: Callable[[str, str], Awaitable[None]]) -> None:
        """`await callback(tool_call_id, command)` before a shell command runs, once its call is allowed (the work
        tree is snapshotted then)."""
        self._dispatcher.before_shell = callback

    # Control, from any front end

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self, prompt: str) -> Run:
        """Start a run and return its handle: iterate it for events, await `result()` for the outcome."""
        task = self._launch(self._run(prompt))  # first, so a refused start leaves no subscription behind
        return Run(self, task, self.bus.subscribe())

    async def prompt(self, prompt: str, images: Sequence[ImageBlock] = ()) -> RunResult:
        """Run to the end and return the result (observe through `bus` meanwhile). `images` go with the prompt."""
        return await self._launch(self._run(prompt, images=images))

    async def compact(self, instructions: str | None = None) -> RunResult:
        """Summarise the history now (`/compact`), as a run of its own: cancellable, and reported by its events."""
        return await self._launch(self._run(None, instructions))

    def inject(self, text: str, images: Sequence[ImageBlock] = ()) -> None:
        """Steer: deliver `text` (and `images`) after the current tool calls, before the model is called again."""
        self._steering.append(text)
        self._steering_images.extend(images)

    def follow_up(self, text: str) -> None:
        """Queue `text` as the next prompt once the model ends its turn."""
        self._follow_ups.append(text)

    def add_context(self, text: str) -> None:
        """Add a user message between runs (a shell command's output, a note): the model sees it with the next
        prompt, and the session records it."""
        if self.running:
            self.inject(text)
        else:
            self._add_user(Message.user(text), "context")

    def respond_permission(self, request_id: str, decision: PermissionDecision) -> bool:
        if self._dispatcher.respond_permission(request_id, decision):
            return True
        return any(child.respond_permission(request_id, decision) for child in list(self.children))

    def new_budget(self) -> Budget:
        """A fresh pool with this agent's limits, for a run (and the sub-agents or attempts it shares with)."""
        config = self.config
        return Budget(config.max_budget_usd, config.max_total_tokens, config.max_seconds)

    def cancel(self) -> None:
        """Stop the running step (stream or tools) now; the run ends with stop "cancelled"."""
        if not self.running:
            return
        self._cancel_requested = True
        if self._step_task is not None:
            self._step_task.cancel()

    def warn(self, message: str) -> None:
        self.bus.emit(Notice(session_id=self.session_id, level="warning", message=message))

    @property
    def window(self) -> int | None:
        """The model's context window in tokens, if known."""
        return self.compactor.window()

    @property
    def context_tokens(self) -> int:
        return self.compactor.tokens()

    # The loop

    def _launch(self, run: Coroutine[Any, Any, RunResult]) -> asyncio.Task[RunResult]:
        if self.running:
            run.close()
            raise RuntimeError("the agent is already running; inject() or follow_up() instead")
        self._task = asyncio.get_running_loop().create_task(run)
        return self._task

    async def _run(
        self, prompt: str | None, instructions: str | None = None, images: Sequence[ImageBlock] = ()
    ) -> RunResult:
        """A run: answer `prompt`, or (when it is None) compact with `instructions` and then answer whatever was
        sent meanwhile."""
        started = time.monotonic()
        self._cancel_requested, self._turns = False, 0
        self.ledger.start_run()
        self.budget = self.shared_budget or self.new_budget()
        self.bus.emit(AgentStart(session_id=self.session_id, model=self.config.model, provider=self.provider.name))
        stop: RunStop = "end_turn"
        error: tuple[str, str] | None = None  # (one sentence, kind)
        self._time_up = False
        deadline = self._arm_deadline()
        try:
            if prompt is None:  # /compact, then whatever was sent meanwhile (if anything)
                await self._step(self.compactor.compact("manual", instructions))
                images = [*images, *self._steering_images]
                self._steering_images.clear()
                prompt = "\n\n".join([*self._drain(self._steering), *self._drain(self._follow_ups)]) or None
            if prompt is not None:
                stop = await self._loop(prompt, images)
        except _Cancelled:
            stop = "max_duration" if self._time_up else "cancelled"
            self._settle_cancel()
        except PromptBlocked as exc:
            stop, error = "error", (f"A UserPromptSubmit hook blocked the prompt: {exc}", "hook_blocked")
        except StreamInterruptedError as exc:
            stop, error = "interrupted", (exc.message, exc.kind)
            self._settle_interrupted()
        except ProviderError as exc:  # before any block completed: nothing of the answer is kept
            stop, error = "error", (exc.message, exc.kind)
            self._call = None
        finally:
            if deadline is not None:
                deadline.cancel()
        return self._finish(stop, error, started)

    def _arm_deadline(self) -> asyncio.TimerHandle | None:
        """A time budget is a deadline, not only a check before each call: when it passes, whatever runs (a long
        command, a slow answer) is stopped as Esc stops it, and the run ends "max_duration"."""
        budget = self.budget
        if budget.max_seconds is None:
            return None

        def time_up() -> None:
            self._time_up = True
            self.cancel()

        loop = asyncio.get_running_loop()
        return loop.call_at(loop.time() + budget.max_seconds - (time.monotonic() - budget.started), time_up)

    async def _loop(self, prompt: str, images: Sequence[ImageBlock] = ()) -> RunStop:
        first, self._session_started = not self._session_started, True
        self.prompt_id = self.inherited_prompt_id or str(uuid.uuid4())
        if self.hooks:
            self.hooks.prompt_id = self.prompt_id  # (each hook of this prompt's run tells it, as Claude Code's)
        context = await self._step(self.hooks.before_prompt(self.session_id, prompt, first=first)) if self.hooks else []
        self._add_user(
            Message(
                role="user",
                content=[
                    *images,  # (before the text that speaks of them, as the Messages API advises)
                    TextBlock(text=prompt),
                    *(TextBlock(text=text) for text in [*context, *self.reminders()]),
                ],
            ),
            "prompt",
        )
        stop_hook_active, continuations = False, 0
        while True:
            if self.config.max_turns is not None and self._turns >= self.config.max_turns:
                return "max_turns"
            if (exhausted := self.budget.exhausted()) is not None:
                return exhausted
            if (advice := self.budget.advisory()) is not None:
                self._advise(advice)
            self._turns += 1
            self.bus.emit(TurnStart(session_id=self.session_id, turn=self._turns))
            message = await self._step(self._answer())
            self._add_assistant(message)
            if calls := message.tool_uses:
                self._calls_in_flight = calls
                self._dispatcher.finished.clear()
                results = await self._step(self._dispatcher.run_all(calls))
                self._calls_in_flight = []
                self.messages.append(Message(role="user", content=list(results)))
            self.bus.emit(TurnEnd(session_id=self.session_id, turn=self._turns, stop_reason=message.stop_reason or ""))
            if self._deliver(self._steering, "steer") or message.tool_uses:
                continue
            if self._deliver(self._follow_ups, "follow_up"):
                continue
            if self.hooks and continuations < MAX_STOP_HOOK_CONTINUATIONS:
                outcome = await self._step(self.hooks.stop(self.session_id, stop_hook_active))
                if outcome.decision == "block" and outcome.reason:
                    stop_hook_active, continuations = True, continuations + 1
                    self._add_user(Message.user(f"Stop hook feedback: {outcome.reason}"), "hook")
                    continue
            return "end_turn"

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
        await self.compactor.fit()
        try:
            return await self._call_model()
        except ContextOverflowError as overflow:
            if not await self.compactor.recover(overflow.window):
                raise
            return await self._call_model()

    async def _call_model(self) -> Message:
        while True:  # (at most twice: once more on the fallback model, which then is the model)
            self._call = ModelCall(self.session_id, self.bus.emit)
            try:
                with self.ledger.waiting():
                    return await self._call.run(
                        self.provider, self.config.request(self.messages, self.tools), self.retry
                    )
            except ProviderError as exc:
                fallback = self.config.fallback_model
                if exc.kind != "overloaded" or not fallback or fallback == self.config.model:
                    raise
            # (as Claude Code's --fallback-model: the rest of the session goes on with the fallback)
            self.warn(f"{self.config.model} stayed overloaded; going on with {fallback}.")
            self.config = self.config.model_copy(update={"model": fallback})

    def _finish(self, stop: RunStop, error: tuple[str, str] | None, started: float) -> RunResult:
        message, kind = error or (None, None)
        if message is not None:
            self.bus.emit(Error(session_id=self.session_id, message=message, kind=kind or ""))
        usage = self.ledger.run_usage
        self.bus.emit(
            AgentEnd(session_id=self.session_id, stop=stop, num_turns=self._turns, usage=usage, error=message)
        )
        last = next((m for m in reversed(self.messages) if m.role == "assistant"), None)
        return RunResult(
            session_id=self.session_id,
            stop=stop,
            text=last.text if last else "",
            num_turns=self._turns,
            usage=usage,
            cost_usd=round(self.ledger.run_cost, 6),
            error=message,
            error_kind=kind,
            duration_ms=round((time.monotonic() - started) * 1000),
            api_duration_ms=round(self.ledger.api_seconds * 1000),
        )

    def _advise(self, advice: str) -> None:
        """A budget advisory, for the model with the next request (after the newest user message's content), and
        for the person as a notice."""
        last = self.messages[-1] if self.messages else None
        if last is not None and last.role == "user":
            self.messages[-1] = last.model_copy(update={"content": [*last.content, TextBlock(text=advice)]})
        plain = advice.removeprefix("<system-reminder>").removesuffix("</system-reminder>")
        self.bus.emit(Notice(session_id=self.session_id, level="warning", message=plain))

    # History

    def _add_user(self, message: Message, source: UserSource) -> None:
        self.messages.append(message)
        self.bus.emit(UserMessage(session_id=self.session_id, message=message, source=source, prompt_id=self.prompt_id))

    def _add_assistant(self, message: Message) -> None:
        self._call = None
        if not message.content:
            return  # nothing to keep (an empty answer, or a cancel before any text)
        self.messages.append(message)
        self.bus.emit(MessageEnd(session_id=self.session_id, message=message))
        if (usage := message.usage) is not None:
            self.compactor.meter.reported(usage.total_tokens, len(self.messages))
            model = message.model or self.config.model
            self.ledger.record(usage, model, context_tokens=self.context_tokens, window=self.window)

    def _deliver(self, queue: list[str], source: UserSource) -> bool:
        texts = self._drain(queue)
        images = self._steering_images[:] if queue is self._steering else []
        for text in texts:
            self._add_user(Message(role="user", content=[*images, TextBlock(text=text)]), source)
            images = []
        if queue is self._steering:
            self._steering_images.clear()
        return bool(texts)

    @staticmethod
    def _drain(queue: list[str]) -> list[str]:
        texts, queue[:] = list(queue), []
        return texts

    def _settle_cancel(self) -> None:
        """After a cancel: keep what streamed, answer every tool call, and tell the model it was interrupted."""
        if self._call is not None:  # cancelled while the model was answering
            partial = self._call.partial("cancelled", keep_partial_text=True)
            self._add_assistant(partial)
            self._answer_calls(partial, INTERRUPTED)
            self._add_user(Message.user(INTERRUPTED_BY_USER), "interrupt")
        elif self._calls_in_flight:  # cancelled while tools ran
            results = self._dispatcher.interrupt(self._calls_in_flight)
            self._calls_in_flight = []
            self.messages.append(Message(role="user", content=list(results)))
            self._add_user(Message.user(INTERRUPTED_FOR_TOOL_USE), "interrupt")

    def _settle_interrupted(self) -> None:
        """After a stream broke mid-answer: keep the completed blocks; their tool calls are not run."""
        if self._call is not None:
            partial = self._call.partial("interrupted")
            self._add_assistant(partial)
            self._answer_calls(partial, "Not run: the response was cut off before this call could run.")

    def _answer_calls(self, partial: Message, reason: str) -> None:
        """Give each tool call of a message that will not run an error result, so the history stays valid."""
        if partial.tool_uses:
            self.messages.append(Message(role="user", content=[not_run(c.id, reason) for c in partial.tool_uses]))
