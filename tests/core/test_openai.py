"""The OpenAI-compatible provider against a real HTTP server on loopback (recordings from llama.cpp's server)."""

from __future__ import annotations

import json

import pytest

from agentui.core.loop.agent import AgentConfig
from agentui.core.messages import Message, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock
from agentui.core.providers import base as errors
from agentui.core.providers.base import ProviderRequest, ToolSpec
from agentui.core.providers.openai import OpenAIProvider
from agentui.core.providers.retry import RetryPolicy
from tests.support.agents import new_agent
from tests.support.collect import collect
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import data_line, event, openai_chunk, recorded, recorded_events

FAST = RetryPolicy(base_delay=0.01, max_delay=0.05)
READ_SPEC = ToolSpec("Read", "Read a file.", {"type": "object", "properties": {"file_path": {"type": "string"}}})


@pytest.fixture
async def provider(server: LoopbackServer):
    p = OpenAIProvider(api_key="sk-local", base_url=server.url + "/v1")
    yield p
    await p.aclose()


def request(**overrides: object) -> ProviderRequest:
    fields: dict[str, object] = {"model": "local", "system": "You are terse.", "messages": [Message.user("hi")]}
    fields.update(overrides)
    return ProviderRequest(**fields)


async def test_recorded_text_stream_with_usage(server: LoopbackServer, provider: OpenAIProvider) -> None:
    server.enqueue(Reply(chunks=recorded("openai_text.sse")))
    message = await collect(provider, request())
    chunks = recorded_events("openai_text.sse")
    expected = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert message.content == [TextBlock(text=expected)]
    assert message.stop_reason == "max_tokens"  # finish_reason "length"
    usage = message.usage
    assert (usage.input_tokens, usage.cache_read_input_tokens, usage.output_tokens) == (1, 22, 40)
    assert message.id == "chatcmpl-FoBwGMQiPyTeDPwOiOpRVIYqqiaWUrkn"


async def test_recorded_tool_call_stream(server: LoopbackServer, provider: OpenAIProvider) -> None:
    server.enqueue(Reply(chunks=recorded("openai_tool_calls.sse")))
    message = await collect(provider, request(tools=[READ_SPEC]))
    chunks = [c for c in recorded_events("openai_tool_calls.sse") if c["choices"]]
    arguments = "".join(
        call["function"].get("arguments", "") for c in chunks for call in c["choices"][0]["delta"].get("tool_calls", [])
    )
    first_call = next(
        c["choices"][0]["delta"]["tool_calls"][0] for c in chunks if c["choices"][0]["delta"].get("tool_calls")
    )
    tool = message.tool_uses[0]
    assert (tool.id, tool.name, tool.input) == (first_call["id"], "Read", json.loads(arguments))
    assert message.stop_reason == "tool_use"


async def test_reasoning_text_and_two_parallel_tool_calls(server: LoopbackServer, provider: OpenAIProvider) -> None:
    server.enqueue(
        Reply(
            chunks=[
                openai_chunk({"role": "assistant", "reasoning_content": "Two files "}),
                openai_chunk({"reasoning_content": "to read."}),
                openai_chunk({"content": "Reading both."}),
                openai_chunk(
                    {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_a",
                                "type": "function",
                                "function": {"name": "Read", "arguments": ""},
                            }
                        ]
                    }
                ),
                openai_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"file_'}}]}),
                openai_chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'path": "a.py"}'}}]}),
                openai_chunk(
                    {
                        "tool_calls": [
                            {
                                "index": 1,
                                "id": "call_b",
                                "type": "function",
                                "function": {"name": "Read", "arguments": '{"file_path"'},
                            }
                        ]
                    }
                ),
                openai_chunk({"tool_calls": [{"index": 1, "function": {"arguments": ': "b.py"}'}}]}),
                openai_chunk({}, finish="tool_calls"),
                data_line(
                    {"id": "chatcmpl-test", "choices": [], "usage": {"prompt_tokens": 50, "completion_tokens": 20}}
                ),
                data_line("[DONE]"),
            ]
        )
    )
    message = await collect(provider, request())
    assert message.content == [
        ThinkingBlock(thinking="Two files to read."),
        TextBlock(text="Reading both."),
        ToolUseBlock(id="call_a", name="Read", input={"file_path": "a.py"}),
        ToolUseBlock(id="call_b", name="Read", input={"file_path": "b.py"}),
    ]
    assert (message.usage.input_tokens, message.usage.output_tokens) == (50, 20)


async def test_request_body_in_chat_completions_shape(server: LoopbackServer, provider: OpenAIProvider) -> None:
    server.enqueue(Reply(chunks=recorded("openai_text.sse")))
    history = [
        Message.user("read a"),
        Message(
            role="assistant",
            content=[
                ThinkingBlock(thinking="private"),
                TextBlock(text="ok"),
                ToolUseBlock(id="call_1", name="Read", input={"file_path": "a"}),
            ],
        ),
        Message(role="user", content=[ToolResultBlock(tool_use_id="call_1", content="no such file", is_error=True)]),
        Message.user("then b"),
    ]
    await collect(provider, request(messages=history, tools=[READ_SPEC], max_tokens=77))
    sent = server.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-local"
    body = sent.json()
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True} and body["max_tokens"] == 77
    assert body["tools"] == [
        {
            "type": "function",
            "function": {"name": "Read", "description": "Read a file.", "parameters": READ_SPEC.input_schema},
        }
    ]
    assert body["messages"] == [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "read a"},
        {
            "role": "assistant",
            "content": "ok",
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "Read", "arguments": '{"file_path": "a"}'}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "Error: no such file"},
        {"role": "user", "content": "then b"},
    ]


async def test_local_server_needs_no_key_and_openai_gets_max_completion_tokens(server: LoopbackServer) -> None:
    server.enqueue(Reply(chunks=recorded("openai_text.sse")))
    local = OpenAIProvider(base_url=server.url + "/v1")
    await collect(local, request())
    await local.aclose()
    assert "authorization" not in server.requests[0].headers
    assert "max_completion_tokens" in OpenAIProvider(base_url="https://api.openai.com/v1")._max_tokens_field


async def test_401_names_the_openai_key(server: LoopbackServer, provider: OpenAIProvider) -> None:
    server.enqueue(
        Reply.error(401, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}})
    )
    agent = new_agent(provider, AgentConfig(model="local"), retry=FAST)
    result = await agent.prompt("hi")
    assert result.error == (
        "The OpenAI-compatible server rejected the API key (401); check OPENAI_API_KEY: Incorrect API key provided."
    )


async def test_error_chunk_mid_stream(server: LoopbackServer, provider: OpenAIProvider) -> None:
    good = recorded("openai_text.sse")
    server.enqueue(
        Reply(
            chunks=[*good[:3], event("error", {"code": 500, "message": "context shift failed", "type": "server_error"})]
        ),
        Reply(
            chunks=[
                *good[:3],
                data_line(
                    {
                        "error": {
                            "message": "This model's maximum context length is 8192 tokens",
                            "type": "invalid_request_error",
                        }
                    }
                ),
            ]
        ),
    )
    with pytest.raises(errors.ServerError, match="context shift failed"):
        await collect(provider, request())
    with pytest.raises(errors.ContextOverflowError):
        await collect(provider, request())


async def test_stream_without_finish_reason_is_broken(server: LoopbackServer, provider: OpenAIProvider) -> None:
    server.enqueue(Reply(chunks=recorded("openai_text.sse")[:5]))
    with pytest.raises(errors.StreamBrokenError):
        await collect(provider, request())


async def test_wrong_content_type_is_a_protocol_error(server: LoopbackServer, provider: OpenAIProvider) -> None:
    server.enqueue(Reply(chunks=[b"<html>proxy login</html>"], content_type="text/html"))
    with pytest.raises(errors.ProtocolError, match="did not answer with an event stream"):
        await collect(provider, request())
