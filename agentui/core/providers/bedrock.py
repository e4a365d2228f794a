"""Amazon Bedrock provider: Claude's Messages API through InvokeModelWithResponseStream, whose answer is AWS's binary
event-stream (decoded by botocore as the bytes arrive), each `chunk` carrying one Messages API stream event."""

from __future__ import annotations

import base64
import binascii
import json
import os
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

from agentui.core.model_aliases import without_long_context
from agentui.core.providers import ProviderConfig
from agentui.core.providers._httpx import httpx
from agentui.core.providers.anthropic import Platform, StreamParser, build_body, request_betas
from agentui.core.providers.base import ProtocolError, ProviderRequest, StreamBrokenError
from agentui.core.providers.bedrock_auth import Authenticator, authenticator
from agentui.core.providers.bedrock_errors import API, error_for_exception, error_for_response
from agentui.core.providers.http import DEFAULT_IDLE_SECONDS, mapped_errors, new_client
from agentui.core.providers.request_bytes import JsonPieces
from agentui.core.providers.stream import ProviderEvent

if TYPE_CHECKING:
    from botocore.eventstream import EventStreamMessage

BEDROCK = Platform(
    model_in_body=False, stream_in_body=False, anthropic_version="bedrock-2023-05-31", betas_in_body=True
)
DEFAULT_REGION = "us-east-1"


def endpoint(region: str) -> str:
    """Bedrock's runtime endpoint in `region`."""
    return f"https://bedrock-runtime.{region}.amazonaws.com"


class BedrockProvider:
    name = "bedrock"

    def __init__(
        self,
        *,
        region: str = DEFAULT_REGION,
        auth: Authenticator,
        base_url: str | None = None,
        client: httpx.AsyncClient | None = None,
        betas: Sequence[str] = (),
        service_tier: str | None = None,
    ) -> None:
        self.region = region
        self.base_url = (base_url or endpoint(region)).rstrip("/")
        self._auth = auth
        self._betas = tuple(betas)
        self._client = client or new_client()
        self._headers = {"content-type": "application/json", "accept": "application/vnd.amazon.eventstream"}
        if service_tier:  # (Claude Code's ANTHROPIC_BEDROCK_SERVICE_TIER)
            self._headers["x-amzn-bedrock-service-tier"] = service_tier
        self._pieces = JsonPieces()

    @classmethod
    def from_config(cls, config: ProviderConfig) -> BedrockProvider:
        env = os.environ if config.env is None else config.env
        region = config.region or DEFAULT_REGION
        return cls(
            region=region,
            auth=authenticator(region, env, config.auth_token),
            base_url=config.base_url,
            betas=config.betas,
            service_tier=env.get("ANTHROPIC_BEDROCK_SERVICE_TIER") or None,
        )

    def url(self, model: str) -> str:
        """InvokeModelWithResponseStream's URL for `model` (an id, an inference profile or an ARN), the id encoded
        as the AWS SDK encodes a path label."""
        from botocore.utils import percent_encode

        return f"{self.base_url}/model/{percent_encode(model)}/invoke-with-response-stream"

    async def aclose(self) -> None:
        await self._client.aclose()

    async def credentials(self) -> str:
        """Where this provider's credentials come from, found as a request finds them (for /doctor)."""
        return await self._auth.check()

    async def stream(self, request: ProviderRequest) -> AsyncIterator[ProviderEvent]:
        betas = request_betas(self._betas, request)
        make = partial(build_body, request, self._pieces, platform=BEDROCK, betas=betas)
        content = await self._pieces.build(request.messages, make)
        model = without_long_context(request.model)[0]
        url = self.url(model)
        idle = self._client.timeout.read or DEFAULT_IDLE_SECONDS
        context = _Context(model, self.region, self._auth.where)
        async with mapped_errors(API, url, idle):
            headers = await self._auth.sign(url, content, dict(self._headers))
            async with self._client.stream("POST", url, content=content, headers=headers) as response:
                if response.status_code >= 400:
                    raw = await response.aread()
                    raise error_for_response(response.status_code, raw, response.headers, *context)
                parser = StreamParser(response.headers.get("x-amzn-requestid", ""), api=API)
                async for event in _events(response.aiter_bytes(), parser, context):
                    yield event
                if not parser.finished:
                    raise StreamBrokenError(f"{API} ended the stream before the message was complete.")


class _Context(NamedTuple):
    """What an error's sentence names: the model, the region, and where the credentials came from."""

    model: str
    region: str
    where: Callable[[], str]


async def _events(raw: AsyncIterator[bytes], parser: StreamParser, context: _Context) -> AsyncIterator[ProviderEvent]:
    """The Messages API events of an event-stream body, decoded frame by frame as its bytes arrive."""
    from botocore.eventstream import EventStreamBuffer, ParserError

    frames = EventStreamBuffer()
    left = 0  # (bytes received and not yet a whole frame)
    async for data in raw:
        frames.add_data(data)
        left += len(data)
        try:
            messages = list(frames)
        except ParserError as exc:
            raise ProtocolError(f"{API} sent a corrupt event-stream frame ({type(exc).__name__}: {exc}).") from exc
        for message in messages:
            prelude: Any = message.prelude  # (botocore-stubs call it an int: it is a MessagePrelude)
            left -= prelude.total_length
            for event in _feed(message, parser, context):
                yield event
            if parser.finished:
                return
    if left:
        raise StreamBrokenError(f"{API} ended the stream in the middle of an event-stream frame.")


def _feed(message: EventStreamMessage, parser: StreamParser, context: _Context) -> Iterable[ProviderEvent]:
    answer = message.to_response_dict()
    headers: Mapping[str, Any] = answer["headers"]
    kind = headers.get(":message-type")
    if kind in ("exception", "error"):
        name = str(headers.get(":exception-type") or headers.get(":error-code") or "")
        said = _message(message.payload) or str(headers.get(":error-message") or "")
        raise error_for_exception(name, said, *context)
    if kind != "event" or headers.get(":event-type") != "chunk":
        return ()  # (initial-response and any event type newer than this code)
    try:
        chunk = json.loads(message.payload)
        data = json.loads(base64.b64decode(chunk["bytes"], validate=True))
    except (ValueError, KeyError, TypeError, binascii.Error) as exc:
        raise ProtocolError(f"{API} sent a malformed chunk ({message.payload[:80]!r}).") from exc
    return parser.feed(str(data.get("type", "")) if isinstance(data, dict) else "", data)


def _message(payload: bytes) -> str:
    try:
        data = json.loads(payload)
    except ValueError:
        return payload.decode("utf-8", "replace").strip()
    return str(data.get("message") or data.get("Message") or "") if isinstance(data, dict) else ""
