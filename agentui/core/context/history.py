"""The conversation as the model is sent it: its messages, and the meter of how much of the window they fill. The
loop adds to it; compaction, rewinds and parallel attempts rewrite it."""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Iterable, Sequence

from agentui.core.context.window import ContextMeter, TokenCounter
from agentui.core.messages import Message, TextBlock, not_run

SEED_TOLERANCE = 1.5
"""How much larger than its recorded usage a resumed history may estimate and still be counted from that usage
(estimates are rough; more than this, and the history holds what the model did not see)."""


class History:
    def __init__(self, messages: Iterable[Message] = (), counter: TokenCounter | None = None) -> None:
        self.messages: list[Message] = list(messages)
        self.meter = ContextMeter(counter or TokenCounter())
        self.generation = 0
        """Bumped whenever messages the model was sent are rewritten (compacted, shortened, rewound, replaced by an
        attempt's): results cached before are no longer all in the context as they were."""
        self._overhead: Callable[[], int] = lambda: 0
        self._times: dict[int, tuple[weakref.ref[Message], float]] = {}
        """When each message joined, by identity (messages equal in value are still two), the message held weakly: one
        the history no longer holds (a compacted turn, a rewound one) is not kept alive by its time, and its entry
        goes with it (issue 34's flat memory: holding them kept every turn's tool output alive)."""
        self.clock: Callable[[], float] = time.time

    def tokens(self) -> int:
        """How many tokens the next request will hold (the provider's count, plus an estimate of what is new)."""
        return self.meter.tokens(self.messages)

    def count_overhead_with(self, overhead: Callable[[], int]) -> None:
        """How many tokens the system prompt and the tools take now (they change: MCP tools join late); the
        compactor of the agent this history is given to knows."""
        self._overhead = overhead

    def recount(self) -> None:
        """Estimate the whole afresh, the system prompt and the tools as they are now: at the start, and after the
        messages were rewritten."""
        self.generation += 1
        self.meter.recount(self.messages, self._overhead())

    def stamp(self) -> None:
        """Note the time of the messages that joined at the end since the last stamp: at each answer, and before
        each model call (the prompts and tool results sent with it). Messages rewritten in place keep no time."""
        now = self.clock()
        for message in reversed(self.messages):
            if self._time_of(message) is not None:
                break
            self._times[id(message)] = (weakref.ref(message, self._forget(id(message))), now)

    def times_of(self, messages: Sequence[Message]) -> list[float | None]:
        """When each of `messages` joined, where known (for compaction's time gaps)."""
        times: list[float | None] = []
        for message in messages:
            times.append(self._time_of(message))
        return times

    def _time_of(self, message: Message) -> float | None:
        entry = self._times.get(id(message))
        return entry[1] if entry is not None and entry[0]() is message else None

    def _forget(self, key: int) -> Callable[[weakref.ref[Message]], None]:
        def gone(ref: weakref.ref[Message]) -> None:
            if (entry := self._times.get(key)) is not None and entry[0] is ref:  # (not a later message's, same id)
                del self._times[key]

        return gone

    def replace(self, messages: Iterable[Message]) -> None:
        """The messages from now on are `messages` (a rewind, an attempt's branch chosen)."""
        self.messages[:] = messages
        self.recount()

    def answered(self, message: Message) -> None:
        """An answer joined the history: the provider's count of its request and the answer, if it gave one."""
        self.messages.append(message)
        self.stamp()
        if (usage := message.usage) is not None:
            self.meter.reported(usage.total_tokens, len(self.messages))

    def remind(self, text: str) -> None:
        """`text` for the model with the next request: after the newest user message's content (if that is the
        newest message)."""
        if self.messages and (last := self.messages[-1]).role == "user":
            self.messages[-1] = last.model_copy(update={"content": [*last.content, TextBlock(text=text)]})

    def not_run(self, answer: Message, reason: str) -> None:
        """The tool calls of `answer` will not run (a cancel, a broken stream): each gets an error result saying
        why, so the history stays valid for the next request."""
        if answer.tool_uses:
            self.messages.append(Message(role="user", content=[not_run(call.id, reason) for call in answer.tool_uses]))

    def seed(self) -> None:
        """A resumed history's context, as Claude Code counts it: the usage recorded with its last answer (and an
        estimate of what came after), not an estimate of the whole. Unless the history estimates far larger than
        that usage: then it holds what the model did not see (results a session shortened in memory and wrote in
        full), and it is counted as it will be sent."""
        for index in range(len(self.messages) - 1, -1, -1):
            usage = self.messages[index].usage
            tokens = usage.total_tokens if usage is not None else 0
            if self.messages[index].role == "assistant" and tokens > 0:
                estimated = self.meter.tokens(self.messages) - self.meter.counter.messages(self.messages[index + 1 :])
                if estimated <= tokens * SEED_TOLERANCE:
                    self.meter.reported(tokens, index + 1)
                return

    def last_answer(self) -> str:
        """The text of the newest answer ("" before any)."""
        return next((m.text for m in reversed(self.messages) if m.role == "assistant"), "")
