"""OpenAI's Responses API provider against a real HTTP server on loopback, and OpenAI's own SDK as a second opinion
that the server speaks the API."""

from __future__ import annotations

import json
import threading
import typing
from pathlib import Path

import openai
import pytest
from pydantic import TypeAdapter

from agentui.core.loop.agent import AgentConfig
from agentui.core.messages import Message, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock
from agentui.core.providers import base as errors
from agentui.core.providers.anthropic import block_param
from agentui.core.providers.base import ProviderRequest, ToolSpec
from agentui.core.providers.http import new_client
from agentui.core.providers.openai_responses import (
    SIGNATURE_PREFIX,
    OpenAIResponsesProvider,
    QuotaExceededError,
    build_body,
)
from agentui.core.providers.request_bytes import JsonPieces
from agentui.core.providers.retry import RetryPolicy
from agentui.core.settings import ConfigFile, Overrides, Route, resolve_settings
from tests.support.agents import new_agent
from tests.support.collect import collect
from tests.support.loopback import LoopbackServer, Reply
from tests.support.responses_server import Stream, checked, error_reply, problems, text_reply

FAST = RetryPolicy(base_delay=0.01, max_delay=0.05)
READ_SPEC = ToolSpec("Read", "Read a file.", {"type": "object", "properties": {"file_path": {"type": "string"}}})


@pytest.fixture
async def provider(server: LoopbackServer):
    p = OpenAIResponsesProvider(api_key="sk-test", base_url=server.url + "/v1")
    yield p
    await p.aclose()


def request(**overrides: object) -> ProviderRequest:
    fields: dict[str, object] = {"model": "gpt-5-test", "system": "Be terse.", "messages": [Message.user("hi")]}
    fields.update(overrides)
    return ProviderRequest(**fields)


async def test_reasoning_text_and_a_call_become_blocks(
    server: LoopbackServer, provider: OpenAIResponsesProvider
) -> None:
    stream = Stream().reasoning(["Plan: read it.", "Then answer."], encrypted="enc-1").message("Reading.")
    server.enqueue(stream.function_call("call_9", "Read", {"file_path": "/tmp/x"}).completed())
    message = await collect(provider, request(tools=[READ_SPEC]))
    thinking, text, call = message.content
    assert isinstance(thinking, ThinkingBlock) and thinking.thinking == "Plan: read it.\n\nThen answer."
    assert thinking.signature == SIGNATURE_PREFIX + '{"id":"rs_1","encrypted_content":"enc-1"}'
    assert text == TextBlock(text="Reading.")
    assert call == ToolUseBlock(id="call_9", name="Read", input={"file_path": "/tmp/x"})
    assert message.stop_reason == "tool_use" and message.id == "resp_test"
    usage = message.usage
    assert (usage.input_tokens, usage.cache_read_input_tokens, usage.cache_creation_input_tokens) == (40, 40, 20)
    assert usage.output_tokens == 30


async def test_the_body_in_the_responses_shape(server: LoopbackServer, provider: OpenAIResponsesProvider) -> None:
    server.responder = checked(text_reply("ok"))
    history = [
        Message.user("read x"),
        Message(
            role="assistant",
            content=[
                ThinkingBlock(thinking="why", signature=SIGNATURE_PREFIX + '{"id":"rs_7","encrypted_content":"E"}'),
                ThinkingBlock(thinking="Claude's", signature="EqQBCkYIAxgCIkD"),  # (another provider's: not sent)
                TextBlock(text="Reading."),
                ToolUseBlock(id="call_1", name="Read", input={"file_path": "x"}),
            ],
        ),
        Message(role="user", content=[ToolResultBlock(tool_use_id="call_1", content="data"), TextBlock(text="and?")]),
    ]
    message = await collect(provider, request(messages=history, tools=[READ_SPEC], system_volatile="Today."))
    assert message.content == [TextBlock(text="ok")]
    sent = server.requests[0]
    body = sent.json()
    assert sent.headers["authorization"] == "Bearer sk-test" and problems(sent) == []
    assert body["store"] is False and body["include"] == ["reasoning.encrypted_content"]
    assert (
        body["instructions"] == "Be terse.\n\nToday." and body["max_output_tokens"] == 8192 and "reasoning" not in body
    )
    assert body["tools"] == [
        {
            "type": "function",
            "name": "Read",
            "description": "Read a file.",
            "parameters": READ_SPEC.input_schema,
            "strict": False,
        }
    ]
    assert body["input"] == [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "read x"}]},
        {
            "type": "reasoning",
            "id": "rs_7",
            "encrypted_content": "E",
            "summary": [{"type": "summary_text", "text": "why"}],
        },
        {"type": "message", "role": "assistant", "content": "Reading."},
        {"type": "function_call", "call_id": "call_1", "name": "Read", "arguments": '{"file_path": "x"}'},
        {"type": "function_call_output", "call_id": "call_1", "output": "data"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "and?"}]},
    ]


def test_an_image_goes_as_a_data_url() -> None:
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}}
    user = Message.model_validate({"role": "user", "content": [image, {"type": "text", "text": "what?"}]})
    (item,) = json.loads(build_body(request(messages=[user])))["input"]
    assert item["content"][0] == {"type": "input_image", "image_url": "data:image/png;base64,iVBO", "detail": "auto"}


@pytest.mark.parametrize(
    ("effort", "budget", "sent"),
    [
        ("low", None, "low"),
        ("high", None, "high"),
        ("xhigh", None, "xhigh"),
        ("max", 2000, "max"),
        (None, 4000, "low"),
        (None, 10000, "medium"),
        (None, 31999, "high"),
    ],
)
def test_effort_and_budget_become_reasoning_effort(effort: str | None, budget: int | None, sent: str) -> None:
    body = json.loads(build_body(request(effort=effort, thinking_budget=budget)))
    assert body["reasoning"] == {"effort": sent, "summary": "auto"}


def test_a_model_that_does_not_reason_is_not_asked_to() -> None:
    body = json.loads(build_body(request(model="gpt-4.1", effort="high")))
    assert "reasoning" not in body and "include" not in body


def test_anthropic_never_gets_an_openai_reasoning_item() -> None:
    ours = ThinkingBlock(thinking="why", signature=SIGNATURE_PREFIX + '{"id":"rs_7","encrypted_content":"E"}')
    assert block_param(ours) is None
    assert block_param(ThinkingBlock(thinking="t", signature="EqQB")) == {
        "type": "thinking",
        "thinking": "t",
        "signature": "EqQB",
    }


ERRORS = [
    (
        error_reply(401, "invalid_api_key", "Incorrect API key provided: sk-test."),
        errors.AuthenticationError,
        "OpenAI's Responses API rejected the API key (401); check OPENAI_API_KEY: Incorrect API key provided: sk-test.",
    ),
    (
        error_reply(404, "model_not_found", "The model `gpt-9` does not exist or you do not have access to it."),
        errors.BadRequestError,
        "OpenAI's Responses API does not know the model, or this key has no access to it (model_not_found); check "
        "OPENAI_MODEL or --model: The model `gpt-9` does not exist or you do not have access to it.",
    ),
    (
        error_reply(429, "insufficient_quota", "You exceeded your current quota.", kind="insufficient_quota"),
        QuotaExceededError,
        "OpenAI's Responses API says this account's quota is used up (insufficient_quota), so retrying will not "
        "help; check the plan and billing of the key in OPENAI_API_KEY: You exceeded your current quota.",
    ),
    (
        error_reply(400, "context_length_exceeded", "Your input exceeds the context window of this model."),
        errors.ContextOverflowError,
        "The conversation is too long for the model's context window: Your input exceeds the context window of "
        "this model.",
    ),
    (
        Stream().failed("server_error", "The server had an error while processing your request."),
        errors.ServerError,
        "OpenAI's Responses API failed with a server error (server_error): The server had an error while processing "
        "your request.",
    ),
    (
        Stream().error("rate_limit_exceeded", "Rate limit reached for gpt-5 in organization org-x."),
        errors.RateLimitError,
        "OpenAI's Responses API is rate limiting requests (429): Rate limit reached for gpt-5 in organization org-x.",
    ),
    (
        Stream().error("context_length_exceeded", "Input too long."),
        errors.ContextOverflowError,
        "The conversation is too long for the model's context window: Input too long.",
    ),
]


@pytest.mark.parametrize(("reply", "kind", "sentence"), ERRORS)
async def test_each_error_is_one_sentence(
    server: LoopbackServer, provider: OpenAIResponsesProvider, reply: Reply, kind: type, sentence: str
) -> None:
    server.enqueue(reply)
    with pytest.raises(errors.ProviderError) as raised:
        await collect(provider, request())
    assert type(raised.value) is kind and str(raised.value) == sentence


async def test_a_429_says_how_long_to_wait(server: LoopbackServer, provider: OpenAIResponsesProvider) -> None:
    server.enqueue(error_reply(429, "rate_limit_exceeded", "Slow down.", kind="requests", **{"retry-after": "7"}))
    with pytest.raises(errors.RateLimitError) as raised:
        await collect(provider, request())
    assert raised.value.retry_after == 7 and raised.value.retryable


async def test_no_key_says_where_agentui_looked(server: LoopbackServer) -> None:
    server.enqueue(error_reply(401, "", "You didn't provide an API key."))
    keyless = OpenAIResponsesProvider(base_url=server.url + "/v1")
    with pytest.raises(errors.AuthenticationError, match="none was found; agentui looked in OPENAI_API_KEY"):
        await collect(keyless, request())
    await keyless.aclose()


async def test_quota_is_not_retried_but_a_rate_limit_is(
    server: LoopbackServer, provider: OpenAIResponsesProvider
) -> None:
    server.enqueue(
        error_reply(429, "rate_limit_exceeded", "Slow down.", kind="requests", **{"retry-after": "0"}),
        Stream().failed("server_error", "Oops."),
        text_reply("done"),
    )
    agent = new_agent(provider, AgentConfig(model="gpt-5-test"), retry=FAST)
    assert (await agent.prompt("hi")).error is None
    assert len(server.requests) == 3
    server.enqueue(error_reply(429, "insufficient_quota", "No quota.", kind="insufficient_quota"), text_reply("no"))
    assert "retrying will not help" in ((await agent.prompt("again")).error or "")
    assert len(server.requests) == 4


async def test_max_output_tokens_keeps_the_text_and_stops(
    server: LoopbackServer, provider: OpenAIResponsesProvider
) -> None:
    server.enqueue(Stream().message("Partial").incomplete())
    message = await collect(provider, request())
    assert message.stop_reason == "max_tokens" and message.content == [TextBlock(text="Partial")]


async def test_a_stream_without_its_end_is_broken(server: LoopbackServer, provider: OpenAIResponsesProvider) -> None:
    server.enqueue(Stream().message("Half").reply())
    with pytest.raises(errors.StreamBrokenError, match="ended the stream before the response was complete"):
        await collect(provider, request())


# The official SDK as the other side's second opinion


def test_the_sdk_parses_every_event_and_sends_a_body_the_server_accepts(server: LoopbackServer) -> None:
    stream = Stream().reasoning(["Thinking."]).message("Hello there, world.")
    server.responder = checked(stream.function_call("call_2", "Read", {"file_path": "a"}).completed())
    client = openai.OpenAI(api_key="sk-test", base_url=server.url + "/v1", max_retries=0)
    events = list(
        client.responses.create(
            model="gpt-5-test",
            instructions="Be terse.",
            input=[
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
                {"type": "reasoning", "id": "rs_0", "encrypted_content": "E", "summary": []},
                {"type": "function_call", "call_id": "c", "name": "Read", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "c", "output": "x"},
            ],
            tools=[{"type": "function", "name": "Read", "description": "", "parameters": {}, "strict": False}],
            reasoning={"effort": "high", "summary": "auto"},
            include=["reasoning.encrypted_content"],
            store=False,
            stream=True,
        )
    )
    assert server.requests[0].path == "/v1/responses"
    assert [e.type for e in events][-1] == "response.completed" and events[-1].response.usage.input_tokens == 100
    # Strictly: the SDK builds its models without validating them; each event's own model validates it in full.
    models = {
        typing.get_args(member.model_fields["type"].annotation)[0]: member
        for member in typing.get_args(typing.get_args(openai.types.responses.ResponseStreamEvent)[0])
    }
    for chunk in stream.chunks:
        kind, data = chunk.decode().split("\n")[:2]
        parsed = models[kind.removeprefix("event: ")].model_validate_json(data.removeprefix("data: "))
        assert parsed.type == kind.removeprefix("event: ")


def test_agentuis_body_passes_the_sdks_request_types() -> None:
    # agentui's body, checked by the SDK's own request types (its TypedDict of the create call's parameters).
    from openai.types.responses import response_create_params

    pdf = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBE"}}
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}}
    history = [
        Message.model_validate({"role": "user", "content": [pdf, image, {"type": "text", "text": "read"}]}),
        Message(
            role="assistant",
            content=[
                ThinkingBlock(thinking="why", signature=SIGNATURE_PREFIX + '{"id":"rs_7","encrypted_content":"E"}'),
                TextBlock(text="Reading."),
                ToolUseBlock(id="call_1", name="Read", input={"file_path": "x"}),
            ],
        ),
        Message(role="user", content=[ToolResultBlock(tool_use_id="call_1", content="data", is_error=True)]),
    ]
    body = json.loads(build_body(request(messages=history, tools=[READ_SPEC], effort="medium")))
    TypeAdapter(response_create_params.ResponseCreateParamsStreaming).validate_python(body, strict=True)
    assert body["input"][0]["content"][0] == {
        "type": "input_file",
        "filename": "document.pdf",
        "file_data": "data:application/pdf;base64,JVBE",
    }
    assert body["input"][-1] == {"type": "function_call_output", "call_id": "call_1", "output": "Error: data"}


def test_settings_route_and_doctor_know_the_provider() -> None:
    from agentui.core.doctor import server_url
    from agentui.core.providers import create_provider
    from agentui.frontends.claude_code.stream import key_source

    assert Route.parse("openai-responses:gpt-5") == Route(model="gpt-5", provider="openai-responses")
    env = {"OPENAI_API_KEY": "sk-test", "OPENAI_MODEL": "gpt-5-mini"}
    settings = resolve_settings(Overrides(provider="openai-responses"), env=env, config=ConfigFile())
    assert (settings.model, settings.api_key) == ("gpt-5-mini", "sk-test")
    assert server_url(settings) == "https://api.openai.com/v1" and key_source(settings) == "OPENAI_API_KEY"
    default = resolve_settings(Overrides(provider="openai-responses"), env={"OPENAI_API_KEY": "k"}, config=ConfigFile())
    assert default.model == "gpt-5"
    provider = create_provider(settings.provider_config())
    assert isinstance(provider, OpenAIResponsesProvider) and provider.url == "https://api.openai.com/v1/responses"


async def test_a_stalled_stream_and_a_refused_connection_are_one_sentence(server: LoopbackServer) -> None:
    gate = threading.Event()
    server.enqueue(Reply(chunks=Stream().message("never finished").chunks, gate=gate, gate_after=3))
    slow = OpenAIResponsesProvider(api_key="k", base_url=server.url + "/v1", client=new_client(idle=0.3))
    try:
        with pytest.raises(errors.StreamStalledError, match="sent nothing for 0 s"):
            await collect(slow, request())
    finally:
        gate.set()
        await slow.aclose()
    closed = LoopbackServer()
    closed.close()
    refused = OpenAIResponsesProvider(base_url=closed.url + "/v1")
    with pytest.raises(errors.ConnectError, match="connection refused; is the server running"):
        await collect(refused, request())
    await refused.aclose()


def test_config_says_the_model_came_from_openai_model(tmp_path: Path) -> None:
    from agentui.core.assembly import open_conversation
    from agentui.core.conversation import Launch
    from agentui.core.preferences import preferences
    from agentui.core.providers.scripted import ScriptedProvider
    from agentui.core.settings import Settings

    env = {"HOME": str(tmp_path), "AGENTUI_CONFIG_DIR": str(tmp_path / "c"), "CLAUDE_CONFIG_DIR": str(tmp_path / "cc")}
    env.update(AGENTUI_DATA_DIR=str(tmp_path / "d"), AGENTUI_STATE_DIR=str(tmp_path / "s"), OPENAI_MODEL="gpt-5-mini")
    launch = Launch(Settings(provider="openai-responses", model="gpt-5-mini"), cwd=tmp_path)
    conversation = open_conversation(launch, provider=ScriptedProvider([]), env=env)
    (model,) = [p for p in preferences(conversation, env) if p.key == "model"]
    assert model.source == "OPENAI_MODEL"


def test_each_message_is_made_once() -> None:
    pieces = JsonPieces()
    history: list[Message] = [Message.user("one")]
    first = build_body(request(messages=history), pieces=pieces)
    made = pieces.made
    history += [Message(role="assistant", content=[TextBlock(text="two")]), Message.user("three")]
    second = build_body(request(messages=history), pieces=pieces)
    assert pieces.made - made == 2  # (the new ones only)
    assert json.loads(second)["input"][:1] == json.loads(first)["input"]
    assert second == build_body(request(messages=history))  # (the same bytes as a body made from nothing)


async def test_items_sent_whole_without_deltas(server: LoopbackServer, provider: OpenAIResponsesProvider) -> None:
    stream = Stream().reasoning(["One.", "Two."], encrypted="E").message("Whole text.")
    reply = stream.function_call("call_3", "Read", {"file_path": "f"}).completed()
    reply.chunks = [chunk for chunk in reply.chunks if b".delta\n" not in chunk]
    server.enqueue(reply)
    message = await collect(provider, request())
    thinking, text, call = message.content
    assert isinstance(thinking, ThinkingBlock) and thinking.thinking == "One.\n\nTwo."
    assert text == TextBlock(text="Whole text.")
    assert call == ToolUseBlock(id="call_3", name="Read", input={"file_path": "f"})


async def test_reasoning_goes_only_to_a_model_that_reasons_and_a_damaged_one_not_at_all(
    server: LoopbackServer, provider: OpenAIResponsesProvider
) -> None:
    """After /model from gpt-5 to gpt-4.1 the same history is sent without its reasoning items (gpt-4.1 rejects
    them), and back on gpt-5 with them; a signature damaged in the session file is as good as none."""
    server.responder = checked(text_reply("ok"))
    history = [
        Message.user("read x"),
        Message(
            role="assistant",
            content=[
                ThinkingBlock(thinking="why", signature=SIGNATURE_PREFIX + '{"id":"rs_7","encrypted_content":"E"}'),
                ThinkingBlock(thinking="bad", signature=SIGNATURE_PREFIX + '{"encrypted_content":"E"}'),
                ThinkingBlock(thinking="worse", signature=SIGNATURE_PREFIX + "[1, 2]"),
                TextBlock(text="Read."),
            ],
        ),
        Message.user("and?"),
    ]
    for model in ("gpt-5-test", "gpt-4.1", "gpt-5-test"):
        await collect(provider, request(model=model, messages=history))
    kinds = [[item["type"] for item in sent.json()["input"]] for sent in server.requests]
    assert kinds == [
        ["message", "reasoning", "message", "message"],
        ["message", "message", "message"],
        ["message", "reasoning", "message", "message"],
    ]
