"""Which failures are retried, how long the waits are, and what the person is told."""

from __future__ import annotations

import email.utils
import json
import time

import pytest

from agentui.core.messages import Message
from agentui.core.providers import base as errors
from agentui.core.providers.base import ProviderRequest, error_for_status, parse_retry_after
from agentui.core.providers.retry import RetryNotice, RetryPolicy, stream_with_retry
from agentui.core.providers.scripted import ScriptedProvider


def anthropic_error(kind: str, message: str) -> str:
    return json.dumps({"type": "error", "error": {"type": kind, "message": message}})


@pytest.mark.parametrize(
    ("status", "body", "error_type", "retryable", "sentence"),
    [
        (
            401,
            anthropic_error("authentication_error", "invalid x-api-key"),
            errors.AuthenticationError,
            False,
            "The API rejected the API key (401); check KEY: invalid x-api-key.",
        ),
        (
            403,
            anthropic_error("permission_error", "no access to this model"),
            errors.AuthenticationError,
            False,
            "The API refused access (403): no access to this model.",
        ),
        (
            400,
            anthropic_error("invalid_request_error", "max_tokens: must be positive"),
            errors.BadRequestError,
            False,
            "The API rejected the request (400): max_tokens: must be positive.",
        ),
        (
            413,
            anthropic_error("request_too_large", "prompt is too long"),
            errors.ContextOverflowError,
            False,
            "The conversation is too long for the model's context window: prompt is too long.",
        ),
        (
            404,
            '{"error": {"message": "model \'gpt-9\' not found"}}',
            errors.BadRequestError,
            False,
            "The API answered 404 (not found); check the base URL and the model name: model 'gpt-9' not found.",
        ),
        (
            429,
            anthropic_error("rate_limit_error", "slow down"),
            errors.RateLimitError,
            True,
            "The API is rate limiting requests (429): slow down.",
        ),
        (
            529,
            anthropic_error("overloaded_error", "Overloaded"),
            errors.OverloadedError,
            True,
            "The API is overloaded (529): Overloaded.",
        ),
        (
            503,
            "<html>Service Unavailable</html>",
            errors.ServerError,
            True,
            "The API failed with a server error (503): <html>Service Unavailable</html>.",
        ),
        (500, "", errors.ServerError, True, "The API failed with a server error (500)."),
    ],
)
def test_http_errors_are_classified_with_one_sentence(
    status: int, body: str, error_type: type[errors.ProviderError], retryable: bool, sentence: str
) -> None:
    error = error_for_status(status, body, {}, api="The API", key_hint="KEY")
    assert type(error) is error_type
    assert error.retryable is retryable and error.status == status
    assert str(error) == sentence


def test_retry_after_in_seconds_milliseconds_and_http_dates() -> None:
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    in_ten = email.utils.formatdate(time.time() + 10, usegmt=True)
    assert 8 <= parse_retry_after({"retry-after": in_ten}) <= 10  # type: ignore[operator]
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None
    error = error_for_status(429, "", {"retry-after": "7"}, api="The API", key_hint="KEY")
    assert error.retry_after == 7.0


def test_backoff_grows_with_jitter_and_respects_the_caps() -> None:
    policy = RetryPolicy(base_delay=0.5, max_delay=4.0, max_retry_after=60)
    for attempt, full in [(1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (9, 4.0)]:
        delays = {policy.delay(attempt) for _ in range(50)}
        assert all(0.75 * full <= d <= full for d in delays)
        assert len(delays) > 1  # jittered, so many clients do not retry in lockstep
    assert policy.delay(1, retry_after=12) == 12
    assert policy.delay(1, retry_after=3600) == 60


def test_connection_failures_get_fewer_attempts() -> None:
    policy = RetryPolicy(max_attempts=10, max_connect_attempts=3)
    assert policy.attempts_for(errors.ConnectError("refused")) == 3
    assert policy.attempts_for(errors.OverloadedError("busy")) == 10
    assert RetryPolicy(max_attempts=1).attempts_for(errors.ConnectError("refused")) == 1


async def test_non_retryable_errors_are_raised_at_once() -> None:
    provider = ScriptedProvider([{"error": {"status": 400, "message": "bad"}}, {"text": "never reached"}])
    request = ProviderRequest(model="m", system="", messages=[Message.user("hi")])
    seen = []
    with pytest.raises(errors.BadRequestError):
        async for item in stream_with_retry(provider, request, RetryPolicy(base_delay=0.01)):
            seen.append(item)
    assert seen == [] and len(provider.requests) == 1


async def test_retry_notices_count_attempts_up_to_the_limit() -> None:
    overloaded = {"error": {"status": 529, "message": "Overloaded"}}
    provider = ScriptedProvider([overloaded, overloaded, overloaded])
    request = ProviderRequest(model="m", system="", messages=[Message.user("hi")])
    notices = []
    with pytest.raises(errors.OverloadedError):
        async for item in stream_with_retry(provider, request, RetryPolicy(max_attempts=3, base_delay=0.001)):
            if isinstance(item, RetryNotice):
                notices.append((item.attempt, item.max_attempts))
    assert notices == [(2, 3), (3, 3)] and len(provider.requests) == 3
