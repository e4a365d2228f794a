"""A loopback model held by a rate or usage limit: 429s naming the reset in one of the forms servers use, until the
reset has passed, then a real answer."""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from tests.support.loopback import LoopbackServer, RecordedRequest, Reply

LIMITED = {"type": "error", "error": {"type": "rate_limit_error", "message": "Usage limit reached"}}


def _epoch(reset: datetime) -> int:
    return math.ceil(reset.timestamp())


def _left(reset: datetime) -> float:
    return (reset - datetime.now(UTC)).total_seconds()


def _body(**error: object) -> dict[str, object]:
    return {"type": "error", "error": {"type": "rate_limit_error", **error}}


Form = Callable[[datetime], tuple[dict[str, str], dict[str, object]]]
FORMS: dict[str, Form] = {
    "retry-after seconds": lambda r: ({"retry-after": str(math.ceil(_left(r)))}, LIMITED),
    "retry-after date": lambda r: ({"retry-after": email.utils.format_datetime(r, usegmt=True)}, LIMITED),
    "anthropic requests reset": lambda r: ({"anthropic-ratelimit-requests-reset": r.isoformat()}, LIMITED),
    "anthropic tokens reset": lambda r: ({"anthropic-ratelimit-tokens-reset": r.isoformat()}, LIMITED),
    "anthropic input-tokens reset": lambda r: ({"anthropic-ratelimit-input-tokens-reset": r.isoformat()}, LIMITED),
    "anthropic output-tokens reset": lambda r: ({"anthropic-ratelimit-output-tokens-reset": r.isoformat()}, LIMITED),
    "anthropic unified reset": lambda r: ({"anthropic-ratelimit-unified-reset": str(_epoch(r))}, LIMITED),
    "openai duration": lambda r: ({"x-ratelimit-reset-requests": f"{_left(r):.3f}s"}, LIMITED),
    "body timestamp": lambda r: ({}, _body(message="Usage limit reached", resets_at=r.isoformat())),
    "body usage limit": lambda r: ({}, _body(message=f"Claude AI usage limit reached|{_epoch(r)}")),
}


def whole_second(ahead: float) -> datetime:
    """A reset `ahead` seconds or a little more from now, on a whole second (the forms that carry only seconds)."""
    return datetime.fromtimestamp(math.ceil(time.time() + ahead), UTC)


class Limited:
    """The responder of `server`: 429 in `form` until `reset`, then `answer`; it notes when each request came."""

    def __init__(self, server: LoopbackServer, form: str, reset: datetime, answer: list[bytes]) -> None:
        self.form, self.reset, self.answer = form, reset, answer
        self.arrivals: list[datetime] = []
        server.responder = self

    def __call__(self, request: RecordedRequest) -> Reply:
        now = datetime.now(UTC)
        self.arrivals.append(now)
        if now < self.reset:
            headers, body = FORMS[self.form](self.reset)
            return Reply.error(429, body, headers)
        return Reply(chunks=self.answer)

    def early(self) -> int:
        """The requests that came before the reset: the first, and any re-sent too soon."""
        return sum(1 for arrival in self.arrivals if arrival < self.reset)


def within_a_second(found: datetime, expected: datetime) -> bool:
    return abs(found - expected) <= timedelta(seconds=1)
