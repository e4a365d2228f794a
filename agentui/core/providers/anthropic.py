"""Anthropic Messages API provider: request building with prompt caching, and SSE stream parsing."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from agentui.core.messages import (
    DocumentBlock,
    ImageBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from agentui.core.model_aliases import LONG_CONTEXT_BETA, without_long_context
from agentui.core.providers import ProviderConfig
from agentui.core.providers._httpx import httpx
from agentui.core.providers.base import (
    FOREIGN_SIGNATURE,
    ProtocolError,
    ProviderRequest,
    StreamBrokenError,
    error_for_stream_event,
)
from agentui.core.providers.claude_effort import EFFORT_BETA, model_effort, thinks_adaptively
from agentui.core.providers.http import SSEConnection, decode_data, new_client
from agentui.core.providers.request_bytes import JsonPieces, body, dumps
from agentui.core.providers.stream import (
    BlockDelta,
    BlockStart,
    BlockStop,
    DeltaKind,
    ProviderEvent,
    StreamEnd,
    StreamStart,
)

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
EPHEMERAL = {"type": "ephemeral"}
_API = "The Anthropic API"
# delta type -> (our delta kind, the field holding its text)
_DELTA_KINDS: dict[str, tuple[DeltaKind, str]] = {
    "text_delta": ("text", "text"),
    "thinking_delta": ("thinking", "thinking"),
    "signature_delta": ("signature", "signature"),
    "input_json_delta": ("input_json", "partial_json"),
}
_KNOWN_STOPS = {"end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal"}


@dataclass(frozen=True)
class Platform:
    """How a platform that serves Claude takes a Messages API body. Anthropic's own API names the model and asks for
    a stream in the body; Bedrock and Vertex name the model in the URL and the API version in the body, and Bedrock
    takes the betas there too (its streaming is a URL of its own)."""

    model_in_body: bool = True
    stream_in_body: bool = True
    anthropic_version: str | None = None
    betas_in_body: bool = False


FIRST_PARTY = Platform()


class AnthropicProvider:
    name = "anthropic"

    def __init__(
        self,
        *,
        api_key: str | None = None,
        auth_token: str | None = None,
        base_url: str | None = None,
        client: httpx.AsyncClient | None = None,
        betas: Sequence[str] = (),
    ) -> None:
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self._headers = {"anthropic-version": API_VERSION}
        if api_key:
            self._headers["x-api-key"] = api_key
        if auth_token:
            self._headers["authorization"] = f"Bearer {auth_token}"
        self._betas = tuple(betas)
        self._client = client or new_client()
        self._sse = SSEConnection(self._client, api=_API, key_hint="ANTHROPIC_API_KEY")
        self._pieces = JsonPieces()

    @classmethod
    def from_config(cls, config: ProviderConfig) -> AnthropicProvider:
        return cls(api_key=config.api_key, auth_token=config.auth_token, base_url=config.base_url, betas=config.betas)

    @property
    def url(self) -> str:
        return f"{self.base_url}/v1/messages"

    async def aclose(self) -> None:
        await self._client.aclose()

    async def stream(self, request: ProviderRequest) -> AsyncIterator[ProviderEvent]:
        content = await self._pieces.build(request.messages, partial(build_body, request, self._pieces))
        headers = self._headers
        if betas := request_betas(self._betas, request):
            headers = {**headers, "anthropic-beta": ",".join(betas)}
        async with self._sse.post(self.url, content, headers) as source:
            parser = StreamParser(source.response.headers.get("request-id", ""))
            async for sse in self._sse.content(source):
                for event in parser.feed(sse.event, decode_data(sse, api=_API)):
                    yield event
                if parser.finished:
                    return
            if not parser.finished:
                raise StreamBrokenError(f"{_API} ended the stream before the message was complete.")


def request_betas(configured: Sequence[str], request: ProviderRequest) -> list[str]:
    """The beta features one request asks for: the configured ones (--betas), and those the request needs (the
    1M-token window for "claude-sonnet-5[1m]", and effort where the model takes it, asked for as Claude Code does)."""
    betas = list(configured)
    if request.model != without_long_context(request.model)[0]:
        betas.append(LONG_CONTEXT_BETA)
    if model_effort(request.model, request.effort) is not None:
        betas.append(EFFORT_BETA)
    return list(dict.fromkeys(betas))


class StreamParser:
    """Maps Messages API stream events onto ProviderEvents; unknown events and fields are ignored. Bedrock's stream
    carries the same events in another framing, so its provider feeds them here too."""

    def __init__(self, request_id: str = "", api: str = _API) -> None:
        self.api = api
        self.finished = False
        self._request_id = request_id
        self._usage = Usage()
        self._stop: str | None = None
        self._started = False
        self._server_results: list[dict[str, Any]] = []

    def feed(self, name: str, data: Any) -> Iterable[ProviderEvent]:
        if not isinstance(data, dict):
            raise ProtocolError(f"{self.api} sent a stream event that is not a JSON object.")
        kind = data.get("type", name)
        if name == "error" or kind == "error":
            raise error_for_stream_event(data, api=self.api)
        if kind == "message_start":
            message = data.get("message") or {}
            self._usage = _usage(message.get("usage"), Usage())
            self._started = True
            return (
                StreamStart(
                    str(message.get("id") or ""), str(message.get("model") or ""), self._usage, self._request_id
                ),
            )
        if not self._started:
            raise ProtocolError(f"{self.api} sent '{kind}' before 'message_start'.")
        if kind == "content_block_delta":
            delta = data.get("delta") or {}
            mapped = _DELTA_KINDS.get(str(delta.get("type")))
            if mapped is None:  # citations and future delta types carry nothing we keep
                return ()
            return (BlockDelta(_index(data), mapped[0], str(delta.get(mapped[1], ""))),)
        if kind == "content_block_start":
            block = data.get("content_block") or {}
            block_type = block.get("type")
            if block_type == "tool_use":
                return (BlockStart(_index(data), "tool_use", str(block.get("id", "")), str(block.get("name", ""))),)
            if block_type == "redacted_thinking":
                return (BlockStart(_index(data), "redacted_thinking", data=str(block.get("data", ""))),)
            if block_type in ("text", "thinking"):
                return (BlockStart(_index(data), block_type),)
            if block_type == "web_search_tool_result":  # (it arrives whole; it is given with the stream's end)
                self._server_results.append(block)
            return ()  # server tool calls and other kinds we do not keep
        if kind == "content_block_stop":
            return (BlockStop(_index(data)),)
        if kind == "message_delta":
            self._stop = (data.get("delta") or {}).get("stop_reason") or self._stop
            self._usage = _usage(data.get("usage"), self._usage)
            return ()
        if kind == "message_stop":
            self.finished = True
            stop = self._stop if self._stop in _KNOWN_STOPS else "end_turn"
            return (StreamEnd(stop, self._usage, tuple(self._server_results)),)  # type: ignore[arg-type]
        return ()


def _index(data: dict[str, Any]) -> int:
    index = data.get("index")
    if not isinstance(index, int):
        raise ProtocolError(f"{_API} sent a content block event without an index.")
    return index


def _usage(raw: Any, previous: Usage) -> Usage:
    """Merge a usage object into what we know: message_delta repeats only the counts that changed."""
    if not isinstance(raw, dict):
        return previous
    values = previous.model_dump()
    for key in values:
        if isinstance(raw.get(key), int):
            values[key] = raw[key]
    return Usage(**values)


# Request building


def build_body(
    request: ProviderRequest,
    pieces: JsonPieces | None = None,
    *,
    platform: Platform = FIRST_PARTY,
    betas: Sequence[str] = (),
) -> bytes:
    """The Messages API body, with cache breakpoints on the system prompt, the tools and the last message; each
    message's JSON but the last one's is taken from `pieces` (made there once). `platform` says where the model, the
    stream, the API version and `betas` go."""
    pieces = JsonPieces() if pieces is None else pieces
    head: dict[str, Any] = {}
    if platform.anthropic_version:
        head["anthropic_version"] = platform.anthropic_version
    if platform.model_in_body:
        head["model"] = without_long_context(request.model)[0]
    head["max_tokens"] = request.max_tokens
    if platform.stream_in_body:
        head["stream"] = True
    if platform.betas_in_body and betas:
        head["anthropic_beta"] = list(betas)
    system = []
    if request.system:
        system.append({"type": "text", "text": request.system, "cache_control": EPHEMERAL})
    if request.system_volatile:
        system.append({"type": "text", "text": request.system_volatile})
    if system:
        head["system"] = system
    if request.tools:
        tools = [{"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in request.tools]
        tools[-1]["cache_control"] = EPHEMERAL
        head["tools"] = tools
    if request.server_tools:
        head["tools"] = [*head.get("tools", []), *(dict(tool) for tool in request.server_tools)]
    if request.thinking_budget:
        adaptive = thinks_adaptively(request.model)
        head["thinking"] = (
            {"type": "adaptive"} if adaptive else {"type": "enabled", "budget_tokens": request.thinking_budget}
        )
    if effort := model_effort(request.model, request.effort):
        head["output_config"] = {"effort": effort}
    if request.metadata:
        head["metadata"] = dict(request.metadata)
    made = body(head, messages_json(request.messages, pieces))
    pieces.request_done()
    return made


def messages_json(messages: Sequence[Message], pieces: JsonPieces) -> list[bytes]:
    """History as the API takes it (pieces of the array, an empty one meaning none): consecutive messages of one
    role merged, unsendable blocks dropped, the last block sent marked as the cache breakpoint (so the last message
    that sends one is made afresh). What the last request made of the messages before its last is taken up where
    this one begins with the same, or from the start of the last group of messages before the first one that
    changed (late in a long session, old tool results are shortened every few turns)."""
    last = next((n for n in range(len(messages) - 1, -1, -1) if any(map(_sendable, messages[n].content))), -1)
    if last < 0:
        return []
    start, made = pieces.resume(messages[:last])
    groups, role, parts, marks = made if made is not None else ((), "", (), ())
    groups, parts, marks = list(groups), list(parts), list(marks)
    for index in range(start, last):
        message = messages[index]
        content = pieces.piece(message, partial(_params, message))
        if not content:
            continue
        if message.role != role:
            if parts:
                groups.append(_group(role, parts))
            marks.append((index, len(groups)))  # (before this message: these groups made, none open)
            role, parts = message.role, []
        parts.append(content)
    pieces.keep(messages[:last], (groups, role, tuple(parts), marks), partial(_from_mark, groups, marks))
    closed = b",".join(groups)
    params = [param for block in messages[last].content if (param := block_param(block)) is not None]
    params[-1] = {**params[-1], "cache_control": EPHEMERAL}
    final = b",".join(dumps(param) for param in params)
    if messages[last].role == role:
        return [closed, _group(role, [*parts, final])]
    return [closed, _group(role, parts) if parts else b"", _group(messages[last].role, [final])]


def _from_mark(groups: list[bytes], marks: list[tuple[int, int]], changed: int) -> tuple[int, Any]:
    """Where a history that differs first at `changed` takes up what the last request made: the latest group that
    began before it, with the groups before that one. (Not one that began at it: what is there now may belong to
    the group before, a message of the same role, or one that sends nothing.)"""
    at = bisect_left(marks, (changed, 0)) - 1
    if at < 0:
        return 0, None
    index, made = marks[at]
    return index, (groups[:made], "", (), marks[:at])


def _group(role: str, parts: Sequence[bytes]) -> bytes:
    return b'{"role":"%s","content":[%s]}' % (role.encode(), b",".join(parts))


def _params(message: Message) -> Iterable[dict[str, Any]]:
    return (param for block in message.content if (param := block_param(block)) is not None)


def _sendable(block: Any) -> bool:
    return block_param(block) is not None


def block_param(block: Any) -> dict[str, Any] | None:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text} if block.text else None
    if isinstance(block, ToolUseBlock):
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if isinstance(block, ToolResultBlock):
        param: dict[str, Any] = {"type": "tool_result", "tool_use_id": block.tool_use_id}
        if isinstance(block.content, str):
            param["content"] = block.content
        else:
            param["content"] = [p for item in block.content if (p := block_param(item)) is not None]
        if block.is_error:
            param["is_error"] = True
        return param
    if isinstance(block, ThinkingBlock):
        # Thinking from elsewhere (or cut short) has no signature of Anthropic's, and the API rejects it without one.
        if not block.signature or block.signature.startswith(FOREIGN_SIGNATURE):
            return None
        return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
    if isinstance(block, RedactedThinkingBlock):
        return {"type": "redacted_thinking", "data": block.data}
    if isinstance(block, ImageBlock):
        return {"type": "image", "source": dict(block.source)}
    if isinstance(block, DocumentBlock):
        document: dict[str, Any] = {"type": "document", "source": dict(block.source)}
        if block.title:
            document["title"] = block.title
        return document
    return None
