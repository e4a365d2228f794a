"""The event union every front end reads, and the EventBus that delivers it (callback, broadcast, run stream)."""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from datetime import datetime
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from agentui.core.messages import ContentBlock, DocumentBlock, ImageBlock, Message, TextBlock, Usage

log = logging.getLogger(__name__)

RunStop = Literal[
    "end_turn", "max_turns", "max_budget", "max_total_tokens", "max_duration", "cancelled", "interrupted", "error"
]
"""Why a run ended: the model finished, a limit was hit (turns, money, tokens, time), the person cancelled, the
stream broke after some content completed, or an error that retrying could not fix."""
PermissionMode = Literal["default", "acceptEdits", "plan", "bypassPermissions"]
"""Claude Code's permission modes: ask for edits and commands, accept edits, change nothing, or ask for nothing."""
RunTrigger = Literal["default", "rerun", "branch", "compact"]
"""Why a run (a loop) started: a new prompt, the last prompt run again, a prompt on a branch from an earlier
message, or /compact."""
UserSource = Literal["prompt", "steer", "follow_up", "interrupt", "hook", "context"]
"""Why a user message joined the history: typed, steered, queued, a cancel, a hook, or context the person added."""


class PermissionDecision(BaseModel):
    """A person's (or a policy's) answer to a permission request."""

    model_config = ConfigDict(frozen=True)

    behavior: Literal["allow", "deny"]
    scope: Literal["once", "session", "always"] = "once"
    message: str | None = None
    """With a deny: what to tell the model instead ("no, and do this instead")."""
    verbatim: bool = False
    """With a deny and a message: the message is all the model reads (an SDK program's callback words it whole,
    as Claude Code passes it on); else it follows agentui's sentence that the call was rejected."""
    interrupt: bool = False
    """With a deny: end the turn there, as a plain No in Claude Code does (the SDK's `interrupt: true`): the model
    is told the call was rejected and is not called again until the person writes."""
    updated_input: dict[str, Any] | None = None
    """With an allow: the arguments the tool runs with instead of the model's (AskUserQuestion's, with the answers)."""
    mode: PermissionMode | None = None
    """With an allow: the permission mode from then on (an approved plan goes on in acceptEdits or default)."""
    changes: tuple[str, ...] | None = None
    """With an allow of a plan that queued changes: the files (`QueuedChange.file_path`) whose changes the person
    chose to apply; None or an empty tuple applies none."""


class QueuedChange(BaseModel):
    """A change the model proposed in plan mode with the change queue on: not made yet, shown with the plan."""

    model_config = ConfigDict(frozen=True)

    file_path: str
    """The resolved path, which a decision's `changes` names."""
    shown: str
    """The path as the person reads it (relative to the project where it is inside)."""
    created: bool
    """The file does not exist yet."""
    patch: list[dict[str, Any]] = Field(default_factory=list)
    """The change as Claude Code's structuredPatch hunks."""
    digest: str = ""
    """The SHA-256 of the content shown: an approval applies that content or nothing."""
    added: int = 0
    removed: int = 0


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True)

    type: str  # narrowed to a Literal by each event; declared here so it leads every JSON line
    session_id: str
    loop_id: str | None = None
    """Which of several parallel attempts emitted it (None: the conversation itself)."""

    def to_json(self) -> str:
        """One compact JSON line, without the fields that are unset (they are None by default)."""
        return self.model_dump_json(exclude_none=True)


class AgentStart(_Event):
    type: Literal["agent_start"] = "agent_start"
    model: str
    provider: str
    run_loop_id: str | None = None
    """This run's loop (`loop_id` names a parallel attempt, for routing its events)."""
    parent_loop_id: str | None = None
    """The loop that started this one (a sub-agent's or an attempt's parent run); None for the conversation's."""
    trigger: RunTrigger = "default"


class AgentEnd(_Event):
    type: Literal["agent_end"] = "agent_end"
    stop: RunStop
    num_turns: int
    usage: Usage
    error: str | None = None
    unsent: list[str] = []
    """Steering sent during the run that it ended before delivering (an interrupt, a refusal, an error): the model
    never read it, so a front end gives it back to the person."""
    run_loop_id: str | None = None
    parent_loop_id: str | None = None


class TurnStart(_Event):
    type: Literal["turn_start"] = "turn_start"
    turn: int


class TurnEnd(_Event):
    type: Literal["turn_end"] = "turn_end"
    turn: int
    stop_reason: str


class PromptRejected(_Event):
    """An input filter rejected the prompt: it was not sent (the run ends with an Error saying so)."""

    type: Literal["prompt_rejected"] = "prompt_rejected"
    reason: str
    filter: str
    """The filter's command."""


class SessionRotated(_Event):
    """--idle-rotate: a prompt came after the conversation sat idle longer than it allows, so the conversation goes
    on in a new session (`new_session_id`), a summary of this one carried over."""

    type: Literal["session_rotated"] = "session_rotated"
    new_session_id: str
    idle_minutes: float
    """How long the conversation had been idle."""


class UserMessage(_Event):
    """A user message entered the history: the prompt, a steering message, a follow-up, or an interrupt marker."""

    type: Literal["user_message"] = "user_message"
    message: Message
    source: UserSource
    prompt_id: str | None = None
    """The prompt whose run this message belongs to."""


class MessageStart(_Event):
    type: Literal["message_start"] = "message_start"
    message_id: str
    model: str
    request_id: str | None = None
    usage: Usage | None = None
    """What the server reported as the answer began (Anthropic's `message_start`: the input tokens)."""


class TextDelta(_Event):
    type: Literal["text_delta"] = "text_delta"
    index: int
    text: str


class ThinkingDelta(_Event):
    type: Literal["thinking_delta"] = "thinking_delta"
    index: int
    text: str


class ToolUseDelta(_Event):
    type: Literal["tool_use_delta"] = "tool_use_delta"
    index: int
    tool_call_id: str
    name: str
    partial_json: str


class ContentBlockEnd(_Event):
    """One content block of the assistant message is complete (a tool pane can show its full arguments)."""

    type: Literal["content_block_end"] = "content_block_end"
    index: int
    block: ContentBlock
    message_id: str


class MessageEnd(_Event):
    """The assistant message is complete and has joined the history."""

    type: Literal["message_end"] = "message_end"
    message: Message


class ToolStart(_Event):
    type: Literal["tool_start"] = "tool_start"
    tool_call_id: str
    name: str
    input: dict[str, Any]


class ToolProgress(_Event):
    type: Literal["tool_progress"] = "tool_progress"
    tool_call_id: str
    text: str


class ToolEnd(_Event):
    type: Literal["tool_end"] = "tool_end"
    tool_call_id: str
    name: str
    content: str | list[Annotated[TextBlock | ImageBlock | DocumentBlock, Field(discriminator="type")]]
    is_error: bool = False
    details: dict[str, Any] = Field(default_factory=dict)
    cached: bool = False
    """Not run: the model was told its earlier, identical call's result is still current."""
    denied: bool = False
    """Refused (a deny rule, the person, a hook): the tool did not run. (`details` says so too, as `denied`, for
    the session's toolUseResult and the programs that read agentui's events.)"""
    context: list[str] = []
    """Texts for the model that follow the result (a skill's instructions): recorded as lines of their own."""


class PermissionRequest(_Event):
    type: Literal["permission_request"] = "permission_request"
    request_id: str
    tool_call_id: str
    tool_name: str
    input: dict[str, Any]
    reason: str
    suggestions: list[str] = Field(default_factory=list)
    """The allow rules a "this session" or "always" answer would add."""
    changes: list[QueuedChange] = Field(default_factory=list)
    """With a plan's approval: the changes the model queued while planning, for the person to apply all, some or
    none of (the decision's `changes`)."""


class PermissionResolved(_Event):
    type: Literal["permission_resolved"] = "permission_resolved"
    request_id: str
    tool_call_id: str
    decision: PermissionDecision


class ModelSpend(BaseModel):
    """One model's share of a session: its tokens (in, cache and out) and their cost at list prices."""

    tokens: int = 0
    cost_usd: float = 0.0


class UsageUpdate(_Event):
    """Token usage of the latest response, the agent's total and its cost, and how full the context window is."""

    type: Literal["usage"] = "usage"
    usage: Usage
    total: Usage
    cost_usd: float
    """The estimated cost of everything so far, at list prices of the models the server reported."""
    context_tokens: int
    context_percent: float | None = None
    model: str | None = None
    """The model that answered this call (it is priced as this model)."""
    call_cost_usd: float = 0.0
    """This call's cost, at that model's list prices."""
    by_model: dict[str, ModelSpend] = Field(default_factory=dict)
    """Every model's share of the session so far (several when calls are routed to several models)."""


class CompactionStart(_Event):
    """The history is about to be summarised: on request (`/compact`) or because the context is full."""

    type: Literal["compaction_start"] = "compaction_start"
    trigger: Literal["manual", "auto"]
    pre_tokens: int
    reason: str = ""
    """Why, in a few words: "context at 92% of 200,000 tokens; compacting 140 older messages"."""


class CompactedResult(BaseModel):
    """A tool result compaction took out of the context: its tool and target, and what became of it."""

    model_config = ConfigDict(frozen=True)

    tool: str
    target: str = ""
    """The file, command or pattern it was about."""
    fate: Literal["dropped", "shortened", "clipped"]
    """Summarised away; left as a one-line placeholder; cut to fit the window."""


class CompactionReport(BaseModel):
    """What a compaction did: what it summarised, what it took out, what it carried verbatim."""

    model_config = ConfigDict(frozen=True)

    messages: int = 0
    turns: int = 0
    """Of the messages summarised, how many were the person's prompts."""
    results: list[CompactedResult] = Field(default_factory=list)
    instructions: list[str] = Field(default_factory=list)
    """The person's standing instructions carried verbatim in the summary."""
    pinned: int = 0


class CompactionEnd(_Event):
    """The history is now the summary (a user message) followed by the recent messages it kept as they were."""

    type: Literal["compaction_end"] = "compaction_end"
    summary: str
    post_tokens: int
    pre_tokens: int = 0
    """The context before, counted as `post_tokens` is (an estimate of the whole request both times, so the two
    compare)."""
    kept: list[Message] = Field(default_factory=list)
    report: CompactionReport | None = None
    """None for a compaction read back from a session file."""


class Retry(_Event):
    """The provider failed in a way worth retrying; the next attempt starts after `delay` seconds.

    Whatever streamed of the failed attempt is void: front ends drop the partial message, and the next
    message_start begins the answer again.
    """

    type: Literal["retry"] = "retry"
    attempt: int
    max_attempts: int
    delay: float
    reason: str


class LimitWait(_Event):
    """A rate or usage limit resets later than the ordinary retry window: the run waits until `until` (aware UTC),
    then sends the same request again by itself. Cancelling the run ends the wait."""

    type: Literal["limit_wait"] = "limit_wait"
    until: datetime
    reason: str
    provider: str


class Error(_Event):
    type: Literal["error"] = "error"
    message: str
    kind: str


class TaskItem(BaseModel):
    """One task of the model's task list (TaskCreate and its family, or a TodoWrite item)."""

    model_config = ConfigDict(frozen=True)

    id: str
    subject: str
    status: Literal["pending", "in_progress", "completed"]
    description: str = ""
    active_form: str | None = None
    owner: str | None = None
    blocks: tuple[str, ...] = ()
    blocked_by: tuple[str, ...] = ()


class TaskListUpdate(_Event):
    """The task list changed: the whole of it, in order."""

    type: Literal["task_list"] = "task_list"
    tasks: list[TaskItem]


class BackgroundShellUpdate(_Event):
    """A background shell started (by the model, or sent there by the person), ended, or was stopped."""

    type: Literal["background_shell"] = "background_shell"
    shell_id: str
    command: str
    description: str | None = None
    status: Literal["running", "completed", "failed", "killed"]
    exit_code: int | None = None
    output_path: str


class BackgroundAgentUpdate(_Event):
    """A sub-agent the model sent to the background (`run_in_background`) waits for a slot, starts, ends or was
    stopped; when it ends, what it answered and what it took."""

    type: Literal["background_agent"] = "background_agent"
    task_id: str
    tool_call_id: str
    description: str
    agent_type: str
    status: Literal["pending", "running", "completed", "failed", "killed"]
    output_path: str
    """Its transcript, "" when none is written."""
    result: str = ""
    error: str | None = None
    total_tokens: int = 0
    tool_uses: int = 0
    duration_ms: int = 0


class Notice(_Event):
    """Something the person should see that does not stop the run: a hook that failed, a skipped setting."""

    type: Literal["notice"] = "notice"
    level: Literal["info", "warning"]
    message: str


class ContextAdvisory(_Event):
    """The context passed `threshold` percent (60 or 80) of the model's window: once each per window fill, so
    again after a compaction. A front end shows it as a one-line notice."""

    type: Literal["context_advisory"] = "context_advisory"
    threshold: int
    context_percent: float
    context_tokens: int


class ElicitationRequest(_Event):
    """An MCP server asks the person for something (an elicitation): `message`, and the fields of
    `requested_schema` to fill in (or, in URL mode, a page to open at `url`). Answered with `Conversation.answer`:
    an allow whose `updated_input` holds the fields accepts, a deny declines, a deny with `interrupt` cancels. A
    front end that does not say it answers them (`Launch.answers_elicitation`) never sees one: they are declined."""

    type: Literal["elicitation_request"] = "elicitation_request"
    request_id: str
    server: str
    message: str
    requested_schema: dict[str, Any] = Field(default_factory=dict)
    url: str | None = None


class FileClaim(_Event):
    """An agent of a conversation with peers (sub-agents, parallel attempts) claimed a file before changing it, waits
    for another's claim on it, was refused it (the model is told who holds it), or let its claims go as it ended."""

    type: Literal["file_claim"] = "file_claim"
    path: str
    """As the agent's working directory names it (parallel attempts' copies claim the same relative path)."""
    agent: str
    state: Literal["claimed", "waiting", "refused", "released"]
    holder: str | None = None
    """The agent holding it, when this one waits or is refused."""


class Finding(_Event):
    """An agent posted a short finding on the blackboard its peers read (the PostFinding tool)."""

    type: Literal["finding"] = "finding"
    agent: str
    text: str


class DoomLoop(_Event):
    """The same failing call (tool, input and error) came again in a run, counted across the agent and its
    sub-agents: at the third the model is nudged with the evidence, at the fourth the run stops."""

    type: Literal["doom_loop"] = "doom_loop"
    agent: str
    tool_name: str
    input: dict[str, Any]
    error: str
    count: int
    action: Literal["nudge", "stop"]
    message: str
    """The nudge the model reads, or the sentence the person sees when the run stops."""


Event = Annotated[
    (
        AgentStart
        | AgentEnd
        | TurnStart
        | TurnEnd
        | UserMessage
        | PromptRejected
        | SessionRotated
        | MessageStart
        | TextDelta
        | ThinkingDelta
        | ToolUseDelta
        | ContentBlockEnd
        | MessageEnd
        | ToolStart
        | ToolProgress
        | ToolEnd
        | PermissionRequest
        | PermissionResolved
        | UsageUpdate
        | CompactionStart
        | CompactionEnd
        | Retry
        | LimitWait
        | Error
        | TaskListUpdate
        | BackgroundShellUpdate
        | BackgroundAgentUpdate
        | Notice
        | ContextAdvisory
        | ElicitationRequest
        | FileClaim
        | Finding
        | DoomLoop
    ),
    Field(discriminator="type"),
]


@cache
def _event_adapter() -> TypeAdapter[Event]:
    return TypeAdapter(Event)


def parse_event(line: str | bytes) -> Event:
    """Rebuild an event from its JSON line (`event.to_json()`)."""
    return _event_adapter().validate_json(line)


# Deltas are the only events a slow subscriber may receive merged; everything else arrives one for one.
Delta = TextDelta | ThinkingDelta | ToolUseDelta


def _delta_text(delta: Delta) -> str:
    return delta.partial_json if isinstance(delta, ToolUseDelta) else delta.text


def _continues(first: Delta, delta: Delta) -> bool:
    return first.type == delta.type and first.index == delta.index


class _Coalesced:
    """Consecutive deltas of one block waiting in a subscriber's queue, joined only when read (linear, not
    quadratic)."""

    __slots__ = ("first", "parts")

    def __init__(self, first: Delta, second: Delta) -> None:
        self.first = first
        self.parts = [_delta_text(first), _delta_text(second)]

    def build(self) -> Delta:
        joined = "".join(self.parts)
        if isinstance(self.first, ToolUseDelta):
            return self.first.model_copy(update={"partial_json": joined})
        return self.first.model_copy(update={"text": joined})


class Subscription:
    """One async subscriber's view of the bus: an async iterator over its own queue.

    The bus never waits for a subscriber. When a subscriber falls behind, text, thinking and tool-input deltas of
    the same block merge in its queue (so it stays short); every other event is kept, in order.
    """

    def __init__(self, bus: EventBus) -> None:
        self._bus = bus
        self._queue: deque[Event | _Coalesced] = deque()
        self._wakeup = asyncio.Event()
        self._closed = False

    def push(self, event: Event) -> None:
        if self._closed:
            return
        match event:
            case TextDelta() | ThinkingDelta() | ToolUseDelta() if self._queue and self._merge(event):
                return  # (the reader was woken for what it merged into)
            case _:
                self._queue.append(event)
                self._wakeup.set()

    def _merge(self, delta: Delta) -> bool:
        """Join `delta` to the deltas of its block if they are last in the queue; False if they are not."""
        last = self._queue[-1]
        if isinstance(last, _Coalesced) and _continues(last.first, delta):
            last.parts.append(_delta_text(delta))
        elif isinstance(last, Delta) and _continues(last, delta):
            self._queue[-1] = _Coalesced(last, delta)
        else:
            return False
        return True

    def pending(self) -> int:
        return len(self._queue)

    def close(self) -> None:
        """Stop receiving; what is already queued can still be read."""
        self._closed = True
        self._bus._unsubscribe(self)
        self._wakeup.set()

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Event:
        while not self._queue:
            if self._closed:
                raise StopAsyncIteration
            self._wakeup.clear()
            await self._wakeup.wait()
        item = self._queue.popleft()
        return item.build() if isinstance(item, _Coalesced) else item


class EventBus:
    """Delivers every event to synchronous callbacks (in order, immediately) and to async subscriptions."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[[Event], None]] = []
        self._subscriptions: list[Subscription] = []

    def on(self, callback: Callable[[Event], None]) -> Callable[[], None]:
        """Call `callback(event)` for every event; returns a function that removes it.

        Callbacks run inside the agent, so they must be quick; one that raises is logged and skipped.
        """
        self._callbacks.append(callback)

        def remove() -> None:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

        return remove

    def subscribe(self) -> Subscription:
        """A new async iterator of events from now on; close() it when done."""
        subscription = Subscription(self)
        self._subscriptions.append(subscription)
        return subscription

    def _unsubscribe(self, subscription: Subscription) -> None:
        if subscription in self._subscriptions:
            self._subscriptions.remove(subscription)

    def emit(self, event: Event) -> None:
        for callback in tuple(self._callbacks):
            try:
                callback(event)
            except Exception:
                log.exception("event callback %r failed on %s", callback, event.type)
        for subscription in tuple(self._subscriptions):
            subscription.push(event)
