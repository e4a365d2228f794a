"""When a limit resets, read from each form a 429 answer may say it in; garbage says nothing."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from agentui.core.providers.base import RateLimitError, error_for_status
from agentui.core.providers.limit_reset import limit_resets_at

NOW = datetime(2026, 11, 28, 13, 0, 0, tzinfo=UTC)
LATER = NOW + timedelta(hours=2)


@pytest.mark.parametrize(
    ("headers", "body", "expected"),
    [
        ({"retry-after": "7200"}, "", LATER),
        ({"Retry-After": "Sat, 28 Nov 2026 15:00:00 GMT"}, "", LATER),
        ({"anthropic-ratelimit-requests-reset": "2026-11-28T15:00:00Z"}, "", LATER),
        ({"anthropic-ratelimit-tokens-reset": "2026-11-28T16:00:00+01:00"}, "", LATER),
        ({"anthropic-ratelimit-input-tokens-reset": "2026-11-28T15:00:00Z"}, "", LATER),
        ({"anthropic-ratelimit-output-tokens-reset": "2026-11-28T15:00:00.000Z"}, "", LATER),
        ({"anthropic-ratelimit-unified-reset": str(int(LATER.timestamp()))}, "", LATER),
        ({"x-ratelimit-reset-requests": "2h0m0s"}, "", LATER),
        ({"x-ratelimit-reset-tokens": "120m"}, "", LATER),
        ({"x-ratelimit-reset-tokens": "1.5s"}, "", NOW + timedelta(seconds=1.5)),
        ({"x-ratelimit-reset-requests": "20ms"}, "", NOW + timedelta(milliseconds=20)),
        ({}, json.dumps({"error": {"type": "rate_limit_error", "resets_at": "2026-11-28T15:00:00Z"}}), LATER),
        ({}, json.dumps({"error": {"message": "slow down", "reset_time": int(LATER.timestamp())}}), LATER),
        ({}, json.dumps({"error": {"reset": str(int(LATER.timestamp() * 1000))}}), LATER),
        ({}, f"Claude AI usage limit reached|{int(LATER.timestamp())}", LATER),
        (
            {},
            json.dumps({"error": {"message": f"Claude AI usage limit reached|{int(LATER.timestamp())}"}}),
            LATER,
        ),
    ],
)
def test_each_form_names_the_reset(headers: dict[str, str], body: str, expected: datetime) -> None:
    found = limit_resets_at(headers, body, now=NOW)
    assert found == expected and found.tzinfo is not None


def test_the_latest_of_several_limits_wins() -> None:
    headers = {
        "anthropic-ratelimit-requests-reset": "2026-11-28T13:00:30Z",
        "anthropic-ratelimit-tokens-reset": "2026-11-28T15:00:00Z",
        "retry-after": "30",
    }
    assert limit_resets_at(headers, "", now=NOW) == LATER


@pytest.mark.parametrize(
    ("headers", "body"),
    [
        ({}, ""),
        ({"retry-after": "soon"}, ""),
        ({"retry-after": "Thu, 99 Foo"}, ""),
        ({"anthropic-ratelimit-requests-reset": "tomorrow"}, ""),
        ({"anthropic-ratelimit-unified-reset": "12"}, ""),
        ({"anthropic-ratelimit-unified-reset": "NaN"}, ""),
        ({"anthropic-ratelimit-unified-reset": "99999999999999999999999"}, ""),
        ({"x-ratelimit-reset-tokens": "6 minutes"}, ""),
        ({"x-ratelimit-reset-tokens": "m6s"}, ""),
        ({}, "not json {"),
        ({}, json.dumps({"error": {"resets_at": "whenever"}})),
        ({}, json.dumps({"error": {"resets_at": True}})),
        ({}, json.dumps(["reset", 1])),
        ({}, "usage limit reached|abc"),
        ({"anthropic-ratelimit-requests-reset": "2099-01-01T00:00:00Z"}, ""),  # (years away: not a limit's reset)
        ({"anthropic-ratelimit-requests-reset": "2020-01-01T00:00:00Z"}, ""),  # (long past)
    ],
)
def test_garbage_says_nothing(headers: dict[str, str], body: str) -> None:
    assert limit_resets_at(headers, body, now=NOW) is None


def test_a_429_carries_its_reset_and_an_overload_does_not() -> None:
    soon = (datetime.now(UTC) + timedelta(hours=1)).replace(microsecond=0)
    headers = {"anthropic-ratelimit-unified-reset": str(int(soon.timestamp()))}
    limited = error_for_status(429, "{}", headers, api="The API", key_hint="KEY")
    assert isinstance(limited, RateLimitError) and limited.resets_at == soon
    overloaded = error_for_status(529, '{"error":{"type":"overloaded_error"}}', headers, api="The API", key_hint="K")
    assert overloaded.resets_at is None
