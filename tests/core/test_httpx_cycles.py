"""A closed httpx response lets go of its stream, so that it and its request (with the whole conversation's body) are
freed when the last user drops them, not by the cyclic collector, which the app keeps away from what lived through
its collections (frontends/tui/collector.py). Against a real server on loopback."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from agentui.core.messages import Message
from agentui.core.providers._httpx import httpx, originals
from agentui.core.providers.anthropic import AnthropicProvider
from agentui.core.providers.base import ProviderRequest
from tests.support.collect import collect
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream, recorded


@pytest.fixture
def no_collector() -> Iterator[list[object]]:
    """The collector off; what it would have found, given after the test's `gc.collect()`."""
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield gc.garbage
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def _http(found: list[object]) -> list[str]:
    return [type(thing).__name__ for thing in found if isinstance(thing, (httpx.Request, httpx.Response))]


async def test_a_streamed_answer_leaves_no_request_or_response_for_the_collector(
    server: LoopbackServer, no_collector: list[object]
) -> None:
    provider = AnthropicProvider(api_key="sk-test", base_url=server.url)
    try:
        for _ in range(3):
            server.enqueue(Reply(chunks=recorded("anthropic_text.sse")))
            request = ProviderRequest(model="claude-test", system="terse", messages=[Message.user("x" * 50_000)])
            message = await collect(provider, request)
            assert message.content
    finally:
        await provider.aclose()
    gc.collect()
    assert _http(no_collector) == []


async def test_a_closed_response_is_freed_at_once_and_keeps_what_was_read(
    server: LoopbackServer, no_collector: list[object]
) -> None:
    server.responder = lambda _request: Reply(chunks=anthropic_stream([{"type": "text", "text": "hello"}]))
    async with httpx.AsyncClient() as client:
        async with client.stream("POST", f"{server.url}/v1/messages", content=b"body") as response:
            body = await response.aread()
        assert response.is_closed and response.content == body and b"message_stop" in body
        assert response.elapsed.total_seconds() >= 0  # (set as the stream closed, as before)
        with pytest.raises((httpx.StreamConsumed, httpx.StreamClosed)):  # (as before: it is not read again)
            async for _ in response.aiter_raw():
                pass
        gone = weakref.ref(response)
        del response
        assert gone() is None
        got = await client.post(f"{server.url}/v1/messages", content=b"again")  # (read whole, closed by httpx)
        assert b"message_stop" in got.content
        gone = weakref.ref(got)
        del got
        assert gone() is None


async def test_httpx_s_response_still_holds_itself_through_its_stream_or_this_fix_can_go(
    server: LoopbackServer, no_collector: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(httpx.Response, "aclose", originals["aclose"])
    server.responder = lambda _request: Reply(chunks=anthropic_stream([{"type": "text", "text": "hello"}]))
    async with httpx.AsyncClient() as client:
        async with client.stream("POST", f"{server.url}/v1/messages", content=b"body") as response:
            await response.aread()
        gone = weakref.ref(response)
        del response
        assert gone() is not None, "httpx's Response no longer holds itself: the fix in providers/_httpx.py can go"
