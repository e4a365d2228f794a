"""The HTTP side shared by the API providers: one client, SSE streaming, and httpx errors turned into ProviderErrors."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import socket
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

from httpx_sse import EventSource, ServerSentEvent, SSEError

from agentui import __version__
from agentui.core.providers._httpx import httpx
from agentui.core.providers.base import (
    ConnectError,
    ProtocolError,
    ProviderError,
    StreamBrokenError,
    StreamStalledError,
    error_for_status,
)

USER_AGENT = f"agentui/{__version__}"

DEFAULT_IDLE_SECONDS = 120.0
"""How long a response may send no content (keep-alive pings and comments do not count) before it is given up as
stalled. Anthropic pings a live stream every few seconds; a local server is silent while it reads a long prompt."""


def idle_timeout(env: Mapping[str, str] | None = None) -> float:
    """Seconds of silence that mean a stalled response: Claude Code's `CLAUDE_BYTE_STREAM_IDLE_TIMEOUT_MS`, else its
    `API_TIMEOUT_MS` (someone who raised that wants long waits), else two minutes."""
    env = os.environ if env is None else env
    for name in ("CLAUDE_BYTE_STREAM_IDLE_TIMEOUT_MS", "API_TIMEOUT_MS"):
        try:
            milliseconds = float(env.get(name, ""))
        except ValueError:
            continue
        if milliseconds > 0:
            return milliseconds / 1000
    return DEFAULT_IDLE_SECONDS


def new_client(idle: float | None = None) -> httpx.AsyncClient:
    # httpx's read timeout is the longest wait for any bytes, headers included: exactly a silence limit.
    idle = idle_timeout() if idle is None else idle
    timeout = httpx.Timeout(connect=15.0, read=idle, write=60.0, pool=15.0)
    return httpx.AsyncClient(timeout=timeout, headers={"user-agent": USER_AGENT}, follow_redirects=False)


ErrorReader = Callable[[int, bytes, Mapping[str, str]], ProviderError]
"""What an API's error answer means: its status, body and headers as one ProviderError."""


class SSEConnection:
    """POST a JSON body and iterate the server-sent events of the answer, with every failure as a ProviderError.
    `errors` reads an error answer in the API's own shape (Google's); by default, as the Messages and chat APIs
    shape theirs."""

    def __init__(
        self, client: httpx.AsyncClient, *, api: str, key_hint: str, errors: ErrorReader | None = None
    ) -> None:
        self._client = client
        self._api = api
        self._key_hint = key_hint
        self._errors = errors
        """The error an HTTP error answer (status, body, headers) is, for an API whose error codes say more than
        `error_for_status` reads; None for that."""

    @asynccontextmanager
    async def post(self, url: str, content: bytes, headers: dict[str, str]) -> AsyncIterator[EventSource]:
        """POST `content`, a JSON body made already (`request_bytes`)."""
        headers = {**headers, "accept": "text/event-stream", "content-type": "application/json"}
        async with mapped_errors(self._api, url, self._idle):
            try:
                async with self._client.stream("POST", url, content=content, headers=headers) as response:
                    if response.status_code >= 400:
                        raw = await response.aread()
                        if self._errors is not None:
                            raise self._errors(response.status_code, raw, response.headers)
                        raise error_for_status(
                            response.status_code, raw, response.headers, api=self._api, key_hint=self._key_hint
                        )
                    yield EventSource(response)
            except SSEError as exc:
                raise ProtocolError(f"{self._api} did not answer with an event stream: {exc}.") from exc

    async def content(self, source: EventSource) -> AsyncIterator[ServerSentEvent]:
        """The stream's events that carry content. Keep-alives (`ping` events, events without data, SSE comments)
        are skipped and do not count as activity: a server that only pings for the idle limit has stalled."""
        idle = self._idle
        loop = asyncio.get_running_loop()
        events = source.aiter_sse()
        pinged = False
        deadline = loop.time() + idle
        while True:
            try:
                async with asyncio.timeout_at(deadline):
                    sse = await anext(events)
            except StopAsyncIteration:
                return
            except TimeoutError:
                raise self._stalled("no content, only keep-alive pings," if pinged else "nothing") from None
            if sse.event == "ping" or not sse.data:
                pinged = True
                continue
            yield sse
            pinged = False
            deadline = loop.time() + idle  # (from when the event has been handled: a slow reader is not a stall)

    @property
    def _idle(self) -> float:
        return self._client.timeout.read or DEFAULT_IDLE_SECONDS

    def _stalled(self, sent: str) -> StreamStalledError:
        return stalled(self._api, self._idle, sent)


def stalled(api: str, silence: float, sent: str = "nothing") -> StreamStalledError:
    """The error of a response that sent `sent` for `silence` seconds."""
    return StreamStalledError(
        f"{api} sent {sent} for {silence:.0f} s, so the request was given up (set API_TIMEOUT_MS to wait longer).",
        silence=silence,
    )


@asynccontextmanager
async def mapped_errors(api: str, url: str, idle: float) -> AsyncIterator[None]:
    """Every httpx failure while a request to `url` is sent or its answer read, as a one-sentence ProviderError
    (`api` names the service in it; `idle` is the client's silence limit, which a read timeout means was reached)."""
    try:
        yield
    except httpx.ConnectError as exc:
        reason = _reason(exc)
        raise ConnectError(f"Could not connect to {url}: {reason}{_CONNECT_HINTS.get(reason, '.')}") from exc
    except httpx.ConnectTimeout as exc:
        raise ConnectError(f"Could not connect to {url}: the connection timed out.") from exc
    except httpx.ReadTimeout as exc:
        raise stalled(api, idle) from exc
    except httpx.TimeoutException as exc:
        raise StreamBrokenError(f"{api} stopped responding ({type(exc).__name__}).") from exc
    except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as exc:
        raise StreamBrokenError(f"The connection to {_midsentence(api)} dropped: {_reason(exc)}.") from exc
    except httpx.UnsupportedProtocol as exc:
        raise ProtocolError(f"The base URL {url} is not an http(s) URL.") from exc
    except httpx.HTTPError as exc:
        raise StreamBrokenError(f"The request to {_midsentence(api)} failed: {_reason(exc)}.") from exc


def _midsentence(name: str) -> str:
    """ "The Anthropic API" as it reads inside a sentence: "the Anthropic API"."""
    return name[:1].lower() + name[1:] if name.startswith("The ") else name


def _reason(exc: BaseException) -> str:
    """The operating system's reason behind an httpx error, in words ("connection refused"), else httpx's own."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, socket.gaierror):
            return _UNRESOLVED
        if isinstance(seen, OSError) and seen.errno in _ERRNO_REASONS:
            return _ERRNO_REASONS[seen.errno]
        seen = seen.__cause__ or seen.__context__
    return str(exc).strip().rstrip(".") or type(exc).__name__


_UNRESOLVED = "the host name could not be resolved"
_CONNECT_HINTS = {"connection refused": "; is the server running?", _UNRESOLVED: "; check the base URL."}

_ERRNO_REASONS = {
    errno.ECONNREFUSED: "connection refused",
    errno.ECONNRESET: "connection reset by the server",
    errno.EHOSTUNREACH: "the host is unreachable",
    errno.ENETUNREACH: "the network is unreachable",
    errno.ETIMEDOUT: "the connection timed out",
}


def decode_data(sse: ServerSentEvent, *, api: str) -> Any:
    """The JSON payload of one event; malformed JSON is a ProtocolError naming the event."""
    try:
        return json.loads(sse.data)
    except ValueError as exc:
        excerpt = sse.data[:80]
        raise ProtocolError(f"{api} sent a malformed stream event ({sse.event or 'message'}: {excerpt!r}).") from exc
