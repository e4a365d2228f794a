"""Gemini through its own API (`streamGenerateContent` with an API key), streamed as server-sent events: tool calls,
thinking with its signatures, images and PDFs. The request is gemini_request.py's, the stream gemini_stream.py's."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping
from functools import partial
from urllib.parse import quote

from agentui.core.provider_env import PROVIDER_ENV
from agentui.core.providers import ProviderConfig
from agentui.core.providers._httpx import httpx
from agentui.core.providers.base import AuthenticationError, ProviderRequest
from agentui.core.providers.gemini_request import build_body, signs_calls
from agentui.core.providers.gemini_stream import GeminiStreamParser
from agentui.core.providers.google_errors import ErrorContext, error_for_google
from agentui.core.providers.http import SSEConnection, decode_data, new_client
from agentui.core.providers.request_bytes import JsonPieces
from agentui.core.providers.stream import ProviderEvent

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
API_VERSION = "v1beta"
_API = "The Gemini API"
KEY_NAMES = PROVIDER_ENV["gemini"].api_key
CREDENTIALS = " (or ".join(KEY_NAMES) + ")" * (len(KEY_NAMES) - 1)
"""Where the key comes from, as a sentence names it: "GEMINI_API_KEY (or GOOGLE_API_KEY)"."""
NO_KEY = (
    f"No Gemini API key was found: agentui looked for {' and '.join(KEY_NAMES)} in the environment; set one (a key "
    "from https://aistudio.google.com/apikey), or set GOOGLE_GENAI_USE_VERTEXAI=true to reach Gemini through Vertex AI."
)


class GeminiProvider:
    name = "gemini"

    def __init__(
        self, *, api_key: str | None = None, base_url: str | None = None, client: httpx.AsyncClient | None = None
    ) -> None:
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self._custom_server = base_url is not None
        self._key = api_key
        self._client = client or new_client()
        # Gemini 3 wants a signature on calls it did not make, older models none: the parts differ, so each way has
        # its own (a conversation may switch models).
        self._pieces = {True: JsonPieces(), False: JsonPieces()}

    @classmethod
    def from_config(cls, config: ProviderConfig) -> GeminiProvider:
        env = os.environ if config.env is None else config.env
        return cls(api_key=config.api_key or _key(env), base_url=config.base_url)

    def url(self, model: str) -> str:
        return (
            f"{self.base_url}/{API_VERSION}/models/{quote(model_id(model), safe='-._~@')}:streamGenerateContent?alt=sse"
        )

    async def aclose(self) -> None:
        await self._client.aclose()

    async def stream(self, request: ProviderRequest) -> AsyncIterator[ProviderEvent]:
        if not self._key and not self._custom_server:  # (a server of one's own may not need one)
            raise AuthenticationError(NO_KEY)
        pieces = self._pieces[signs_calls(request.model)]
        content = await pieces.build(request.messages, partial(build_body, request, pieces))
        context = ErrorContext(_API, CREDENTIALS, model_id(request.model), model_hint="GEMINI_MODEL or --model")
        errors = partial(error_for_google, context=context)
        connection = SSEConnection(self._client, api=_API, key_hint=CREDENTIALS, errors=errors)
        headers = {"x-goog-api-key": self._key} if self._key else {}
        async with connection.post(self.url(request.model), content, headers) as source:
            parser = GeminiStreamParser(request.model, _API)
            async for sse in connection.content(source):
                data = decode_data(sse, api=_API)
                if isinstance(data, Mapping) and "error" in data:
                    error = data["error"]
                    code = error.get("code") if isinstance(error, Mapping) else None
                    raise errors(code if isinstance(code, int) else 500, data, {})
                for event in parser.feed(data):
                    yield event
            for event in parser.finish():
                yield event


def model_id(model: str) -> str:
    """The model's id as the URL takes it ("models/gemini-3.8-flash" and "gemini-3.8-flash" alike)."""
    return model.removeprefix("models/")


def _key(env: Mapping[str, str]) -> str | None:
    return PROVIDER_ENV["gemini"].first(KEY_NAMES, env)
