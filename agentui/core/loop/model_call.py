"""One streamed model call: the provider's events become the bus's events (deltas, message start, finished blocks,
retries) as they arrive, and the answer is built up as they go, so what streamed before a cancel can be kept."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import aclosing
from typing import assert_never

from agentui.core.events import (
    ContentBlockEnd,
    Event,
    LimitWait,
    MessageStart,
    Retry,
    TextDelta,
    ThinkingDelta,
    ToolUseDelta,
)
from agentui.core.messages import Message, StopReason
from agentui.core.providers.base import Provider, ProviderRequest
from agentui.core.providers.limit_wait import LimitWaitNotice
from agentui.core.providers.retry import RetryNotice, RetryPolicy, stream_with_retry
from agentui.core.providers.stream import (
    BlockDelta,
    BlockStart,
    BlockStop,
    MessageAccumulator,
    StreamEnd,
    StreamStart,
)


def _ignore(event: Event) -> None:
    return None


class ModelCall:
    def __init__(self, session_id: str, emit: Callable[[Event], None] = _ignore) -> None:
        self.session_id = session_id
        self.emit = emit
        self.accumulator = MessageAccumulator()

    async def run(self, provider: Provider, request: ProviderRequest, retry: RetryPolicy) -> Message:
        """Stream `request` (retrying as `retry` allows) and return the answer; raises ProviderError."""
        session_id, emit = self.session_id, self.emit
        async with aclosing(stream_with_retry(provider, request, retry)) as stream:
            async for event in stream:
                # The hottest match in agentui (every delta passes here): deltas first.
                match event:
                    case BlockDelta():
                        block = self.accumulator.delta(event)
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
                    case BlockStart():
                        self.accumulator.open(event)
                    case BlockStop():
                        if (finished := self.accumulator.close(event)) is not None:
                            emit(
                                ContentBlockEnd(
                                    session_id=session_id,
                                    index=event.index,
                                    block=finished,
                                    message_id=self.accumulator.message_id,
                                )
                            )
                    case StreamStart():
                        self.accumulator.start(event)
                        emit(
                            MessageStart(
                                session_id=session_id,
                                message_id=event.message_id,
                                model=event.model,
                                request_id=event.request_id or None,
                                usage=event.usage,
                            )
                        )
                    case StreamEnd():
                        self.accumulator.end(event)
                    case RetryNotice():  # what streamed of the failed attempt is void
                        self.accumulator = MessageAccumulator()
                        emit(
                            Retry(
                                session_id=session_id,
                                attempt=event.attempt,
                                max_attempts=event.max_attempts,
                                delay=event.delay,
                                reason=event.error.message,
                            )
                        )
                    case LimitWaitNotice():  # (a limit is waited out; then the same request is sent again)
                        self.accumulator = MessageAccumulator()
                        emit(
                            LimitWait(
                                session_id=session_id,
                                until=event.until,
                                reason=event.reason,
                                provider=event.provider,
                            )
                        )
                    case _:
                        assert_never(event)
        return self.accumulator.message()

    def partial(self, stop_reason: StopReason, *, keep_partial_text: bool = False) -> Message:
        """The answer as far as it streamed, for a call that was cancelled or broke off."""
        return self.accumulator.message(stop_reason=stop_reason, keep_partial_text=keep_partial_text)
