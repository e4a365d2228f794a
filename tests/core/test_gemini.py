"""The Gemini provider against the loopback Gemini API, with Google's own Gen AI SDK as the second opinion: the SDK
reads the server's streams and errors, the server takes the SDK's requests, and what agentui sends is what the SDK
sends for the same conversation."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from agentui.core.messages import (
    DocumentBlock,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from agentui.core.providers.base import (
    AuthenticationError,
    BadRequestError,
    ContextOverflowError,
    OverloadedError,
    ProviderRequest,
    RateLimitError,
    ServerError,
    StreamBrokenError,
    ToolSpec,
)
from agentui.core.providers.gemini import GeminiProvider
from agentui.core.providers.gemini_request import build_body, thinking_config
from agentui.core.providers.gemini_vertex import VertexAccess, VertexTarget
from agentui.core.providers.google_errors import ErrorContext, error_for_google
from agentui.core.providers.request_bytes import JsonPieces
from agentui.core.providers.stream import MessageAccumulator
from tests.support.gemini_server import (
    KEY,
    TOKEN,
    GeminiServer,
    TokenEndpoint,
    chunk,
    google_error,
    rate_limited,
    stream,
    text_reply,
)
from tests.support.loopback import LoopbackServer, Reply

SIGNATURE = base64.b64encode(b"a signature of Gemini's own").decode()
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n not really a png").decode()
READ = ToolSpec(
    "Read",
    "Reads a file.",
    {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"file_path": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["file_path"],
        "additionalProperties": False,
    },
)


@pytest.fixture
def gemini() -> Iterator[GeminiServer]:
    server = GeminiServer()
    try:
        yield server
    finally:
        server.close()


def sdk(server: GeminiServer, key: str = KEY) -> genai.Client:
    # (the API version agentui uses: the SDK's 3.x releases default to v1, which takes the same requests)
    return genai.Client(api_key=key, http_options=types.HttpOptions(base_url=server.url, api_version="v1beta"))


def conversation() -> list[Message]:
    return [
        Message(role="user", content=[TextBlock(text="Look at this."), ImageBlock(source=_png())]),
        Message(
            role="assistant",
            content=[
                ThinkingBlock(thinking="I should read it.", thought_signature=SIGNATURE),
                TextBlock(text="Reading."),
                ToolUseBlock(id="call-1", name="Read", input={"file_path": "a.txt"}, thought_signature=SIGNATURE),
                ToolUseBlock(id="call-2", name="Read", input={"file_path": "b.pdf"}),
            ],
        ),
        Message(
            role="user",
            content=[
                ToolResultBlock(tool_use_id="call-1", content="     1\thello"),
                ToolResultBlock(
                    tool_use_id="call-2",
                    content=[DocumentBlock(source={"type": "base64", "media_type": "application/pdf", "data": PNG})],
                    is_error=False,
                ),
            ],
        ),
        Message(role="assistant", content=[TextBlock(text="Both read.", thought_signature=SIGNATURE)]),
        Message.user("Thanks."),
    ]


def _png() -> dict[str, str]:
    return {"type": "base64", "media_type": "image/png", "data": PNG}


def request_of(messages: list[Message], **more: Any) -> ProviderRequest:
    return ProviderRequest(
        model=more.pop("model", "gemini-3.8-flash"),
        system="You are agentui.",
        system_volatile="Today is Saturday.",
        messages=messages,
        tools=[READ],
        max_tokens=1000,
        **more,
    )


def agentui_body(messages: list[Message], **more: Any) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(build_body(request_of(messages, **more), JsonPieces()))
    return body


# The second opinion: Google's SDK


def test_the_sdk_reads_the_servers_stream_and_its_request_passes_the_servers_checks(gemini: GeminiServer) -> None:
    gemini.enqueue(
        stream(
            chunk([{"text": "Thinking it over.", "thought": True}]),
            chunk([{"text": "Let me read."}]),
            chunk(
                [
                    {
                        "functionCall": {"id": "c1", "name": "Read", "args": {"file_path": "a"}},
                        "thoughtSignature": SIGNATURE,
                    }
                ],
                finish="STOP",
                usage={
                    "promptTokenCount": 9,
                    "candidatesTokenCount": 5,
                    "thoughtsTokenCount": 3,
                    "totalTokenCount": 17,
                },
            ),
        )
    )
    client = sdk(gemini)
    got = list(client.models.generate_content_stream(model="gemini-3.8-flash", contents="Read a."))
    parts = [part for response in got for part in response.candidates[0].content.parts]  # type: ignore[index,union-attr]
    assert parts[0].thought is True and parts[0].text == "Thinking it over."
    assert parts[1].text == "Let me read."
    assert parts[2].function_call == types.FunctionCall(id="c1", name="Read", args={"file_path": "a"})
    assert parts[2].thought_signature == base64.b64decode(SIGNATURE)
    assert got[-1].candidates[0].finish_reason == types.FinishReason.STOP  # type: ignore[index]
    assert got[-1].usage_metadata.thoughts_token_count == 3  # type: ignore[union-attr]
    assert gemini.requests[0].headers["x-goog-api-key"] == KEY


@pytest.mark.parametrize(
    ("key", "reply", "code", "status"),
    [
        ("wrong", None, 400, "INVALID_ARGUMENT"),
        (KEY, rate_limited(), 429, "RESOURCE_EXHAUSTED"),
        (KEY, google_error(404, "NOT_FOUND", "models/x is not found for API version v1beta."), 404, "NOT_FOUND"),
    ],
)
def test_the_sdk_reads_the_servers_errors(gemini: GeminiServer, key: str, reply: Any, code: int, status: str) -> None:
    if reply is not None:
        gemini.enqueue(reply)
    client = sdk(gemini, key)
    with pytest.raises(genai_errors.APIError) as raised:
        list(client.models.generate_content_stream(model="gemini-3.8-flash", contents="hi"))
    assert raised.value.code == code and raised.value.status == status


def test_agentui_sends_what_the_sdk_sends_for_the_same_conversation(gemini: GeminiServer) -> None:
    signature = base64.b64decode(SIGNATURE)
    contents = [
        types.Content(
            role="user",
            parts=[
                types.Part(text="Look at this."),
                types.Part.from_bytes(data=base64.b64decode(PNG), mime_type="image/png"),
            ],
        ),
        types.Content(
            role="model",
            parts=[
                types.Part(text="I should read it.", thought=True, thought_signature=signature),
                types.Part(text="Reading."),
                types.Part(
                    function_call=types.FunctionCall(id="call-1", name="Read", args={"file_path": "a.txt"}),
                    thought_signature=signature,
                ),
                types.Part(
                    function_call=types.FunctionCall(id="call-2", name="Read", args={"file_path": "b.pdf"}),
                ),
            ],
        ),
        types.Content(
            role="user",
            parts=[
                types.Part(
                    function_response=types.FunctionResponse(
                        id="call-1", name="Read", response={"output": "     1\thello"}
                    )
                ),
                types.Part(function_response=types.FunctionResponse(id="call-2", name="Read", response={"output": ""})),
                types.Part.from_bytes(data=base64.b64decode(PNG), mime_type="application/pdf"),
            ],
        ),
        types.Content(role="model", parts=[types.Part(text="Both read.", thought_signature=signature)]),
        types.Content(role="user", parts=[types.Part(text="Thanks.")]),
    ]
    config = types.GenerateContentConfig(
        system_instruction=types.Content(
            parts=[types.Part(text="You are agentui."), types.Part(text="Today is Saturday.")]
        ),
        tools=[
            types.Tool(
                function_declarations=[
                    types.FunctionDeclaration(
                        name="Read",
                        description="Reads a file.",
                        parameters_json_schema={k: v for k, v in READ.input_schema.items() if k != "$schema"},
                    )
                ]
            )
        ],
        max_output_tokens=1000,
        thinking_config=types.ThinkingConfig(include_thoughts=True, thinking_level=types.ThinkingLevel.LOW),
    )
    gemini.enqueue(text_reply("ok."))
    client = sdk(gemini)
    list(client.models.generate_content_stream(model="gemini-3.8-flash", contents=contents, config=config))
    theirs = json_names(gemini.requests[0].json())
    ours = agentui_body(conversation(), effort="low")
    # (the SDK writes the system instruction's role as "user"; the API reads none there)
    theirs["systemInstruction"].pop("role", None)
    assert ours["contents"] == theirs["contents"]
    assert ours["systemInstruction"] == theirs["systemInstruction"]
    assert ours["tools"] == theirs["tools"]
    assert ours["generationConfig"] == theirs["generationConfig"]


def json_names(value: Any) -> Any:
    """The SDK writes some fields by their proto names (mime_type, thinking_level), which the API reads as it reads
    their JSON names (mimeType, thinkingLevel): its request with the JSON names, the values they hold as they are."""
    if isinstance(value, list):
        return [json_names(item) for item in value]
    if not isinstance(value, dict):
        return value
    named = {}
    for key, item in value.items():
        head, *rest = key.split("_")
        name = head + "".join(word.title() for word in rest)
        named[name] = item if name in ("args", "response", "parametersJsonSchema") else json_names(item)
    return named


# The provider on the loopback server


async def collect(provider: GeminiProvider, request: ProviderRequest) -> Message:
    accumulator = MessageAccumulator()
    async for event in provider.stream(request):
        accumulator.feed(event)
    return accumulator.message()


async def test_a_signature_alone_at_the_end_goes_with_the_text_before_it(gemini: GeminiServer) -> None:
    gemini.enqueue(text_reply("Hello there, friend.", signature=SIGNATURE))
    provider = GeminiProvider(api_key=KEY, base_url=gemini.url)
    try:
        answer = await collect(provider, request_of([Message.user("hi")]))
    finally:
        await provider.aclose()
    assert answer.content == [TextBlock(text="Hello there, friend.", thought_signature=SIGNATURE)]
    assert answer.stop_reason == "end_turn" and answer.model == "gemini-3.8-flash"
    assert answer.usage is not None and answer.usage.input_tokens == 40 and answer.usage.output_tokens == 9


async def test_usage_counts_cached_prompt_tokens_as_cache_reads_and_thoughts_as_output(gemini: GeminiServer) -> None:
    usage = {
        "promptTokenCount": 1000,
        "cachedContentTokenCount": 800,
        "candidatesTokenCount": 50,
        "thoughtsTokenCount": 70,
        "totalTokenCount": 1120,
    }
    gemini.enqueue(stream(chunk([{"text": "ok"}], finish="STOP", usage=usage)))
    provider = GeminiProvider(api_key=KEY, base_url=gemini.url)
    try:
        answer = await collect(provider, request_of([Message.user("hi")]))
    finally:
        await provider.aclose()
    assert answer.usage is not None
    assert (answer.usage.input_tokens, answer.usage.cache_read_input_tokens, answer.usage.output_tokens) == (
        200,
        800,
        120,
    )


async def test_parallel_calls_are_whole_blocks_and_the_turn_is_tool_use(gemini: GeminiServer) -> None:
    calls = [
        {"functionCall": {"name": "Read", "args": {"file_path": "a"}}, "thoughtSignature": SIGNATURE},
        {"functionCall": {"name": "Read", "args": {"file_path": "b"}}},
    ]
    gemini.enqueue(stream(chunk(calls, finish="STOP")))
    provider = GeminiProvider(api_key=KEY, base_url=gemini.url)
    try:
        answer = await collect(provider, request_of([Message.user("read both")]))
    finally:
        await provider.aclose()
    first, second = answer.tool_uses
    assert (first.input, first.thought_signature) == ({"file_path": "a"}, SIGNATURE)
    assert (second.input, second.thought_signature) == ({"file_path": "b"}, None)
    assert first.id != second.id and answer.stop_reason == "tool_use"


@pytest.mark.parametrize(
    ("chunks", "expected"),
    [
        ([chunk([{"text": "Once upon"}], finish="MAX_TOKENS")], "max_tokens"),
        ([chunk(prompt_feedback={"blockReason": "PROHIBITED_CONTENT"})], "refusal"),
        ([chunk([{"text": "The lyrics"}]), chunk([], finish="RECITATION")], "refusal"),
    ],
)
async def test_finish_reasons_become_stop_reasons(
    gemini: GeminiServer, chunks: list[dict[str, Any]], expected: str
) -> None:
    gemini.enqueue(stream(*chunks))
    provider = GeminiProvider(api_key=KEY, base_url=gemini.url)
    try:
        answer = await collect(provider, request_of([Message.user("go")]))
    finally:
        await provider.aclose()
    assert answer.stop_reason == expected
    if expected == "refusal":
        assert answer.content[-1].text.startswith("Gemini ")  # type: ignore[union-attr]
        assert answer.content[-1].text.endswith(")."), answer.content  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("chunks", "error"),
    [
        ([chunk([{"text": "Hel"}])], StreamBrokenError),  # (the stream ended with no finish reason)
        ([chunk([], finish="MALFORMED_FUNCTION_CALL")], ServerError),  # (tried again)
    ],
)
async def test_an_unfinished_or_malformed_answer_fails_in_one_sentence(
    gemini: GeminiServer, chunks: list[dict[str, Any]], error: type[Exception]
) -> None:
    gemini.enqueue(stream(*chunks))
    provider = GeminiProvider(api_key=KEY, base_url=gemini.url)
    try:
        with pytest.raises(error) as raised:
            await collect(provider, request_of([Message.user("go")]))
    finally:
        await provider.aclose()
    assert str(raised.value).startswith("The Gemini API ") and str(raised.value).endswith(".")


# The parts alone


def test_a_later_request_reuses_each_messages_parts() -> None:
    pieces = JsonPieces()
    messages = conversation()
    first = build_body(request_of(messages), pieces)
    made = pieces.made
    messages.append(Message(role="assistant", content=[TextBlock(text="You're welcome.")]))
    messages.append(Message.user("Bye."))
    second = build_body(request_of(messages), pieces)
    assert pieces.made == made + 2  # (only the two new messages were made)
    assert json.loads(second)["contents"][:-2] == json.loads(first)["contents"]
    assert json.loads(second) == json.loads(build_body(request_of(messages), JsonPieces()))


def test_thinking_and_anthropic_signatures_from_other_providers_are_not_sent() -> None:
    messages = [
        Message.user("hi"),
        Message(
            role="assistant", content=[ThinkingBlock(thinking="hm", signature="anthropic-sig"), TextBlock(text="Hi.")]
        ),
        Message.user("again"),
    ]
    assert agentui_body(messages)["contents"][1] == {"role": "model", "parts": [{"text": "Hi."}]}


@pytest.mark.parametrize(
    ("model", "budget", "effort", "expected"),
    [
        ("gemini-3.8-flash", None, None, {"includeThoughts": True}),
        ("gemini-3.8-flash", None, "medium", {"includeThoughts": True, "thinkingLevel": "MEDIUM"}),
        ("gemini-3.8-flash", None, "xhigh", {"includeThoughts": True, "thinkingLevel": "HIGH"}),
        ("gemini-3.1-pro-preview", 4000, None, {"includeThoughts": True, "thinkingLevel": "LOW"}),  # (think)
        ("gemini-3.1-pro-preview", 10000, None, {"includeThoughts": True, "thinkingLevel": "MEDIUM"}),  # (think hard)
        ("gemini-pro-latest", 31999, None, {"includeThoughts": True, "thinkingLevel": "HIGH"}),  # (ultrathink)
        ("gemini-3.8-flash", 31999, "low", {"includeThoughts": True, "thinkingLevel": "LOW"}),  # (effort first)
        ("gemini-2.5-flash", None, "low", {"includeThoughts": True, "thinkingBudget": 1024}),
        ("gemini-2.5-flash", 31999, None, {"includeThoughts": True, "thinkingBudget": 24576}),  # (Flash's most)
        ("gemini-2.5-pro", 31999, None, {"includeThoughts": True, "thinkingBudget": 31999}),
        ("gemini-2.5-pro", None, "max", {"includeThoughts": True, "thinkingBudget": 24576}),
        ("models/gemini-2.0-flash", 4000, "high", None),
        ("gemma-4-31b-it", None, None, None),
    ],
)
def test_thinking_config(model: str, budget: int | None, effort: str | None, expected: dict[str, Any] | None) -> None:
    assert thinking_config(model, budget, effort) == expected


# Google's errors

CONTEXT = ErrorContext("The Gemini API", "GEMINI_API_KEY (or GOOGLE_API_KEY)", "gemini-3.8-flash")


def google_body(code: int, status: str, message: str, details: list[Any] | None = None) -> bytes:
    return json.dumps(
        {"error": {"code": code, "message": message, "status": status, "details": details or []}}
    ).encode()


def test_an_overflow_is_a_context_overflow_with_the_window() -> None:
    body = google_body(
        400,
        "INVALID_ARGUMENT",
        "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).",
    )
    error = error_for_google(400, body, {}, CONTEXT)
    assert isinstance(error, ContextOverflowError) and error.window == 1_048_576
    assert str(error) == (
        "The conversation is too long for the model's context window: The input token count (1200293) exceeds the "
        "maximum number of tokens allowed (1048576)."
    )


@pytest.mark.parametrize(
    ("status", "body", "kind", "retryable"),
    [
        (400, google_body(400, "INVALID_ARGUMENT", "API key expired. Please renew the API key.",
                          [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_EXPIRED"}]),
         AuthenticationError, False),
        (401, google_body(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."),
         AuthenticationError, False),
        (429, google_body(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."),
         RateLimitError, True),
        (503, google_body(503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
         OverloadedError, True),
        (504, google_body(504, "DEADLINE_EXCEEDED", "Deadline expired before operation could complete."),
         ServerError, True),
        (400, google_body(400, "INVALID_ARGUMENT", "Function call is missing a thought_signature in functionCall."),
         BadRequestError, False),
        (502, b"<html>Bad Gateway</html>", ServerError, True),  # (not Google's shape: a proxy's page)
        (400, b'[{"error": {"code": 400, "message": "Bad.", "status": "INVALID_ARGUMENT"}}]', BadRequestError, False),
    ],
)  # fmt: skip
def test_google_errors(status: int, body: bytes, kind: type[Exception], retryable: bool) -> None:
    error = error_for_google(status, body, {}, CONTEXT)
    assert type(error) is kind and error.retryable is retryable
    assert str(error).endswith(".") and "\n" not in str(error)
    assert "Please" not in str(error)  # (Google's first sentence only: the rest is advice)


def test_a_retry_delay_is_read_from_retry_info() -> None:
    details = [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "12.5s"}]
    error = error_for_google(429, google_body(429, "RESOURCE_EXHAUSTED", "Quota exceeded.", details), {}, CONTEXT)
    assert isinstance(error, RateLimitError) and error.retry_after == 12.5


# Choosing Gemini


def test_gemini_is_chosen_by_its_key_and_reads_its_own_variables() -> None:
    from agentui.core.settings import ConfigFile, Overrides, resolve_settings

    alone = resolve_settings(Overrides(), {"GEMINI_API_KEY": "k1"}, ConfigFile())
    assert (alone.provider, alone.model, alone.api_key) == ("gemini", "gemini-3.8-flash", "k1")
    google = resolve_settings(
        Overrides(provider="gemini"), {"GOOGLE_API_KEY": "k2", "GEMINI_MODEL": "gemini-3.1-pro-preview"}, ConfigFile()
    )
    assert (google.model, google.api_key) == ("gemini-3.1-pro-preview", "k2")
    both = resolve_settings(Overrides(), {"GEMINI_API_KEY": "k1", "ANTHROPIC_API_KEY": "a"}, ConfigFile())
    assert both.provider == "anthropic"  # (Claude Code's own key first)
    configured = resolve_settings(Overrides(), {"GOOGLE_API_KEY": "k2"}, ConfigFile(provider="gemini"))
    assert (configured.provider, configured.api_key) == ("gemini", "k2")
    vertex = resolve_settings(
        Overrides(),
        {"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "us-central1"},
        ConfigFile(),
    )
    assert (vertex.provider, vertex.project, vertex.region, vertex.api_key) == ("gemini", "p", "us-central1", None)


@pytest.mark.parametrize(
    ("reply", "status"),
    [
        (Reply(chunks=[b'{"models": [{"name": "models/gemini-3.8-flash"}]}'], content_type="application/json"), "ok"),
        (google_error(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key."), "problem"),
    ],
)
async def test_doctor_asks_the_gemini_api_for_its_models(server: LoopbackServer, reply: Reply, status: str) -> None:
    from agentui.core.doctor import _model_server
    from agentui.core.settings import Settings

    server.enqueue(reply)
    settings = Settings(provider="gemini", model="gemini-3.8-flash", api_key=KEY, base_url=server.url)
    check = await _model_server(settings, None)
    assert check.level == status, check
    assert server.requests[0].path == "/v1beta/models?pageSize=1"
    assert server.requests[0].headers["x-goog-api-key"] == KEY


# Gemini on Vertex AI


@pytest.fixture
def token_endpoint() -> Iterator[TokenEndpoint]:
    endpoint = TokenEndpoint()
    try:
        yield endpoint
    finally:
        endpoint.close()


@pytest.fixture
def key_file(token_endpoint: TokenEndpoint, tmp_path: Path) -> Path:
    return token_endpoint.key_file(tmp_path)


def vertex_provider(server: GeminiServer, key_file: Path, location: str = "us-central1") -> GeminiProvider:
    env = {"GOOGLE_APPLICATION_CREDENTIALS": str(key_file)}
    return GeminiProvider(vertex=VertexAccess(None, location, server.url, env))


async def test_on_vertex_the_model_is_in_the_projects_location_and_the_token_is_a_bearer(
    gemini: GeminiServer, key_file: Path, token_endpoint: TokenEndpoint
) -> None:
    gemini.enqueue(text_reply("From Vertex."), text_reply("Again."))
    provider = vertex_provider(gemini, key_file)
    try:
        answer = await collect(provider, request_of([Message.user("hi")]))
        await collect(provider, request_of([Message.user("hi")]))
    finally:
        await provider.aclose()
    assert answer.text == "From Vertex."
    assert len(token_endpoint.requests) == 1  # (the token is kept while it is valid)
    request = gemini.requests[0]
    assert request.path == (
        "/v1/projects/my-project/locations/us-central1/publishers/google/models/gemini-3.8-flash"
        ":streamGenerateContent?alt=sse"
    )
    assert request.headers["authorization"] == f"Bearer {TOKEN}" and "x-goog-api-key" not in request.headers
    # (the project is the one the key file names)


@pytest.mark.parametrize(
    ("token", "reply", "kind", "said"),
    [
        (
            "ya29.another-token",
            None,
            AuthenticationError,
            "Vertex AI did not accept the credentials (401 UNAUTHENTICATED); check Google's credentials "
            "(GOOGLE_APPLICATION_CREDENTIALS, or `gcloud auth application-default login`): Request had invalid "
            "authentication credentials.",
        ),
        (
            TOKEN,
            google_error(
                404,
                "NOT_FOUND",
                "Publisher Model `projects/my-project/locations/us-central1/publishers/google/models/gemini-3.8-flash`"
                " was not found or your project does not have access to it. Please ensure you are using a valid model"
                " version.",
            ),
            BadRequestError,
            "Vertex AI has no model 'gemini-3.8-flash' in location us-central1 of project my-project that these "
            "credentials can use (404 NOT_FOUND); check GEMINI_MODEL or --model, or GOOGLE_CLOUD_LOCATION: Publisher "
            "Model `projects/my-project/locations/us-central1/publishers/google/models/gemini-3.8-flash` was not "
            "found or your project does not have access to it.",
        ),
        (
            TOKEN,
            google_error(
                403,
                "PERMISSION_DENIED",
                "Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/"
                "my-project/locations/us-central1/publishers/google/models/gemini-3.8-flash' (or it may not exist).",
            ),
            AuthenticationError,
            "Vertex AI refused access (403 PERMISSION_DENIED); check Google's credentials "
            "(GOOGLE_APPLICATION_CREDENTIALS, or `gcloud auth application-default login`): Permission "
            "'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/my-project/"
            "locations/us-central1/publishers/google/models/gemini-3.8-flash' (or it may not exist).",
        ),
    ],
)
async def test_vertex_errors_name_the_project_location_and_credentials(
    gemini: GeminiServer, key_file: Path, token: str, reply: Any, kind: type[Exception], said: str
) -> None:
    gemini.token = token  # (the server's token: another one than the key's, for the 401)
    if reply is not None:
        gemini.enqueue(reply)
    provider = vertex_provider(gemini, key_file)
    try:
        with pytest.raises(kind) as raised:
            await collect(provider, request_of([Message.user("hi")]))
    finally:
        await provider.aclose()
    assert str(raised.value) == said


@pytest.mark.parametrize(
    ("location", "server"),
    [
        ("global", "https://aiplatform.googleapis.com"),
        ("us", "https://aiplatform.us.rep.googleapis.com"),
        ("europe-west4", "https://europe-west4-aiplatform.googleapis.com"),
    ],
)
def test_vertex_servers_by_location(location: str, server: str) -> None:
    target = VertexTarget("p", location)
    assert target.url("models/gemini-3.1-pro-preview") == (
        f"{server}/v1/projects/p/locations/{location}/publishers/google/models/gemini-3.1-pro-preview"
        ":streamGenerateContent?alt=sse"
    )


def test_gemini_prices_window_and_output_limit() -> None:
    from agentui.core.context.window import context_window
    from agentui.core.messages import Usage
    from agentui.core.output_tokens import model_output_tokens
    from agentui.core.pricing import cost_usd

    usage = Usage(input_tokens=1_000_000, cache_read_input_tokens=1_000_000, output_tokens=1_000_000)
    assert cost_usd("gemini-3.8-flash", usage) == pytest.approx(0.75 + 0.075 + 3.75)
    assert cost_usd("models/gemini-3.1-pro-preview", usage) == pytest.approx(2.0 + 0.2 + 12.0)
    assert cost_usd("gemini-2.5-flash-lite", usage) == pytest.approx(0.1 + 0.01 + 0.4)
    assert context_window("gemini-3.8-flash") == 1_048_576
    assert model_output_tokens("gemini-3.8-flash", 8192) == 65_536
    assert model_output_tokens("gemini-2.0-flash", 8192) == 8192


async def test_on_vertex_a_refused_token_is_refreshed_once_and_the_request_sent_again(
    gemini: GeminiServer, key_file: Path, token_endpoint: TokenEndpoint
) -> None:
    refused = google_error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
    gemini.enqueue(refused, text_reply("After a fresh token."))
    provider = vertex_provider(gemini, key_file)
    vertex = provider._vertex
    try:
        answer = await collect(provider, request_of([Message.user("hi")]))
    finally:
        await provider.aclose()
    assert answer.text == "After a fresh token."
    assert len(token_endpoint.requests) == 2 and len(gemini.requests) == 2
    assert vertex is not None and vertex.token._transport is None  # (closed with the provider)


async def test_the_doctor_reports_gemini_on_vertex_as_vertex(
    gemini: GeminiServer, key_file: Path, token_endpoint: TokenEndpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentui.core.doctor import _model_server, server_url
    from agentui.core.settings import Settings

    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key_file))
    monkeypatch.setenv("GOOGLE_VERTEX_BASE_URL", gemini.url)
    settings = Settings(provider="gemini", model="gemini-3.8-flash", project="p", region="us-central1")
    check = await _model_server(settings, None)
    assert check.level == "ok", check
    assert check.said == (
        f"Gemini on Vertex AI at {gemini.url}/v1/projects/p/locations/us-central1, with an access token from the key "
        f"file GOOGLE_APPLICATION_CREDENTIALS names ({key_file})."
    )
    assert len(token_endpoint.requests) == 1 and gemini.requests == []  # (a token, and no model call)
    assert server_url(settings) == gemini.url  # (what /status shows)
    monkeypatch.delenv("GOOGLE_VERTEX_BASE_URL")
    assert server_url(settings) == "https://us-central1-aiplatform.googleapis.com"
