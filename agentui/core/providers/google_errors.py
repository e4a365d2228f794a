"""Google's error answers (`{"error": {"code", "message", "status", "details"}}`), as the Gemini API and Vertex AI
send them over HTTP or inside a stream, read as ProviderErrors of one sentence that say what to fix."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agentui.core.providers.base import (
    AuthenticationError,
    BadRequestError,
    ContextOverflowError,
    OverloadedError,
    ProviderError,
    RateLimitError,
    ServerError,
    error_for_status,
    parse_retry_after,
)


@dataclass(frozen=True)
class GoogleError:
    """The parts of Google's error shape a sentence is made from."""

    code: int | None
    status: str
    """The canonical code's name: INVALID_ARGUMENT, PERMISSION_DENIED, RESOURCE_EXHAUSTED…"""
    message: str
    reasons: tuple[str, ...] = ()
    """The `ErrorInfo` details' reasons: API_KEY_INVALID, SERVICE_DISABLED…"""
    retry_delay: float | None = None
    """Seconds the `RetryInfo` detail asks to wait ("7s", "0.5s")."""


@dataclass(frozen=True)
class ErrorContext:
    """What the sentences name: the API, where its credentials come from, the model and where it was asked for."""

    api: str
    """ "The Gemini API", "Vertex AI"."""
    credentials: str
    """Where agentui took the credentials from, to check: "GEMINI_API_KEY (or GOOGLE_API_KEY)"."""
    model: str
    where: str = ""
    """Where the model was looked for, after the model's name: " in location us-central1 of project p"."""
    model_hint: str = "--model"
    """How to choose another model: "GEMINI_MODEL or --model"."""


def parse_google_error(body: bytes | str | Any) -> GoogleError | None:
    """The error in `body` (raw, or already decoded; a streaming call may wrap it in a list), if it has Google's
    shape."""
    data = body
    if isinstance(body, bytes | str):
        try:
            data = json.loads(body)
        except ValueError:
            return None
    if isinstance(data, list) and data:
        data = data[0]
    error = data.get("error") if isinstance(data, dict) else None
    if not isinstance(error, dict) or not isinstance(error.get("message"), str):
        return None
    details = [d for d in error.get("details") or () if isinstance(d, dict)]
    code = error.get("code")
    return GoogleError(
        code=code if isinstance(code, int) else None,
        status=str(error.get("status") or ""),
        message=error["message"],
        reasons=tuple(str(d["reason"]) for d in details if d.get("reason")),
        retry_delay=next((delay for d in details if (delay := _duration(d.get("retryDelay"))) is not None), None),
    )


def _duration(value: object) -> float | None:
    """A protobuf Duration as JSON ("7s", "1.5s") in seconds."""
    if isinstance(value, str) and (found := re.fullmatch(r"\s*(\d+(?:\.\d+)?)s\s*", value)):
        return float(found[1])
    return None


def error_for_google(
    status: int, body: bytes | str | Any, headers: Mapping[str, str], context: ErrorContext
) -> ProviderError:
    """An HTTP error answer (or an error sent inside the stream, with its code as `status`) as one sentence."""
    error = parse_google_error(body)
    if error is None:  # (not Google's shape: a proxy's page, a gateway's own answer)
        raw = body if isinstance(body, bytes | str) else json.dumps(body)
        return error_for_status(status, raw, headers, api=context.api, key_hint=context.credentials)
    said = _first_sentence(error.message)
    label = f"{status} {error.status}".strip()
    reasons = set(error.reasons)
    api, credentials = context.api, context.credentials
    if reasons & {"API_KEY_INVALID", "API_KEY_EXPIRED"} or "api key not valid" in said.lower():
        return AuthenticationError(f"{api} rejected the API key ({label}); check {credentials}: {said}", status=status)
    if status == 401 or error.status == "UNAUTHENTICATED":
        return AuthenticationError(
            f"{api} did not accept the credentials ({label}); check {credentials}: {said}", status=status
        )
    if status == 403 or error.status == "PERMISSION_DENIED":
        return AuthenticationError(f"{api} refused access ({label}); check {credentials}: {said}", status=status)
    if status == 429 or error.status == "RESOURCE_EXHAUSTED":
        wait = error.retry_delay if error.retry_delay is not None else parse_retry_after(headers)
        return RateLimitError(f"{api} is rate limiting requests ({label}): {said}", status=status, retry_after=wait)
    if status == 404 or error.status == "NOT_FOUND":
        return BadRequestError(
            f"{api} has no model {context.model!r}{context.where} that these credentials can use ({label}); "
            f"check {context.model_hint}: {said}",
            status=status,
        )
    if _overflow(error.message):
        return ContextOverflowError(
            f"The conversation is too long for the model's context window: {said}", status=status
        )
    if status == 503 or error.status == "UNAVAILABLE":
        return OverloadedError(f"{api} is overloaded or unavailable ({label}): {said}", status=status)
    if status >= 500 or status in (408, 499) or error.status in ("INTERNAL", "DEADLINE_EXCEEDED", "CANCELLED"):
        return ServerError(f"{api} failed with a server error ({label}): {said}", status=status)
    return BadRequestError(f"{api} rejected the request ({label}): {said}", status=status)


def _overflow(message: str) -> bool:
    lowered = message.lower()
    return "exceeds the maximum number of tokens" in lowered or "input token count" in lowered


def _first_sentence(message: str) -> str:
    """Google's message up to its first full stop (the rest is advice and links), as one line ending in a stop."""
    line = " ".join(message.split())
    found = re.search(r"(?<=[a-z0-9)\]'\"])\.\s+(?=[A-Z*])", line)
    first = line[: found.start()] if found else line
    first = first.strip().rstrip(".")[:300]
    return first + "." if first else "no message."
