"""What every provider is: a request, a stream of normalised events, and errors that say whether to retry."""

from __future__ import annotations

import email.utils
import json
import re
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from agentui.core.errors import AgentuiError
from agentui.core.messages import Message
from agentui.core.providers.limit_reset import limit_resets_at
from agentui.core.providers.stream import ProviderEvent


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the model sees it: name, description and the JSON schema of its arguments."""

    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class ProviderRequest:
    """One model call. A plain dataclass: the history is large and already validated, so it is not re-checked."""

    model: str
    system: str
    """The stable part of the system prompt (instructions, memory): the cached prefix."""
    messages: Sequence[Message]
    tools: Sequence[ToolSpec] = ()
    max_tokens: int = 8192
    thinking_budget: int | None = None
    effort: str | None = None
    """How hard the model works on its answer (Claude Code's --effort: low, medium, high, xhigh, max), mapped to
    each provider's own control; None leaves it to the provider."""
    metadata: Mapping[str, str] = field(default_factory=dict)
    system_volatile: str = ""
    """System text after the cache breakpoint: facts that change between sessions (date, git status)."""
    server_tools: Sequence[Mapping[str, Any]] = ()
    """Tools the provider runs itself (the Messages API's web search), as its API takes them."""


FOREIGN_SIGNATURE = "agentui-foreign:"
"""Begins a ThinkingBlock signature that another API than Anthropic's made (what OpenAI's Responses API needs sent
back, say): only the provider that made it sends such a block back; the Anthropic API would reject it."""


class Provider(Protocol):
    """A model API. `stream` yields normalised events and raises ProviderError; it never retries by itself."""

    name: str

    def stream(self, request: ProviderRequest) -> AsyncIterator[ProviderEvent]: ...

    async def aclose(self) -> None: ...


class ProviderError(AgentuiError):
    """A model call failed. `str(error)` is one sentence a person can act on."""

    retryable: bool = False
    kind: str = "error"

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retry_after = retry_after
        self.resets_at: datetime | None = None
        """When the limit a 429 reports resets, if the answer says (`limit_reset.limit_resets_at`)."""


class AuthenticationError(ProviderError):
    kind = "authentication"


class BadRequestError(ProviderError):
    kind = "bad_request"


class ContextOverflowError(BadRequestError):
    kind = "context_overflow"

    @property
    def window(self) -> int | None:
        """The context window the server's message states, if it states one."""
        for pattern in _WINDOW_PATTERNS:
            if found := pattern.search(self.message):
                return int(found[1].replace(",", ""))
        return None


_WINDOW_PATTERNS = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"> ?([\d,]+) (?:tokens? )?maximum",  # Anthropic: "prompt is too long: 250000 tokens > 200000 maximum"
        r"maximum context length is ([\d,]+)",  # OpenAI, vLLM
        r"context size \(([\d,]+) tokens\)",  # llama.cpp: "exceeds the available context size (4096 tokens)"
        r"n_ctx[^\d]{0,20}([\d,]+)",  # llama.cpp's older wording, Ollama
        r"maximum number of tokens allowed \(([\d,]+)\)",  # Gemini: "… exceeds … allowed (1048576)"
    )
)


class RateLimitError(ProviderError):
    kind = "rate_limit"
    retryable = True


class OverloadedError(ProviderError):
    kind = "overloaded"
    retryable = True


class ServerError(ProviderError):
    kind = "server"
    retryable = True


class ConnectError(ProviderError):
    """The server could not be reached at all (refused, unknown host, connect timeout)."""

    kind = "connection"
    retryable = True


class StreamBrokenError(ProviderError):
    """The connection dropped or stalled while the response was streaming."""

    kind = "network"
    retryable = True


class StreamStalledError(StreamBrokenError):
    """The server sent nothing, not even a ping, for longer than the idle limit."""

    kind = "stalled"

    def __init__(self, message: str, *, silence: float) -> None:
        super().__init__(message)
        self.silence = silence


class ProtocolError(ProviderError):
    """The server answered with something that is not the API it claims to speak."""

    kind = "protocol"


class WaitTooLongError(ProviderError):
    """The server asked for a longer wait before the next attempt than agentui waits: said at once, not waited out
    (ten attempts of a two-minute retry-after would be twenty minutes of a screen that seems to hang)."""

    def __init__(self, cause: ProviderError, wait: float, limit: float) -> None:
        super().__init__(
            f"{cause.message.rstrip('.')}; it asks to wait {_seconds(wait)} s before trying again, longer than "
            f"agentui waits ({_seconds(limit)} s), so the request was given up (try again later, or set "
            "AGENTUI_MAX_RETRY_WAIT to wait longer).",
            status=cause.status,
            retry_after=wait,
        )
        self.kind = cause.kind
        self.cause = cause


def _seconds(value: float) -> str:
    """120.0 as "120", 0.5 as "0.5"."""
    return f"{value:.1f}".removesuffix(".0")


class StreamInterruptedError(ProviderError):
    """The stream failed after a content block completed; what completed is kept and the request is not re-sent."""

    kind = "interrupted"

    def __init__(self, cause: ProviderError) -> None:
        said = _embedded(cause.message)
        super().__init__(f"The response was cut off: {said}", status=cause.status)
        self.cause = cause


def _embedded(message: str) -> str:
    """A sentence to follow a colon: its first letter lowered, unless the first word is a name ("Amazon Bedrock",
    "Google", "AWS") rather than an ordinary word."""
    first = message.split(" ", 1)[0].removesuffix("'s")
    if first[1:2].isupper() or first in _NAMES:  # (AWS, HTTP, OpenAI's API key...)
        return message
    return message[:1].lower() + message[1:]


_NAMES = frozenset({"Amazon", "Google", "Gemini", "Anthropic", "Claude", "Vertex", "Bedrock", "OpenAI", "Azure"})


_OVERFLOW_MARKERS = (
    "prompt is too long",
    "context_length_exceeded",
    "maximum context length",
    "context window",
    "exceeds the available context size",
    "exceed_context_size",
    "too many tokens",
)


def error_message_from_body(body: bytes | str) -> str:
    """The human part of an error body in Anthropic's, OpenAI's or llama.cpp's shape; else a short excerpt."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    try:
        data = json.loads(text)
    except ValueError:
        return " ".join(text.split())[:300]
    if isinstance(data, dict):
        error = data.get("error", data)
        inner = error.get("message") if isinstance(error, dict) else error
        outer = data.get("message")
        for message in (inner, outer):
            if isinstance(message, str):
                return message
    return " ".join(text.split())[:300]


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait from `retry-after-ms` or `retry-after` (seconds or an HTTP date); None if absent or bad."""
    if (value := headers.get("retry-after-ms")) is not None:
        try:
            return max(0.0, float(value) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def sentence(text: str) -> str:
    """`text` as one sentence: trimmed, ending in one full stop (empty stays empty)."""
    text = text.strip().rstrip(".")
    return text + "." if text else ""


def error_for_status(
    status: int, body: bytes | str, headers: Mapping[str, str], *, api: str, key_hint: str
) -> ProviderError:
    """Classify an HTTP error response into the right ProviderError with one clear sentence."""
    detail = error_message_from_body(body)
    retry_after = parse_retry_after(headers)
    lowered = detail.lower()
    said = f": {sentence(detail)}" if detail else "."
    if status == 401:
        return AuthenticationError(f"{api} rejected the API key (401); check {key_hint}{said}", status=status)
    if status == 403:
        return AuthenticationError(f"{api} refused access (403){said}", status=status)
    if status == 429:
        limited = RateLimitError(f"{api} is rate limiting requests (429){said}", status=status, retry_after=retry_after)
        limited.resets_at = limit_resets_at(headers, body)
        return limited
    if status == 529 or "overloaded" in lowered:
        return OverloadedError(f"{api} is overloaded ({status}){said}", status=status, retry_after=retry_after)
    if status in (400, 413) and any(marker in lowered for marker in _OVERFLOW_MARKERS):
        return ContextOverflowError(f"The conversation is too long for the model's context window{said}", status=status)
    if status == 404:
        return BadRequestError(
            f"{api} answered 404 (not found); check the base URL and the model name{said}", status=status
        )
    if status >= 500 or status == 408:
        return ServerError(f"{api} failed with a server error ({status}){said}", status=status, retry_after=retry_after)
    return BadRequestError(f"{api} rejected the request ({status}){said}", status=status)


def error_for_stream_event(data: Mapping[str, Any], *, api: str) -> ProviderError:
    """Classify an error sent inside the stream (Anthropic's `{"type":"error","error":{...}}`, OpenAI's
    `{"error":{...}}` or llama.cpp's `{"code":500,"message":...}`)."""
    error = data.get("error", data)
    if not isinstance(error, Mapping):
        error = {"message": str(error)}
    kind = str(error.get("type") or "")
    code = error.get("code", data.get("code"))
    message = str(error.get("message") or kind or "unknown error")
    said = f": {sentence(message)}"
    if kind == "overloaded_error" or "overloaded" in message.lower():
        return OverloadedError(f"{api} is overloaded{said}", status=529)
    if kind == "rate_limit_error" or code == 429:
        return RateLimitError(f"{api} is rate limiting requests{said}", status=429)
    if any(marker in message.lower() or marker in kind for marker in _OVERFLOW_MARKERS):
        return ContextOverflowError(f"The conversation is too long for the model's context window{said}")
    if kind in ("invalid_request_error", "authentication_error", "permission_error", "not_found_error"):
        return BadRequestError(f"{api} rejected the request{said}")
    return ServerError(f"{api} failed while streaming{said}", status=code if isinstance(code, int) else None)
