"""A limit that resets beyond the retry window is waited out against a real loopback server: one notice naming the
reset, one request sent again after it, and the answer; too long a wait is refused or asked about."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agentui.core.messages import Message
from agentui.core.providers.anthropic import AnthropicProvider
from agentui.core.providers.base import Provider, ProviderRequest, RateLimitError, WaitTooLongError
from agentui.core.providers.limit_wait import LimitTooFarError, LimitWaitNotice
from agentui.core.providers.openai import OpenAIProvider
from agentui.core.providers.retry import RetryNotice, RetryPolicy, stream_with_retry
from agentui.core.providers.stream import BlockDelta
from tests.support.limits import FORMS, Limited, whole_second, within_a_second
from tests.support.loopback import LoopbackServer
from tests.support.sse import anthropic_stream, data_line, openai_chunk

WAITING = RetryPolicy(max_retry_after=0.0, wait_for_limits=True)
"""Every known reset is beyond the window: the short resets of the tests are waited out as a long one would be."""


def _request() -> ProviderRequest:
    return ProviderRequest(model="m", system="", messages=[Message.user("hi")])


async def _stream(provider: Provider, policy: RetryPolicy) -> tuple[list[object], str]:
    seen: list[object] = []
    text = ""
    try:
        async for item in stream_with_retry(provider, _request(), policy):
            if isinstance(item, LimitWaitNotice | RetryNotice):
                seen.append(item)
            elif isinstance(item, BlockDelta) and item.kind == "text":
                text += item.text
    finally:
        await provider.aclose()
    return seen, text


@pytest.mark.parametrize("form", [f for f in FORMS if f != "openai duration"])
async def test_each_anthropic_form_is_waited_out_and_sent_again_once(server: LoopbackServer, form: str) -> None:
    reset = whole_second(2)
    limited = Limited(server, form, reset, anthropic_stream([{"type": "text", "text": "After the reset."}]))
    seen, text = await _stream(AnthropicProvider(api_key="x", base_url=server.url), WAITING)
    [notice] = seen
    assert isinstance(notice, LimitWaitNotice) and notice.provider == "anthropic"
    assert within_a_second(notice.until, reset) and notice.until.tzinfo is not None
    assert "Usage limit reached" in notice.reason or "usage limit reached" in notice.reason
    assert "|" not in notice.reason and notice.wake > notice.until  # (the epoch is said apart; a little after)
    assert text == "After the reset."
    assert len(server.requests) == 2 and limited.early() == 1  # (one request sent again, after the reset)


async def test_an_openai_duration_is_waited_out(server: LoopbackServer) -> None:
    reset = whole_second(2)
    answer = [openai_chunk({"role": "assistant", "content": "Later."}), openai_chunk({}, finish="stop")]
    limited = Limited(server, "openai duration", reset, [*answer, data_line("[DONE]")])
    seen, text = await _stream(OpenAIProvider(api_key="sk", base_url=server.url + "/v1"), WAITING)
    [notice] = seen
    assert isinstance(notice, LimitWaitNotice) and notice.provider == "openai" and within_a_second(notice.until, reset)
    assert text == "Later." and len(server.requests) == 2 and limited.early() == 1


async def test_without_waiting_a_far_reset_is_today_s_behaviour(server: LoopbackServer) -> None:
    Limited(server, "retry-after seconds", whole_second(2), anthropic_stream([{"type": "text", "text": "x"}]))
    with pytest.raises(WaitTooLongError):
        await _stream(AnthropicProvider(api_key="x", base_url=server.url), RetryPolicy(max_retry_after=0.0))
    assert len(server.requests) == 1


async def test_an_overload_is_not_a_limit(server: LoopbackServer) -> None:
    from tests.support.loopback import Reply

    later = str(int((datetime.now(UTC) + timedelta(hours=1)).timestamp()))
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    server.enqueue(
        Reply.error(529, overloaded, {"anthropic-ratelimit-unified-reset": later}),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "Fine."}])),
    )
    seen, text = await _stream(AnthropicProvider(api_key="x", base_url=server.url), RetryPolicy(base_delay=0.01))
    assert [type(s) for s in seen] == [RetryNotice] and text == "Fine."


async def test_a_wait_past_the_maximum_is_refused_or_asked(server: LoopbackServer) -> None:
    reset = whole_second(2)
    Limited(server, "anthropic unified reset", reset, anthropic_stream([{"type": "text", "text": "Asked."}]))
    short = RetryPolicy(max_retry_after=0.0, wait_for_limits=True, max_limit_wait=1.0)
    with pytest.raises(LimitTooFarError) as refused:
        await _stream(AnthropicProvider(api_key="x", base_url=server.url), short)
    assert isinstance(refused.value.cause, RateLimitError) and "the limit resets at" in str(refused.value)
    assert len(server.requests) == 1

    asked: list[datetime] = []

    async def yes(until: datetime) -> bool:
        asked.append(until)
        return True

    _, text = await _stream(
        AnthropicProvider(api_key="x", base_url=server.url),
        RetryPolicy(max_retry_after=0.0, wait_for_limits=True, max_limit_wait=1.0, confirm_long_wait=yes),
    )
    assert text == "Asked." and len(asked) == 1 and within_a_second(asked[0], reset)


async def test_a_limit_that_never_resets_is_waited_for_a_few_times_only(server: LoopbackServer) -> None:
    from tests.support.loopback import RecordedRequest, Reply

    def always_later(request: RecordedRequest) -> Reply:
        later = str(int(whole_second(1).timestamp()))
        return Reply.error(
            429, {"type": "error", "error": {"message": "Limited"}}, {"anthropic-ratelimit-unified-reset": later}
        )

    server.responder = always_later
    policy = RetryPolicy(max_attempts=2, base_delay=0.01, max_retry_after=0.0, wait_for_limits=True, max_limit_waits=2)
    seen: list[object] = []
    provider = AnthropicProvider(api_key="x", base_url=server.url)
    with pytest.raises(RateLimitError):
        async for item in stream_with_retry(provider, _request(), policy):
            seen.append(type(item))
    await provider.aclose()
    assert seen == [LimitWaitNotice, LimitWaitNotice, RetryNotice] and len(server.requests) == 4
