"""Retrying a provider stream: jittered exponential backoff that honours retry-after and never re-sends after output."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncGenerator
from dataclasses import dataclass

from agentui.core.providers.base import (
    Provider,
    ProviderError,
    ProviderRequest,
    StreamInterruptedError,
    WaitTooLongError,
)
from agentui.core.providers.limit_wait import LimitWaitNotice, LongWaitQuestion, limit_wait, sleep_until
from agentui.core.providers.stream import BlockStop, ProviderEvent


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 10
    """Attempts in all, the first included, for rate limits, overload, server and network errors."""
    max_connect_attempts: int = 3
    """Attempts when the server cannot be reached at all: a refused connection rarely heals in seconds."""
    max_stall_attempts: int = 2
    """Attempts when the server went silent: each costs a whole idle limit, so one more try is enough."""
    base_delay: float = 0.5
    max_delay: float = 32.0
    max_retry_after: float = 60.0
    """The longest retry-after waited out; a server asking for more ends the request with a sentence saying so."""
    wait_for_limits: bool = False
    """A rate or usage limit that resets later than `max_retry_after` is waited out (`limit_wait.py`), not failed."""
    max_limit_wait: float = 6 * 3600.0
    """The longest such wait taken without asking; `confirm_long_wait` asks for longer ones (none: refused)."""
    confirm_long_wait: LongWaitQuestion | None = None
    max_limit_waits: int = 3
    """Limit waits for one request at most: a server that still says "later" after them is retried as usual."""

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait after failed attempt number `attempt` (1-based)."""
        if retry_after is not None:
            return min(retry_after, self.max_retry_after)
        backoff = min(self.max_delay, self.base_delay * 2.0 ** (attempt - 1))
        return backoff * random.uniform(0.75, 1.0)

    def attempts_for(self, error: ProviderError) -> int:
        if error.kind == "connection":
            return min(self.max_connect_attempts, self.max_attempts)
        if error.kind == "stalled":
            return min(self.max_stall_attempts, self.max_attempts)
        return self.max_attempts


@dataclass(frozen=True, slots=True)
class RetryNotice:
    """Yielded between attempts: the next attempt's number, the limit, the wait, and the error that caused it."""

    attempt: int
    max_attempts: int
    delay: float
    error: ProviderError


async def stream_with_retry(
    provider: Provider, request: ProviderRequest, policy: RetryPolicy
) -> AsyncGenerator[ProviderEvent | RetryNotice | LimitWaitNotice, None]:
    """Stream `request`, retrying retryable failures until a content block has completed.

    After a RetryNotice the consumer must drop whatever partial message it was building. Once a block has
    completed, a failure raises StreamInterruptedError instead: re-sending would duplicate what the person saw.
    Cancelling the consuming task cancels the wait between attempts too.
    """
    attempt, waits = 1, 0
    while True:
        completed = False
        try:
            async for event in provider.stream(request):
                if isinstance(event, BlockStop):
                    completed = True
                yield event
        except ProviderError as error:
            if completed:
                raise StreamInterruptedError(error) from error
            limit = policy.attempts_for(error)
            if not error.retryable or attempt >= limit:
                raise
            if error.resets_at is not None and policy.wait_for_limits and waits < policy.max_limit_waits:
                wait = await limit_wait(error, error.resets_at, policy, provider.name)
                if wait is not None:  # (beyond the retry window: waited out in full, not counted as an attempt)
                    waits += 1
                    yield wait
                    await sleep_until(wait)
                    continue
            if error.retry_after is not None and error.retry_after > policy.max_retry_after:
                raise WaitTooLongError(error, error.retry_after, policy.max_retry_after) from error
            failure = error
            delay = policy.delay(attempt, failure.retry_after)
        else:
            return
        attempt += 1
        yield RetryNotice(attempt=attempt, max_attempts=limit, delay=delay, error=failure)
        await asyncio.sleep(delay)
