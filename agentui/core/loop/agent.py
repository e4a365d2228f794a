"""The agent loop: prompt -> provider stream -> tool calls -> repeat, with steering, follow-ups and cancel.

Every step that can take time (a model call, a batch of tool calls) runs as its own task, so `cancel()` stops it
at once; the history is then repaired so every tool_use has its tool_result, and the run ends as "cancelled".
What is not the loop lives beside it: one model call (ModelCall), keeping to the window (Compactor), what it cost
(Ledger).
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentui.core.context.compaction import Compactor
from agentui.core.context.history import History
from agentui.core.events import (
    AgentEnd,
    AgentStart,
    Error,
    MessageEnd,
    Notice,
    PermissionDecision,
    RunStop,
    TurnEnd,
    TurnStart,
    UserMessage,
    UserSource,
)
from agentui.core.extend.hooks import PromptBlocked, stop_feedback
from agentui.core.loop.accounting import Ledger
from agentui.core.loop.agent_config import AgentConfig
from agentui.core.loop.blackboard import Member, seat
from agentui.core.loop.budget import Budget
from agentui.core.loop.dispatch import INTERRUPTED, ToolDispatcher
from agentui.core.loop.doom_loop import LoopStopped
from agentui.core.loop.inbox import Inbox
from agentui.core.loop.loop_ids import LoopIds
from agentui.core.loop.model_call import ModelCall
from agentui.core.loop.prompt_message import prompt_message
from agentui.core.loop.result_cache import ResultCache
from agentui.core.loop.routing import Router
from agentui.core.loop.run import Run, RunResult
from agentui.core.loop.services import Services
from agentui.core.loop.steps import Cancelled, Steps
from agentui.core.loop.stop_failure import stop_failure
from agentui.core.messages import (
    INTERRUPTED_BY_USER,
    INTERRUPTED_FOR_TOOL_USE,
    ImageBlock,
    Message,
    ToolUseBlock,
)
from agentui.core.providers.base import ContextOverflowError, ProviderError, StreamInterruptedError
from agentui.core.session.redact import redact_text

log = logging.getLogger(__name__)

MAX_STOP_HOOK_CONTINUATIONS = 8
"""A Stop hook that keeps saying "not done" gets this many extra turns, so a buggy one cannot loop forever."""


@dataclass(frozen=True)
class Lineage:
    """What a spawned agent shares with the one it came from: the budget its spending counts against (one pool),
    and for a sub-agent the ledger that counts its calls too and the prompt its lines carry; its blackboard seat."""

    budget: Budget
    ledger: Ledger | None = None
    prompt_id: str | None = None
    member: Member | None = None
    parent_loop_id: str | None = None


class Agent:
    """Runs conversations with one provider and one tool set. One run at a time; the history persists across runs."""

    def __init__(
        self,
        config: AgentConfig,
        services: Services,
        history: History | None = None,
        *,
        session_id: str | None = None,
        lineage: Lineage | None = None,
    ) -> None:
        self.config, self.services = config, services
        self.history = history or History()
        self.bus = services.bus
        self.session_id = session_id or str(uuid.uuid4())
        if services.hooks is not None:  # (and the memory its InstructionsLoaded reports, a sub-agent's too)
            services.hooks.notify, services.hooks.memory = self.warn, services.memory or services.hooks.memory
        self.children: list[Agent] = []
        """Sub-agents running now (the Task tool's): their permission questions are answered through this agent."""
        self.router = services.router or Router(services.provider)
        self.budget = Budget()
        """This run's spending against its limits; a sub-agent's is its parent's (one pool)."""
        self.lineage, self.loops = lineage, LoopIds(lineage.parent_loop_id if lineage is not None else None)
        """Set on a spawned agent: the budget pool it spends from, and a sub-agent's parent ledger and prompt."""
        self.prompt_id: str | None = None
        """The prompt being answered (Claude Code's promptId): on its user lines and in every hook's input."""
        self.ledger = Ledger(self.session_id, self.bus.emit, lineage.ledger if lineage is not None else None)
        self.ledger.on_spend = lambda usage, cost: self.budget.spend(usage, cost)
        self.compactor = Compactor(self.history, self)
        self.compactor.recount()
        self.history.seed()
        self.results = ResultCache(lambda: self.history.generation, services.quiet)
        """Repeated read-only calls answered from results the model already holds."""
        self.member = seat(lineage.member if lineage else None, self.bus, self.session_id, config.cwd)
        self._dispatcher = ToolDispatcher(
            services.tools, services.gate, self.bus.emit, session_id=self.session_id, cwd=config.cwd,
            hooks=services.hooks, memory=services.memory, cache=self.results, notices=services.notices,
            member=self.member,
        )  # fmt: skip
        self.inbox = Inbox()
        self._session_started = False
        self._task: asyncio.Task[RunResult] | None = None
        self._steps = Steps()
        self._call: ModelCall | None = None
        self._calls_in_flight: list[ToolUseBlock] = []
        self._turns = 0

    @property
    def messages(self) -> list[Message]:
        return self.history.messages

    def on_write(self, callback: Callable[[str, Path], None]) -> None:
        """`callback(tool_call_id, path)` before an allowed call changes a file (the file history backs it up)."""
        self._dispatcher.before_write = callback

    def back_up_into(self, parent: Agent) -> None:
        """A sub-agent's changes are backed up into its parent's session (a rewind of that prompt undoes them)."""
        self._dispatcher.before_write = parent._dispatcher.before_write
        self._dispatcher.before_shell = parent._dispatcher.before_shell

    def on_shell(self, callback: Callable[[str, str], Awaitable[None]]) -> None:
        """`await callback(tool_call_id, command)` before an allowed shell command runs (a snapshot is taken)."""
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

    def inject(self, text: str, images: Sequence[ImageBlock] = (), *, with_tool_results: bool = False) -> None:
        """Steer: `text` and `images` follow the current tool calls (`with_tool_results`: only some; else `unsent`)."""
        self.inbox.steer(text, images, with_tool_results=with_tool_results)

    def follow_up(self, text: str) -> None:
        """Queue `text` as the next prompt once the model ends its turn."""
        self.inbox.follow_up(text)

    def add_context(self, text: str) -> None:
        """A user message between runs (a command's output, a note): seen with the next prompt, and recorded."""
        if self.running:
            self.inject(text)
        else:
            self._add_user(Message.user(text), "context")

    def respond_permission(self, request_id: str, decision: PermissionDecision) -> bool:
        if self._dispatcher.respond_permission(request_id, decision):
            return True
        return any(child.respond_permission(request_id, decision) for child in list(self.children))

    def cancel(self, *, time_up: bool = False) -> None:
        """Stop the running step now; the run ends "cancelled" ("max_duration" when its time limit is `time_up`)."""
        if self.running:
            self._steps.cancel(time_up=time_up)

    def warn(self, message: str) -> None:
        self.bus.emit(Notice(session_id=self.session_id, level="warning", message=message))

    @property
    def window(self) -> int | None:
        """The model's context window in tokens, if known."""
        return self.compactor.window()

    @property
    def context_tokens(self) -> int:
        return self.history.tokens()

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
        self._steps.begin()
        self._turns = 0
        self.ledger.start_run()
        self.budget = self.lineage.budget if self.lineage else self.config.budget(self.services.round_cost)
        provider, ids = self.services.provider.name, self.loops.begin(compacting=prompt is None)
        self.bus.emit(AgentStart(session_id=self.session_id, model=self.config.model, provider=provider, **ids))
        stop: RunStop = "end_turn"
        error: tuple[str, str] | None = None  # (one sentence, kind)
        deadline = self.budget.deadline(lambda: self.cancel(time_up=True))
        try:
            if prompt is None:  # /compact, then whatever was sent meanwhile (if anything)
                await self._steps.run(self.compactor.compact("manual", instructions))
                prompt, sent_images = self.inbox.everything()
                images = [*images, *sent_images]
            if prompt is not None:
                stop = await self._loop(prompt, images)
        except Cancelled:
            stop = "max_duration" if self._steps.time_up else "cancelled"
            self._settle_cancel()
        except (PromptBlocked, LoopStopped) as exc:  # (a hook's refusal, a custom command's, a doom loop's stop)
            stop, error = "error", exc.said()
        except StreamInterruptedError as exc:
            stop, error = "interrupted", (exc.message, exc.kind)
            self._settle_interrupted()
        except Exception as exc:  # the provider's, before any block completed (nothing is kept), or a bug's
            stop, error = "error", _failed(exc)  # (either way the run ends: no front end waits for ever)
            self._call = None
        finally:
            if deadline is not None:
                deadline.cancel()
        await stop_failure(self.services.hooks, self.session_id, error)
        return self._finish(stop, error, started)

    async def _loop(self, prompt: str, images: Sequence[ImageBlock] = ()) -> RunStop:
        first, self._session_started = not self._session_started, True
        inherited = self.lineage.prompt_id if self.lineage is not None else None
        self.prompt_id = inherited or str(uuid.uuid4())
        hooks = self.services.hooks
        if hooks:
            hooks.prompt_id = self.prompt_id  # (each hook of this prompt's run tells it, as Claude Code's)
        message = await self._steps.run(prompt_message(self, prompt, images, first=first))
        self._add_user(message, "prompt")
        stop_hook_active, continuations = False, 0
        while True:
            if self.config.max_turns is not None and self._turns >= self.config.max_turns:
                return "max_turns"
            if (exhausted := self.budget.exhausted()) is not None:
                return exhausted
            if (advice := self.budget.advisory()) is not None:  # (for the model, and the person as a notice)
                self.history.remind(advice)
                self.warn(advice.removeprefix("<system-reminder>").removesuffix("</system-reminder>"))
            self._turns += 1
            self.bus.emit(TurnStart(session_id=self.session_id, turn=self._turns))
            message = await self._steps.run(self._answer())
            self._add_assistant(message)
            if calls := message.tool_uses:
                self._calls_in_flight = calls
                self._dispatcher.finished.clear()
                results = await self._steps.run(self._dispatcher.run_all(calls))
                self._calls_in_flight = []
                self.messages.append(Message(role="user", content=list(results)))
            self.bus.emit(TurnEnd(session_id=self.session_id, turn=self._turns, stop_reason=message.stop_reason or ""))
            self.member.check()  # (the same call failed too often, here or in another agent of this run)
            if message.tool_uses and self._dispatcher.refused:  # (a plain No: Claude Code's turn ends there too)
                self._add_user(Message.user(INTERRUPTED_FOR_TOOL_USE), "interrupt")
                return "cancelled"
            if message.tool_uses and self._dispatcher.halted:  # (a hook's `continue: false`: no more model calls)
                return "end_turn"
            if self._deliver(self.inbox.steering(tool_results=bool(calls)), "steer") or calls:
                continue
            if self._deliver(self.inbox.follow_ups(), "follow_up"):
                continue
            if hooks and self.lineage is None and continuations < MAX_STOP_HOOK_CONTINUATIONS:  # (not a sub-agent's)
                outcome = await self._steps.run(hooks.stop(self.session_id, stop_hook_active))
                if outcome.decision == "block" and outcome.reason:
                    stop_hook_active, continuations = True, continuations + 1
                    self._add_user(Message.user(stop_feedback(outcome)), "hook")
                    continue
            return "end_turn"

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
                request = self.config.request(self.messages, self.services.tools)
                provider, request = self.router.round(request, self._turns, self.messages, root=self.lineage is None)
                with self.ledger.waiting():
                    return await self._call.run(provider or self.services.provider, request, self.services.retry)
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
        end = AgentEnd(
            session_id=self.session_id,
            stop=stop,
            num_turns=self._turns,
            usage=self.ledger.run_usage,
            error=message,
            unsent=self.inbox.take_steering(),
            **self.loops.ids(),
        )
        self.bus.emit(end)
        return RunResult.of(end, self.history.last_answer(), kind, self.ledger, started)

    # History

    def _add_user(self, message: Message, source: UserSource) -> None:
        self.messages.append(message)
        self.bus.emit(UserMessage(session_id=self.session_id, message=message, source=source, prompt_id=self.prompt_id))

    def _add_assistant(self, message: Message) -> None:
        self._call = None
        if not message.content:
            return  # nothing to keep (an empty answer, or a cancel before any text)
        self.history.answered(message)
        self.bus.emit(MessageEnd(session_id=self.session_id, message=message))
        if (usage := message.usage) is not None:
            model = message.model or self.config.model
            self.ledger.record(usage, model, context_tokens=self.context_tokens, window=self.window)

    def _deliver(self, messages: list[Message], source: UserSource) -> bool:
        for message in messages:
            self._add_user(message, source)
        return bool(messages)

    def _settle_cancel(self) -> None:
        """After a cancel: keep what streamed, answer every tool call, and tell the model it was interrupted."""
        if self._call is not None:  # cancelled while the model was answering
            partial = self._call.partial("cancelled", keep_partial_text=True)
            self._add_assistant(partial)
            self.history.not_run(partial, INTERRUPTED)
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
            self.history.not_run(partial, "Not run: the response was cut off before this call could run.")


def _failed(exc: Exception) -> tuple[str, str]:
    """What ended a run: a provider's error as it says it, anything else (a bug) as one sentence, and in the log."""
    if isinstance(exc, ProviderError):  # (redacted: a server's words may quote a credential back)
        return redact_text(exc.message), exc.kind
    log.error("the run failed", exc_info=exc)
    said = redact_text((str(exc).strip().splitlines() or [""])[0][:200])
    return f"agentui failed: {type(exc).__name__}" + (
        f": {said}" if said else ""
    ) + " (the debug log has more).", "internal"
