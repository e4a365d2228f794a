"""When a rate or usage limit resets, read from a 429 answer's headers and body; None when nothing says (pure).

The forms read (the latest time named wins, since the request needs every limit it hit to have reset):
- `retry-after`: seconds or an HTTP date;
- Anthropic's `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-reset` (RFC 3339) and
  `anthropic-ratelimit-unified-reset` (epoch seconds: Claude Code's subscription limits);
- OpenAI-compatible `x-ratelimit-reset-{requests,tokens}`: durations such as "6m0s", "1.5s", "20ms";
- a JSON body naming the time: an ISO timestamp or an epoch in a `reset*` field, or Claude Code's
  "... usage limit reached|<epoch>" message.
Anything else, garbage included, says nothing: the caller retries as it always has."""

from __future__ import annotations

import email.utils
import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

_ANTHROPIC_RFC3339 = tuple(
    f"anthropic-ratelimit-{name}-reset" for name in ("requests", "tokens", "input-tokens", "output-tokens")
)
_ANTHROPIC_EPOCH = ("anthropic-ratelimit-unified-reset",)
_OPENAI_DURATION = ("x-ratelimit-reset-requests", "x-ratelimit-reset-tokens", "x-ratelimit-reset")

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_USAGE_PIPE = re.compile(r"limit reached\|(\d{9,13})")
_EPOCH_MIN, _EPOCH_MAX = 1_000_000_000, 10_000_000_000  # (2001..2286: a number outside is not an epoch in seconds)
_LATEST = timedelta(days=40)
"""A reset further away than this is taken for garbage, not a time to wait for."""


def limit_resets_at(headers: Mapping[str, str], body: bytes | str, now: datetime | None = None) -> datetime | None:
    """The aware UTC time the limit a 429 answer reports resets, or None when nothing in it says."""
    now = datetime.now(UTC) if now is None else now
    found = [t for t in (*_from_headers(headers, now), _from_body(body, now)) if t is not None]
    found = [t for t in found if now - timedelta(days=1) < t < now + _LATEST]
    return max(found) if found else None


def _from_headers(headers: Mapping[str, str], now: datetime) -> list[datetime | None]:
    lowered = {k.lower(): v for k, v in headers.items()}
    times: list[datetime | None] = [_retry_after(lowered.get("retry-after"), now)]
    times += [_rfc3339(lowered.get(name)) for name in _ANTHROPIC_RFC3339]
    times += [_epoch(lowered.get(name)) for name in _ANTHROPIC_EPOCH]
    times += [_after(_duration(lowered.get(name)), now) for name in _OPENAI_DURATION]
    return times


def _retry_after(value: str | None, now: datetime) -> datetime | None:
    if value is None:
        return None
    try:
        return now + timedelta(seconds=max(0.0, float(value)))
    except (ValueError, OverflowError):
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return when.astimezone(UTC) if when.tzinfo else when.replace(tzinfo=UTC)


def _rfc3339(value: object) -> datetime | None:
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        when = datetime.fromisoformat(value.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return when.astimezone(UTC) if when.tzinfo else when.replace(tzinfo=UTC)


def _epoch(value: object) -> datetime | None:
    if isinstance(value, bool):
        return None
    try:
        seconds = float(value) if isinstance(value, (int, float, str)) else None
    except ValueError:
        return None
    if seconds is None or seconds != seconds:  # (NaN)
        return None
    if seconds >= _EPOCH_MAX * 100:  # milliseconds
        seconds /= 1000
    if not _EPOCH_MIN <= seconds < _EPOCH_MAX:
        return None
    return datetime.fromtimestamp(seconds, UTC)


def _duration(value: str | None) -> float | None:
    """OpenAI's "6m0s", "1.5s", "20ms", "1h2m3s" (or plain seconds) as seconds; None if it is not one."""
    if value is None or not (text := value.strip().lower()):
        return None
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    parts = _DURATION_PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    scale = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
    return sum(float(n) * scale[u] for n, u in parts)


def _after(seconds: float | None, now: datetime) -> datetime | None:
    return None if seconds is None else now + timedelta(seconds=seconds)


def _from_body(body: bytes | str, now: datetime) -> datetime | None:
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    if found := _USAGE_PIPE.search(text):
        return _epoch(found[1])
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return _named_time(data, depth=0)


def _named_time(data: Any, depth: int) -> datetime | None:
    """A time in a field whose name speaks of a reset (resets_at, reset_time, reset...), however deep (a little)."""
    if depth > 4 or not isinstance(data, dict):
        return None
    for key, value in data.items():
        if isinstance(value, dict):
            if (inner := _named_time(value, depth + 1)) is not None:
                return inner
        elif isinstance(key, str) and "reset" in key.lower() and (when := _time_value(value)) is not None:
            return when
    return None


def _time_value(value: object) -> datetime | None:
    """An ISO timestamp or an epoch (a number, or digits in a string)."""
    if isinstance(value, str) and not _numeric(value):
        return _rfc3339(value)
    return _epoch(value)


def _numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
