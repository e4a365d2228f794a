"""The Anthropic provider against a real HTTP server on loopback replaying recorded and built SSE streams."""

from __future__ import annotations

import json

import pytest

from agentui.core.events import Retry
from agentui.core.loop.agent import AgentConfig
from agentui.core.messages import Message, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock
from agentui.core.providers import base as errors
from agentui.core.providers.anthropic import AnthropicProvider
from agentui.core.providers.base import ProviderRequest, ToolSpec
from agentui.core.providers.retry import RetryPolicy
from tests.conftest import assert_valid_history
from tests.support.agents import new_agent
from tests.support.collect import collect
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream, event, recorded, recorded_events

FAST = RetryPolicy(base_delay=0.01, max_delay=0.05)
READ_SPEC = ToolSpec("Read", "Read a file.", {"type": "object", "properties": {"file_path": {"type": "string"}}})


def request(**overrides: object) -> ProviderRequest:
    fields: dict[str, object] = {"model": "claude-test", "system": "You are terse.", "messages": [Message.user("hi")]}
    fields.update(overrides)
    return ProviderRequest(**fields)  # type: ignore[arg-type]


@pytest.fixture
async def provider(server: LoopbackServer):
    p = AnthropicProvider(api_key="sk-test", base_url=server.url)
    yield p
    await p.aclose()


async def test_recorded_text_stream(server: LoopbackServer, provider: AnthropicProvider) -> None:
    server.enqueue(Reply(chunks=recorded("anthropic_text.sse")))
    message = await collect(provider, request())
    expected = "".join(
        p["delta"]["text"] for p in recorded_events("anthropic_text.sse") if p["type"] == "content_block_delta"
    )
    assert message.content == [TextBlock(text=expected)]
    assert message.stop_reason == "max_tokens"
    assert (message.usage.input_tokens, message.usage.output_tokens) == (23, 40)
    assert message.id == "chatcmpl-6gCusmlw38tOUeCMnQAL2HMPEecSfz6B"


async def test_recorded_tool_use_with_interleaved_blocks(server: LoopbackServer, provider: AnthropicProvider) -> None:
    # In this recording block 1 (tool_use) starts before block 0 (text) stops.
    server.enqueue(Reply(chunks=recorded("anthropic_tool_use.sse")))
    message = await collect(provider, request(tools=[READ_SPEC]))
    payloads = recorded_events("anthropic_tool_use.sse")
    raw_json = "".join(p["delta"].get("partial_json", "") for p in payloads if p["type"] == "content_block_delta")
    text = "".join(p["delta"].get("text", "") for p in payloads if p["type"] == "content_block_delta")
    assert [type(b) for b in message.content] == [TextBlock, ToolUseBlock]
    assert message.content[0].text == text
    tool = message.tool_uses[0]
    assert (tool.id, tool.name, tool.input) == ("LcIrWuaiFlQWOeEoDHHnfNeQMss0p0LK", "Read", json.loads(raw_json))
    assert tool.input_error is None
    assert message.stop_reason == "tool_use"


async def test_thinking_then_text(server: LoopbackServer, provider: AnthropicProvider) -> None:
    server.enqueue(
        Reply(
            chunks=anthropic_stream(
                [
                    {"type": "thinking", "thinking": "The user greets me; answer briefly.", "signature": "sig-abc"},
                    {"type": "text", "text": "Hello! How can I help?"},
                ]
            )
        )
    )
    message = await collect(provider, request())
    assert message.content == [
        ThinkingBlock(thinking="The user greets me; answer briefly.", signature="sig-abc"),
        TextBlock(text="Hello! How can I help?"),
    ]


async def test_two_parallel_tool_calls_with_arguments_split_across_many_deltas(
    server: LoopbackServer, provider: AnthropicProvider
) -> None:
    calls = [
        {"type": "tool_use", "id": "toolu_a", "name": "Read", "input": {"file_path": "src/app.py", "limit": 40}},
        {"type": "tool_use", "id": "toolu_b", "name": "Grep", "input": {"pattern": "def \\w+\\(", "-n": True}},
    ]
    server.enqueue(Reply(chunks=anthropic_stream(calls, stop_reason="tool_use", pieces=9)))
    message = await collect(provider, request())
    assert [(t.id, t.name, t.input) for t in message.tool_uses] == [(c["id"], c["name"], c["input"]) for c in calls]


async def test_request_shape_headers_and_cache_breakpoints(server: LoopbackServer, provider: AnthropicProvider) -> None:
    server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": "ok"}])))
    history = [
        Message.user("read it"),
        Message(
            role="assistant",
            content=[
                ThinkingBlock(thinking="unsigned"),
                TextBlock(text=""),
                ToolUseBlock(id="t1", name="Read", input={"file_path": "a"}),
            ],
        ),
        Message(role="user", content=[ToolResultBlock(tool_use_id="t1", content="1\tx", is_error=False)]),
        Message.user("and now?"),
    ]
    await collect(provider, request(messages=history, tools=[READ_SPEC, READ_SPEC], max_tokens=123))
    sent = server.requests[0]
    assert sent.path == "/v1/messages"
    assert sent.headers["x-api-key"] == "sk-test"
    assert sent.headers["anthropic-version"] == "2023-06-01"
    assert sent.headers["user-agent"].startswith("agentui/")
    body = sent.json()
    assert body["stream"] is True and body["max_tokens"] == 123 and body["model"] == "claude-test"
    assert body["system"] == [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}]
    assert "cache_control" not in body["tools"][0] and body["tools"][1]["cache_control"] == {"type": "ephemeral"}
    # Unsigned thinking and empty text are not sendable; the two trailing user messages merge into one turn.
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"] == [
        {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "a"}}
    ]
    last = body["messages"][2]["content"]
    assert last[0] == {"type": "tool_result", "tool_use_id": "t1", "content": "1\tx"}
    assert last[1] == {"type": "text", "text": "and now?", "cache_control": {"type": "ephemeral"}}
    breakpoints = json.dumps(body).count('"cache_control"')
    assert breakpoints == 3


async def test_auth_token_is_sent_as_bearer(server: LoopbackServer) -> None:
    server.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": "ok"}])))
    provider = AnthropicProvider(auth_token="tok-1", base_url=server.url + "/")
    await collect(provider, request())
    await provider.aclose()
    assert server.requests[0].headers["authorization"] == "Bearer tok-1"
    assert "x-api-key" not in server.requests[0].headers


async def test_401_is_one_sentence_and_not_retried(server: LoopbackServer, provider: AnthropicProvider) -> None:
    server.enqueue(
        Reply.error(401, {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}})
    )
    agent = new_agent(provider, AgentConfig(model="claude-test"), retry=FAST)
    result = await agent.prompt("hi")
    assert result.stop == "error" and result.error_kind == "authentication"
    assert result.error == "The Anthropic API rejected the API key (401); check ANTHROPIC_API_KEY: invalid x-api-key."
    assert len(server.requests) == 1


async def test_529_then_success_is_retried_with_an_event(server: LoopbackServer, provider: AnthropicProvider) -> None:
    server.enqueue(
        Reply.error(529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        Reply(chunks=recorded("anthropic_text.sse")),
    )
    agent = new_agent(provider, AgentConfig(model="claude-test"), retry=FAST)
    retries: list[Retry] = []
    agent.bus.on(lambda e: retries.append(e) if isinstance(e, Retry) else None)
    result = await agent.prompt("hi")
    assert result.stop == "end_turn" and result.text
    assert len(server.requests) == 2
    assert [(r.attempt, r.max_attempts) for r in retries] == [(2, 10)]
    assert "overloaded" in retries[0].reason.lower()


async def test_429_honours_retry_after(server: LoopbackServer, provider: AnthropicProvider) -> None:
    server.enqueue(
        Reply.error(
            429,
            {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}},
            headers={"retry-after": "0.2"},
        ),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "done"}])),
    )
    agent = new_agent(provider, AgentConfig(model="claude-test"), retry=FAST)
    retries: list[Retry] = []
    agent.bus.on(lambda e: retries.append(e) if isinstance(e, Retry) else None)
    result = await agent.prompt("hi")
    assert result.text == "done"
    assert [r.delay for r in retries] == [0.2]


async def test_gives_up_after_max_attempts(server: LoopbackServer, provider: AnthropicProvider) -> None:
    overloaded = Reply.error(529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    server.enqueue(*[overloaded] * 4)
    agent = new_agent(provider, AgentConfig(model="claude-test"), retry=RetryPolicy(max_attempts=3, base_delay=0.01))
    result = await agent.prompt("hi")
    assert result.stop == "error" and result.error_kind == "overloaded"
    assert len(server.requests) == 3


async def test_cut_after_a_completed_block_keeps_it_and_is_not_resent(
    server: LoopbackServer, provider: AnthropicProvider
) -> None:
    chunks = anthropic_stream(
        [
            {"type": "text", "text": "First part."},
            {"type": "tool_use", "id": "toolu_x", "name": "Read", "input": {"file_path": "x"}},
        ]
    )
    first_stop = next(i for i, c in enumerate(chunks) if b"content_block_stop" in c)
    server.enqueue(Reply(chunks=chunks, cut_after=first_stop + 2))  # dies inside the second block
    agent = new_agent(provider, AgentConfig(model="claude-test"), retry=FAST)
    result = await agent.prompt("hi")
    assert result.stop == "interrupted" and result.error_kind == "interrupted"
    assert result.error.startswith("The response was cut off: the connection to the Anthropic API dropped: ")
    assert len(server.requests) == 1
    assert agent.messages[-1].content == [TextBlock(text="First part.")]
    assert agent.messages[-1].stop_reason == "interrupted"
    assert_valid_history(agent.messages)


async def test_cut_before_any_block_completed_is_retried(server: LoopbackServer, provider: AnthropicProvider) -> None:
    chunks = anthropic_stream([{"type": "text", "text": "Complete answer."}], pieces=3)
    server.enqueue(Reply(chunks=chunks, cut_after=4), Reply(chunks=chunks))
    agent = new_agent(provider, AgentConfig(model="claude-test"), retry=FAST)
    deltas: list[str] = []
    agent.bus.on(lambda e: deltas.append(e.type))
    result = await agent.prompt("hi")
    assert result.stop == "end_turn" and result.text == "Complete answer."
    assert len(server.requests) == 2
    assert "retry" in deltas


async def test_malformed_sse_is_a_clear_error_and_not_retried(
    server: LoopbackServer, provider: AnthropicProvider
) -> None:
    chunks = anthropic_stream([{"type": "text", "text": "abc"}])
    chunks.insert(3, b'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, "delt\n\n')
    server.enqueue(Reply(chunks=chunks))
    agent = new_agent(provider, AgentConfig(model="claude-test"), retry=FAST)
    result = await agent.prompt("hi")
    assert result.stop == "error" and result.error_kind == "protocol"
    assert result.error.startswith("The Anthropic API sent a malformed stream event (content_block_delta:")
    assert len(server.requests) == 1


async def test_llama_cpp_error_event_mid_stream_is_retried(server: LoopbackServer, provider: AnthropicProvider) -> None:
    chunks = anthropic_stream([{"type": "text", "text": "abc"}])
    broken = [*chunks[:3], event("error", {"code": 500, "message": "slot unavailable", "type": "server_error"})]
    server.enqueue(Reply(chunks=broken), Reply(chunks=chunks))
    agent = new_agent(provider, AgentConfig(model="claude-test"), retry=FAST)
    result = await agent.prompt("hi")
    assert result.text == "abc"
    assert len(server.requests) == 2


async def test_overloaded_error_event_mid_stream_is_retried(
    server: LoopbackServer, provider: AnthropicProvider
) -> None:
    chunks = anthropic_stream([{"type": "text", "text": "abc"}])
    overloaded = event("error", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    server.enqueue(Reply(chunks=[*chunks[:2], overloaded]), Reply(chunks=chunks))
    agent = new_agent(provider, AgentConfig(model="claude-test"), retry=FAST)
    assert (await agent.prompt("hi")).text == "abc"


async def test_stream_that_ends_without_message_stop_is_broken(
    server: LoopbackServer, provider: AnthropicProvider
) -> None:
    chunks = anthropic_stream([{"type": "text", "text": "abc"}])
    server.enqueue(Reply(chunks=chunks[:3]))
    with pytest.raises(errors.StreamBrokenError, match="ended the stream before the message was complete"):
        await collect(provider, request())


async def test_prompt_too_long_is_context_overflow(server: LoopbackServer, provider: AnthropicProvider) -> None:
    server.enqueue(
        Reply.error(
            400,
            {
                "type": "error",
                "error": {
                    "type": "invalid_request_error",
                    "message": "prompt is too long: 210000 tokens > 200000 maximum",
                },
            },
        )
    )
    with pytest.raises(errors.ContextOverflowError) as caught:
        await collect(provider, request())
    assert str(caught.value) == (
        "The conversation is too long for the model's context window: "
        "prompt is too long: 210000 tokens > 200000 maximum."
    )


async def test_unreachable_server_is_retried_briefly_then_named(provider: AnthropicProvider) -> None:
    closed = LoopbackServer()
    closed.close()  # nothing listens on this port any more
    agent = new_agent(AnthropicProvider(api_key="x", base_url=closed.url), AgentConfig(model="m"), retry=FAST)
    attempts: list[int] = []
    agent.bus.on(lambda e: attempts.append(e.attempt) if isinstance(e, Retry) else None)
    result = await agent.prompt("hi")
    assert result.stop == "error" and result.error_kind == "connection"
    assert result.error == f"Could not connect to {closed.url}/v1/messages: connection refused; is the server running?"
    assert attempts == [2, 3]


@pytest.mark.parametrize(
    ("model", "effort", "sent", "thinking"),
    [
        ("claude-opus-4-8", "max", "max", {"type": "adaptive"}),
        ("claude-sonnet-5", "xhigh", "xhigh", {"type": "adaptive"}),
        ("claude-sonnet-4-6", "xhigh", "high", {"type": "adaptive"}),  # (it has max, not xhigh)
        ("claude-opus-4-6", "max", "max", {"type": "adaptive"}),
        ("claude-opus-4-5", "max", "high", {"type": "enabled", "budget_tokens": 5000}),  # (low to high only)
        ("claude-opus-4-5", "medium", "medium", {"type": "enabled", "budget_tokens": 5000}),
        ("claude-sonnet-4-5", "high", None, {"type": "enabled", "budget_tokens": 5000}),  # (no effort control)
        ("claude-haiku-4-5-20251001", "low", None, {"type": "enabled", "budget_tokens": 5000}),
        ("us.anthropic.claude-sonnet-4-6", "max", "max", {"type": "adaptive"}),  # (Bedrock's id, the same model)
        ("my-model", "low", "low", {"type": "enabled", "budget_tokens": 5000}),  # (unknown: as asked)
    ],
)
async def test_effort_and_thinking_go_as_claude_code_sends_them(
    server: LoopbackServer,
    provider: AnthropicProvider,
    model: str,
    effort: str,
    sent: str | None,
    thinking: dict[str, object],
) -> None:
    server.enqueue(Reply(chunks=recorded("anthropic_text.sse")))
    await collect(provider, request(model=model, effort=effort, thinking_budget=5000, max_tokens=8000))
    body = server.requests[-1].json()
    betas = server.requests[-1].headers.get("anthropic-beta", "").split(",")
    assert body.get("output_config") == ({"effort": sent} if sent else None)
    assert ("effort-2025-11-24" in betas) == (sent is not None)
    assert body["thinking"] == thinking
    server.enqueue(Reply(chunks=recorded("anthropic_text.sse")))
    await collect(provider, request(model=model))  # (nothing asked: nothing sent)
    plain = server.requests[-1]
    assert "output_config" not in plain.json() and "thinking" not in plain.json()
    assert "effort" not in plain.headers.get("anthropic-beta", "")
