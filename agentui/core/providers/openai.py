"""OpenAI-compatible chat completions provider (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, OpenRouter)."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Iterable
from functools import partial
from typing import Any

from agentui.core.messages import (
    DocumentBlock,
    ImageBlock,
    Message,
    TextBlock,
    ToolResultBlock,
    Usage,
    as_text,
)
from agentui.core.providers import ProviderConfig
from agentui.core.providers._httpx import httpx
from agentui.core.providers.base import ProtocolError, ProviderRequest, StreamBrokenError, error_for_stream_event
from agentui.core.providers.http import SSEConnection, decode_data, new_client
from agentui.core.providers.request_bytes import JsonPieces, body, dumps
from agentui.core.providers.stream import BlockDelta, BlockStart, BlockStop, ProviderEvent, StreamEnd, StreamStart

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_API = "The OpenAI-compatible server"
_FINISH = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "refusal",
}


class OpenAIProvider:
    name = "openai"

    def __init__(
        self, *, api_key: str | None = None, base_url: str | None = None, client: httpx.AsyncClient | None = None
    ) -> None:
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self._headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = client or new_client()
        self._sse = SSEConnection(self._client, api=_API, key_hint="OPENAI_API_KEY")
        # OpenAI's own API has renamed max_tokens; the compatible servers all still take the old name.
        self._max_tokens_field = "max_completion_tokens" if "api.openai.com" in self.base_url else "max_tokens"
        self._pieces = JsonPieces()

    @classmethod
    def from_config(cls, config: ProviderConfig) -> OpenAIProvider:
        return cls(api_key=config.api_key, base_url=config.base_url)

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    async def aclose(self) -> None:
        await self._client.aclose()

    async def stream(self, request: ProviderRequest) -> AsyncIterator[ProviderEvent]:
        build = partial(build_body, request, max_tokens_field=self._max_tokens_field, pieces=self._pieces)
        content = await self._pieces.build(request.messages, build)
        async with self._sse.post(self.url, content, self._headers) as source:
            parser = _StreamParser(request.model, source.response.headers.get("x-request-id", ""))
            async for sse in self._sse.content(source):
                if sse.data.strip() == "[DONE]":
                    break
                data = decode_data(sse, api=_API)
                if sse.event == "error" or (isinstance(data, dict) and "error" in data):
                    raise error_for_stream_event(data, api=_API)
                for event in parser.feed(data):
                    yield event
            for event in parser.finish():
                yield event


class _StreamParser:
    """Turns chat-completion chunks into blocks: text and reasoning close when another kind starts; tool calls
    stay open until the choice finishes (their arguments may keep arriving by index)."""

    def __init__(self, model: str, request_id: str = "") -> None:
        self._model = model
        self._request_id = request_id
        self._started = False
        self._next_index = 0
        self._current: tuple[str, int] | None = None  # ("text" | "thinking", block index) while one streams
        self._tools: dict[int, int] = {}  # OpenAI tool_call index -> our block index
        self._finish: str | None = None
        self._usage = Usage()

    def feed(self, chunk: Any) -> Iterable[ProviderEvent]:
        if not isinstance(chunk, dict):
            raise ProtocolError(f"{_API} sent a stream chunk that is not a JSON object.")
        events: list[ProviderEvent] = []
        if not self._started:
            self._started = True
            message_id = str(chunk.get("id") or f"chatcmpl-{uuid.uuid4().hex}")
            events.append(StreamStart(message_id, str(chunk.get("model") or self._model), request_id=self._request_id))
        if isinstance(chunk.get("usage"), dict):
            self._usage = _usage(chunk["usage"])
        choices = chunk.get("choices") or []
        if choices and isinstance(choices[0], dict):
            choice = choices[0]
            delta = choice.get("delta") or {}
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                events.extend(self._stream_text("thinking", reasoning))
            content = delta.get("content")
            if isinstance(content, str) and content:
                events.extend(self._stream_text("text", content))
            for call in delta.get("tool_calls") or ():
                events.extend(self._tool_call(call))
            if choice.get("finish_reason"):
                self._finish = choice["finish_reason"]
                events.extend(self._close_all())
        return events

    def finish(self) -> Iterable[ProviderEvent]:
        if not self._started or self._finish is None:
            raise StreamBrokenError(f"{_API} ended the stream before the message was complete.")
        stop = _FINISH.get(self._finish, "end_turn")
        if self._tools and stop == "end_turn":
            stop = "tool_use"  # some servers say "stop" after tool calls
        return (StreamEnd(stop, self._usage),)  # type: ignore[arg-type]

    def _open(self, kind: str, **fields: Any) -> tuple[int, BlockStart]:
        index = self._next_index
        self._next_index += 1
        return index, BlockStart(index, kind, **fields)  # type: ignore[arg-type]

    def _stream_text(self, kind: str, text: str) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        if self._current is None or self._current[0] != kind:
            if self._current is not None:
                events.append(BlockStop(self._current[1]))
            index, start = self._open(kind)
            self._current = (kind, index)
            events.append(start)
        events.append(BlockDelta(self._current[1], kind, text))  # type: ignore[arg-type]
        return events

    def _tool_call(self, call: Any) -> list[ProviderEvent]:
        if not isinstance(call, dict):
            return []
        events: list[ProviderEvent] = []
        position = call.get("index", len(self._tools))
        function = call.get("function") or {}
        if position not in self._tools:
            if self._current is not None:
                events.append(BlockStop(self._current[1]))
                self._current = None
            tool_id = str(call.get("id") or f"call_{uuid.uuid4().hex[:24]}")
            index, start = self._open("tool_use", tool_id=tool_id, tool_name=str(function.get("name") or ""))
            self._tools[position] = index
            events.append(start)
        arguments = function.get("arguments")
        if isinstance(arguments, str) and arguments:
            events.append(BlockDelta(self._tools[position], "input_json", arguments))
        elif isinstance(arguments, dict):  # a few servers send the arguments already parsed
            events.append(BlockDelta(self._tools[position], "input_json", json.dumps(arguments)))
        return events

    def _close_all(self) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        if self._current is not None:
            events.append(BlockStop(self._current[1]))
            self._current = None
        events.extend(BlockStop(index) for index in self._tools.values())
        return events


def _usage(raw: dict[str, Any]) -> Usage:
    prompt = raw.get("prompt_tokens") or 0
    cached = (raw.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
    return Usage(
        input_tokens=max(0, prompt - cached),
        output_tokens=raw.get("completion_tokens") or 0,
        cache_read_input_tokens=cached,
    )


# Request building


def build_body(
    request: ProviderRequest, *, max_tokens_field: str = "max_tokens", pieces: JsonPieces | None = None
) -> bytes:
    """The chat-completions body; each message's JSON is taken from `pieces` (made there once)."""
    pieces = JsonPieces() if pieces is None else pieces
    head: dict[str, Any] = {
        "model": request.model,
        "stream": True,
        "stream_options": {"include_usage": True},
        max_tokens_field: request.max_tokens,
    }
    if request.effort:  # (never otherwise: llama.cpp, Ollama and older servers may reject a field they do not know)
        head["reasoning_effort"] = reasoning_effort(request.effort)
    if request.tools:
        head["tools"] = [
            {
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": t.input_schema},
            }
            for t in request.tools
        ]
    system = _system_text(request)
    start, closed = pieces.resume(request.messages)  # (what the last request made of the history it sent)
    made = [closed] if closed else []
    for message in request.messages[start:]:
        if piece := pieces.piece(message, partial(message_entries, message)):
            made.append(piece)
    history = b",".join(made)
    pieces.keep(request.messages, history)
    content = body(head, [dumps({"role": "system", "content": system}) if system else b"", history])
    pieces.request_done()
    return content


_EFFORTS = ("low", "medium", "high", "xhigh", "max")


def reasoning_effort(effort: str) -> str:
    """OpenAI's reasoning effort for Claude Code's --effort: OpenAI uses the same five words (and "none" and
    "minimal" below them). Not every model takes every one (xhigh and max are for its newest); a model that does not
    answers 400, which says so."""
    return effort if effort in _EFFORTS else "medium"


def _system_text(request: ProviderRequest) -> str:
    return "\n\n".join(part for part in (request.system, request.system_volatile) if part)


def message_entries(message: Message) -> list[dict[str, Any]]:
    """A message as chat messages: tool results become `tool` messages right after the call; thinking is not sent
    back."""
    if message.role == "assistant":
        text = message.text
        calls = [
            {"id": b.id, "type": "function", "function": {"name": b.name, "arguments": json.dumps(b.input)}}
            for b in message.tool_uses
        ]
        if not text and not calls:
            return []
        entry: dict[str, Any] = {"role": "assistant", "content": text or None}
        if calls:
            entry["tool_calls"] = calls
        return [entry]
    out: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, ToolResultBlock):
            out.append({"role": "tool", "tool_call_id": block.tool_use_id, "content": _result_text(block)})
        elif isinstance(block, TextBlock) and block.text:
            parts.append({"type": "text", "text": block.text})
        elif isinstance(block, ImageBlock):
            parts.append({"type": "image_url", "image_url": {"url": _data_url(block)}})
        elif isinstance(block, DocumentBlock):
            parts.append({"type": "text", "text": as_text(block)})
    if parts:
        only_text = all(p["type"] == "text" for p in parts)
        content: Any = "\n\n".join(p["text"] for p in parts) if only_text else parts
        out.append({"role": "user", "content": content})
    return out


def _result_text(block: ToolResultBlock) -> str:
    text = block.content if isinstance(block.content, str) else "\n".join(as_text(item) for item in block.content)
    return f"Error: {text}" if block.is_error else text


def _data_url(block: ImageBlock) -> str:
    source = block.source
    if source.get("type") == "url":
        return str(source.get("url", ""))
    return f"data:{source.get('media_type', 'image/png')};base64,{source.get('data', '')}"
