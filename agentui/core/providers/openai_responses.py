"""OpenAI's Responses API (`POST /v1/responses`): the API OpenAI's reasoning models (gpt-5, o3, codex) are made for.

Requests are stateless (`store: false`): every turn sends the whole conversation as input items. The model's
reasoning survives from turn to turn as encrypted reasoning items (`include: ["reasoning.encrypted_content"]`), which
agentui keeps as ThinkingBlocks: the summary is the block's text, and the item's id and encrypted content ride in the
signature behind `FOREIGN_SIGNATURE` + "openai-responses:", so sessions save and resume them and the Anthropic
provider never sends them to Claude.

How hard the model reasons (`reasoning.effort`) comes from the request's effort (Claude Code's --effort): low, medium,
high, xhigh and max are the API's own words too. Without an effort, a thinking budget picks one:
up to 4,096 tokens (Claude Code's "think") low, up to 16,384 (its "megathink") medium, more (its "ultrathink") high.
With neither, no `reasoning` is sent and the model uses its default. The GPT-4 family (gpt-4.1, gpt-4o) does not
reason, and is sent neither `reasoning` nor the `include` of encrypted reasoning, which it would reject.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from functools import partial
from typing import Any

from agentui.core.messages import (
    DocumentBlock,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    as_text,
)
from agentui.core.providers import ProviderConfig
from agentui.core.providers._httpx import httpx
from agentui.core.providers.base import (
    FOREIGN_SIGNATURE,
    AuthenticationError,
    BadRequestError,
    ContextOverflowError,
    ProtocolError,
    ProviderError,
    ProviderRequest,
    RateLimitError,
    ServerError,
    StreamBrokenError,
    error_for_status,
    parse_retry_after,
)
from agentui.core.providers.http import SSEConnection, decode_data, new_client
from agentui.core.providers.openai import DEFAULT_BASE_URL, reasoning_effort
from agentui.core.providers.request_bytes import JsonPieces, dumps
from agentui.core.providers.stream import (
    BlockDelta,
    BlockStart,
    BlockStop,
    DeltaKind,
    ProviderEvent,
    StreamEnd,
    StreamStart,
)

_API = "OpenAI's Responses API"
_KEY = "OPENAI_API_KEY"
SIGNATURE_PREFIX = f"{FOREIGN_SIGNATURE}openai-responses:"
"""Begins the signature of a ThinkingBlock that holds a reasoning item of this API."""


class QuotaExceededError(ProviderError):
    """The account has no quota left (429 insufficient_quota): waiting does not help, so it is not retried."""

    kind = "quota"


class OpenAIResponsesProvider:
    name = "openai-responses"

    def __init__(
        self, *, api_key: str | None = None, base_url: str | None = None, client: httpx.AsyncClient | None = None
    ) -> None:
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self._has_key = bool(api_key)
        self._headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = client or new_client()
        self._sse = SSEConnection(self._client, api=_API, key_hint=_KEY, errors=self._http_error)
        # A model that does not reason is sent no reasoning items, so each kind of model has its own pieces (a
        # conversation may switch models with /model).
        self._pieces = {True: JsonPieces(), False: JsonPieces()}

    @classmethod
    def from_config(cls, config: ProviderConfig) -> OpenAIResponsesProvider:
        return cls(api_key=config.api_key, base_url=config.base_url)

    @property
    def url(self) -> str:
        return f"{self.base_url}/responses"

    async def aclose(self) -> None:
        await self._client.aclose()

    async def stream(self, request: ProviderRequest) -> AsyncIterator[ProviderEvent]:
        pieces = self._pieces[reasoning_model(request.model)]
        content = await pieces.build(request.messages, partial(build_body, request, pieces=pieces))
        async with self._sse.post(self.url, content, self._headers) as source:
            parser = StreamParser(request.model, source.response.headers.get("x-request-id", ""))
            async for sse in self._sse.content(source):
                data = decode_data(sse, api=_API)
                if not isinstance(data, dict):
                    raise ProtocolError(f"{_API} sent a stream event that is not a JSON object ({sse.event}).")
                for event in parser.feed(str(data.get("type") or sse.event), data):
                    yield event
                if parser.finished:
                    break
            for event in parser.finish():
                yield event

    def _http_error(self, status: int, body: bytes, headers: Mapping[str, str]) -> ProviderError:
        if status == 401 and not self._has_key:
            return AuthenticationError(
                f"{_API} needs an API key and none was found; agentui looked in {_KEY}.", status=status
            )
        error = _error_object(body)
        code = str(error.get("code") or error.get("type") or "")
        if (code and code != "invalid_request_error") or status == 404:
            if status == 404 and not code:
                code = "model_not_found"
            return classify(
                code, str(error.get("message") or ""), status=status, retry_after=parse_retry_after(headers)
            )
        return error_for_status(status, body, headers, api=_API, key_hint=_KEY)


def _error_object(body: bytes) -> dict[str, Any]:
    try:
        data = json.loads(body)
    except ValueError:
        return {}
    error = data.get("error", data) if isinstance(data, dict) else None
    return error if isinstance(error, dict) else {}


def classify(code: str, message: str, *, status: int | None = None, retry_after: float | None = None) -> ProviderError:
    """The error an OpenAI error code means, as one sentence (HTTP error bodies, `error` events and failed
    responses all carry one)."""
    said = f": {message.strip().rstrip('.')}." if message.strip() else "."
    if code in ("invalid_api_key", "authentication_error") or status == 401:
        return AuthenticationError(f"{_API} rejected the API key (401); check {_KEY}{said}", status=status)
    if code == "insufficient_quota":
        return QuotaExceededError(
            f"{_API} says this account's quota is used up (insufficient_quota), so retrying will not help; check "
            f"the plan and billing of the key in {_KEY}{said}",
            status=status,
        )
    if code in ("rate_limit_exceeded", "rate_limit_error") or status == 429:
        return RateLimitError(f"{_API} is rate limiting requests (429){said}", status=429, retry_after=retry_after)
    if code == "context_length_exceeded":
        return ContextOverflowError(f"The conversation is too long for the model's context window{said}", status=status)
    if code == "model_not_found":
        return BadRequestError(
            f"{_API} does not know the model, or this key has no access to it (model_not_found); check OPENAI_MODEL "
            f"or --model{said}",
            status=status,
        )
    if code in ("server_error", "server_is_overloaded", "slow_down") or (status or 0) >= 500:
        return ServerError(f"{_API} failed with a server error ({code or status}){said}", status=status)
    return BadRequestError(f"{_API} rejected the request ({code or status}){said}", status=status)


def _event_error(data: Mapping[str, Any]) -> ProviderError:
    """An `error` event's or a failed response's error."""
    error = data.get("error") if data.get("type") != "error" else data
    if not isinstance(error, Mapping):
        error = data.get("response", {}).get("error") if isinstance(data.get("response"), Mapping) else None
    if not isinstance(error, Mapping):
        return ServerError(f"{_API} reported that the response failed, without saying why.")
    return classify(str(error.get("code") or error.get("type") or ""), str(error.get("message") or ""))


class StreamParser:
    """Turns Responses API events into blocks: one block per output item (reasoning, message, function call), opened
    when the item is added and closed when it is done."""

    def __init__(self, model: str, request_id: str = "") -> None:
        self._model = model
        self._request_id = request_id
        self._started = False
        self._blocks: dict[int, tuple[str, int]] = {}  # output_index -> (item type, our block index) while open
        self._next = 0
        self._streamed: set[int] = set()  # output indexes whose content arrived as deltas
        self._parts: dict[int, Any] = {}  # output index -> the summary part its last delta was of
        self._calls = 0
        self._end: StreamEnd | None = None

    @property
    def finished(self) -> bool:
        return self._end is not None

    def feed(self, kind: str, data: dict[str, Any]) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        if not self._started and kind != "error":
            self._started = True
            response = data["response"] if isinstance(data.get("response"), dict) else {}
            events.append(
                StreamStart(
                    str(response.get("id") or "resp"),
                    str(response.get("model") or self._model),
                    request_id=self._request_id,
                )
            )
        handler = _HANDLERS.get(kind)
        if handler is not None:
            events.extend(handler(self, data))
        return events

    def finish(self) -> list[ProviderEvent]:
        if self._end is None:
            raise StreamBrokenError(f"{_API} ended the stream before the response was complete.")
        return [self._end]

    def _added(self, data: dict[str, Any]) -> list[ProviderEvent]:
        item, position = data.get("item") or {}, data.get("output_index")
        kind = item.get("type")
        if not isinstance(position, int) or position in self._blocks:
            return []
        index = self._next
        if kind == "reasoning":
            start = BlockStart(index, "thinking")
        elif kind == "message":
            start = BlockStart(index, "text")
        elif kind == "function_call":
            self._calls += 1
            start = BlockStart(
                index, "tool_use", tool_id=str(item.get("call_id") or ""), tool_name=str(item.get("name"))
            )
        else:
            return []  # (an item agentui does not show, such as a built-in tool's call)
        self._blocks[position] = (kind, index)
        self._next += 1
        return [start]

    def _delta(self, data: dict[str, Any], kind: str, block_kind: str) -> list[ProviderEvent]:
        found = self._blocks.get(data.get("output_index"))  # type: ignore[arg-type]
        delta = data.get("delta")
        if found is None or found[0] != kind or not isinstance(delta, str) or not delta:
            return []
        events: list[ProviderEvent] = []
        part = data.get("summary_index")
        if kind == "reasoning" and self._parts.get(data["output_index"], part) != part:
            events.append(BlockDelta(found[1], "thinking", "\n\n"))  # (between the parts of a summary)
        self._parts[data["output_index"]] = part
        self._streamed.add(data["output_index"])
        events.append(BlockDelta(found[1], block_kind, delta))  # type: ignore[arg-type]
        return events

    def _arguments_done(self, data: dict[str, Any]) -> list[ProviderEvent]:
        position = data.get("output_index")
        found = self._blocks.get(position)  # type: ignore[arg-type]
        arguments = data.get("arguments")
        if found is None or position in self._streamed or not isinstance(arguments, str) or not arguments:
            return []
        self._streamed.add(position)  # type: ignore[arg-type]
        return [BlockDelta(found[1], "input_json", arguments)]

    def _item_done(self, data: dict[str, Any]) -> list[ProviderEvent]:
        item, position = data.get("item") or {}, data.get("output_index")
        found = self._blocks.pop(position, None)  # type: ignore[arg-type]
        if found is None:
            return []
        kind, index = found
        events: list[ProviderEvent] = []
        if position not in self._streamed and (text := _item_text(item)):  # (a server that sends items whole)
            events.append(BlockDelta(index, _DELTA_KINDS[kind], text))
        if kind == "reasoning" and item.get("id") and item.get("encrypted_content"):
            kept = {"id": item["id"], "encrypted_content": item["encrypted_content"]}
            events.append(BlockDelta(index, "signature", SIGNATURE_PREFIX + json.dumps(kept, separators=(",", ":"))))
        events.append(BlockStop(index))
        return events

    def _completed(self, data: dict[str, Any]) -> list[ProviderEvent]:
        response = data.get("response") or {}
        stop = "tool_use" if self._calls else "end_turn"
        if data.get("type") == "response.incomplete":
            reason = (response.get("incomplete_details") or {}).get("reason")
            stop = "refusal" if reason == "content_filter" else "max_tokens"
        events: list[ProviderEvent] = []
        for kind, index in self._blocks.values():  # (an incomplete response's text so far is kept)
            if kind == "message":
                events.append(BlockStop(index))
        self._end = StreamEnd(stop, _usage(response.get("usage") or {}))  # type: ignore[arg-type]
        return events

    def _failed(self, data: dict[str, Any]) -> list[ProviderEvent]:
        raise _event_error(data)


_DELTA_KINDS: dict[str, DeltaKind] = {"reasoning": "thinking", "message": "text", "function_call": "input_json"}

_HANDLERS: dict[str, Any] = {
    "response.output_item.added": StreamParser._added,
    "response.output_item.done": StreamParser._item_done,
    "response.output_text.delta": lambda self, d: self._delta(d, "message", "text"),
    "response.refusal.delta": lambda self, d: self._delta(d, "message", "text"),
    "response.reasoning_summary_text.delta": lambda self, d: self._delta(d, "reasoning", "thinking"),
    "response.function_call_arguments.delta": lambda self, d: self._delta(d, "function_call", "input_json"),
    "response.function_call_arguments.done": StreamParser._arguments_done,
    "response.completed": StreamParser._completed,
    "response.incomplete": StreamParser._completed,
    "response.failed": StreamParser._failed,
    "error": StreamParser._failed,
}


def _item_text(item: Mapping[str, Any]) -> str:
    if item.get("type") == "reasoning":
        return "\n\n".join(str(part.get("text") or "") for part in item.get("summary") or () if isinstance(part, dict))
    if item.get("type") == "message":
        return "".join(
            str(part.get("text") or part.get("refusal") or "")
            for part in item.get("content") or ()
            if isinstance(part, dict)
        )
    return str(item.get("arguments") or "")


def _usage(raw: Mapping[str, Any]) -> Usage:
    total = raw.get("input_tokens") or 0
    details = raw.get("input_tokens_details") or {}
    cached, written = details.get("cached_tokens") or 0, details.get("cache_write_tokens") or 0
    # input_tokens counts the cached and cache-written tokens too; output_tokens counts the reasoning tokens
    # (output_tokens_details.reasoning_tokens) already.
    return Usage(
        input_tokens=max(0, total - cached - written),
        output_tokens=raw.get("output_tokens") or 0,
        cache_read_input_tokens=cached,
        cache_creation_input_tokens=written,
    )


# Request building


def build_body(request: ProviderRequest, *, pieces: JsonPieces | None = None) -> bytes:
    """The Responses API body; each message's input items are taken from `pieces` (made there once)."""
    pieces = JsonPieces() if pieces is None else pieces
    head: dict[str, Any] = {
        "model": request.model,
        "stream": True,
        "store": False,
        "max_output_tokens": request.max_tokens,
    }
    reasons = reasoning_model(request.model)
    if reasons:  # (a model without reasoning answers 400 to asking for its encrypted reasoning)
        head["include"] = ["reasoning.encrypted_content"]
    if instructions := "\n\n".join(part for part in (request.system, request.system_volatile) if part):
        head["instructions"] = instructions
    if request.tools:
        head["tools"] = [
            {
                "type": "function",
                "name": t.name,
                "description": t.description,
                "parameters": t.input_schema,
                "strict": False,
            }
            for t in request.tools
        ]
    if reasons and (effort := responses_effort(request)):
        head["reasoning"] = {"effort": effort, "summary": "auto"}
    start, closed = pieces.resume(request.messages)
    made = [closed] if closed else []
    for message in request.messages[start:]:
        if piece := pieces.piece(message, partial(input_items, message, reasons=reasons)):
            made.append(piece)
    history = b",".join(made)
    pieces.keep(request.messages, history)
    content = dumps(head)[:-1] + b',"input":[' + history + b"]}"
    pieces.request_done()
    return content


_NOT_REASONING = ("gpt-4", "gpt-3.5", "chatgpt-4o")


def reasoning_model(model: str) -> bool:
    """Whether the model reasons: every OpenAI model but the GPT-4 family's and older (gpt-4.1, gpt-4o), which
    reject the reasoning fields; a name agentui does not know is taken to reason."""
    return not model.removeprefix("openai/").startswith(_NOT_REASONING)


def responses_effort(request: ProviderRequest) -> str | None:
    """`reasoning.effort` for the request: its effort, else one its thinking budget stands for (module docstring)."""
    if request.effort:
        return reasoning_effort(request.effort)
    if request.thinking_budget:
        if request.thinking_budget <= 4096:
            return "low"
        return "medium" if request.thinking_budget <= 16384 else "high"
    return None


def input_items(message: Message, *, reasons: bool = True) -> list[dict[str, Any]]:
    """A message as input items: an assistant's reasoning (for a model that reasons: another rejects the items),
    text and function calls in order; a user's tool results (function_call_output) first, then what the person
    said."""
    if message.role == "assistant":
        made = (_assistant_item(block) for block in message.content)
        return [item for item in made if item is not None and (reasons or item["type"] != "reasoning")]
    items: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, ToolResultBlock):
            items.append({"type": "function_call_output", "call_id": block.tool_use_id, "output": _result_text(block)})
        elif isinstance(block, TextBlock) and block.text:
            parts.append({"type": "input_text", "text": block.text})
        elif isinstance(block, ImageBlock):
            parts.append({"type": "input_image", "image_url": _data_url(block.source), "detail": "auto"})
        elif isinstance(block, DocumentBlock):
            parts.append(_document(block))
    if parts:
        items.append({"type": "message", "role": "user", "content": parts})
    return items


def _assistant_item(block: Any) -> dict[str, Any] | None:
    if isinstance(block, TextBlock):
        if not block.text:
            return None
        # (as text: an output_text part would need the id and status of an item the API stored, and none is stored)
        return {"type": "message", "role": "assistant", "content": block.text}
    if isinstance(block, ToolUseBlock):
        return {"type": "function_call", "call_id": block.id, "name": block.name, "arguments": json.dumps(block.input)}
    if isinstance(block, ThinkingBlock) and block.signature.startswith(SIGNATURE_PREFIX):
        try:
            kept = json.loads(block.signature.removeprefix(SIGNATURE_PREFIX))
        except ValueError:
            return None
        if not (isinstance(kept, dict) and isinstance(kept.get("id"), str) and kept.get("encrypted_content")):
            return None  # (a signature damaged on the way, as good as none)
        summary = [{"type": "summary_text", "text": block.thinking}] if block.thinking else []
        return {
            "type": "reasoning",
            "id": kept["id"],
            "encrypted_content": kept["encrypted_content"],
            "summary": summary,
        }
    return None  # (another provider's thinking cannot be sent to OpenAI)


def _document(block: DocumentBlock) -> dict[str, Any]:
    source = block.source
    if source.get("type") == "base64" and source.get("media_type") == "application/pdf":
        filename = block.title or "document.pdf"
        return {"type": "input_file", "filename": filename, "file_data": _data_url(source)}
    return {"type": "input_text", "text": as_text(block)}


def _result_text(block: ToolResultBlock) -> str:
    text = block.content if isinstance(block.content, str) else "\n".join(as_text(item) for item in block.content)
    return f"Error: {text}" if block.is_error else text


def _data_url(source: Mapping[str, Any]) -> str:
    if source.get("type") == "url":
        return str(source.get("url", ""))
    return f"data:{source.get('media_type', 'image/png')};base64,{source.get('data', '')}"
