"""Waiting out a rate or usage limit whose reset is known: whether to wait, the notice of it, and the wait itself."""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Protocol

from agentui.core.providers.base import ProviderError

LongWaitQuestion = Callable[[datetime], Awaitable[bool | None]]
"""Asks the person whether to wait until the given reset time (longer than the wait taken without asking); None when
there is no one to ask."""

_EPOCH_SUFFIX = re.compile(r"\|\d{9,13}")
_JITTER = (0.2, 1.5)
"""Seconds added past the reset, so that many clients held by one limit do not all come back in the same instant."""


class LimitRules(Protocol):
    """What of the retry policy decides a limit wait (`retry.RetryPolicy`)."""

    @property
    def max_retry_after(self) -> float: ...
    @property
    def max_limit_wait(self) -> float: ...
    @property
    def confirm_long_wait(self) -> LongWaitQuestion | None: ...


@dataclass(frozen=True, slots=True)
class LimitWaitNotice:
    """Yielded before a limit is waited out: the reset time (aware UTC), when to send again (a little after it, so
    that clients held by one limit do not all come back at once), and why."""

    until: datetime
    wake: datetime
    reason: str
    provider: str


class LimitTooFarError(ProviderError):
    """The limit resets later than agentui waits without asking, and no one agreed to wait that long."""

    kind = "rate_limit"

    def __init__(self, cause: ProviderError, until: datetime, *, asked: bool) -> None:
        when = until.astimezone().strftime("%Y-%m-%d %H:%M %Z").strip()
        why = "the wait was declined" if asked else "that is longer than agentui waits without asking"
        super().__init__(
            f"{cause.message.rstrip('.')}; the limit resets at {when}, and {why} "
            "(set max_limit_wait_hours to wait longer).",
            status=cause.status,
        )
        self.cause = cause
        self.until = until


async def limit_wait(
    error: ProviderError, until: datetime, rules: LimitRules, provider: str, now: datetime | None = None
) -> LimitWaitNotice | None:
    """The wait for a limit that resets at `until`: None when it is within the ordinary retry window (retry as
    usual); raises LimitTooFarError when the wait is longer than `max_limit_wait` and not agreed to."""
    now = datetime.now(UTC) if now is None else now
    seconds = (until - now).total_seconds()
    if seconds <= rules.max_retry_after:
        return None
    if seconds > rules.max_limit_wait:
        ask = rules.confirm_long_wait
        said = await ask(until) if ask is not None else None
        if not said:
            raise LimitTooFarError(error, until, asked=said is not None) from error
    reason = _EPOCH_SUFFIX.sub("", error.message)  # ("usage limit reached|1764345600": the time is said apart)
    wake = until + timedelta(seconds=random.uniform(*_JITTER))
    return LimitWaitNotice(until=until, wake=wake, reason=reason, provider=provider)


async def sleep_until(notice: LimitWaitNotice) -> None:
    """Sleep until the notice's wake time by the wall clock, in steps, so time a suspended machine slept through
    counts (a monotonic sleep of hours would wake that much later), and time spent answering a question too."""
    while (left := (notice.wake - datetime.now(UTC)).total_seconds()) > 0:  # noqa: ASYNC110 (a clock, not an event)
        await asyncio.sleep(min(left, 30.0))
