"""Gemini through its own API (`streamGenerateContent` with an API key) or Vertex AI's (with a Google access token),
streamed as server-sent events: tool calls, thinking with its signatures, images and PDFs. The request is
gemini_request.py's, the stream gemini_stream.py's, Vertex AI's URL gemini_vertex.py's."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping
from functools import partial
from urllib.parse import quote

from agentui.core.provider_env import PROVIDER_ENV, gemini_on_vertex
from agentui.core.providers import ProviderConfig
from agentui.core.providers._httpx import httpx
from agentui.core.providers.base import AuthenticationError, ProviderRequest
from agentui.core.providers.gemini_request import build_body, signs_calls
from agentui.core.providers.gemini_stream import GeminiStreamParser
from agentui.core.providers.gemini_vertex import VertexAccess
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
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        client: httpx.AsyncClient | None = None,
        vertex: VertexAccess | None = None,
    ) -> None:
        """The Gemini API with `api_key`, or Vertex AI as `vertex` reaches it (a project and location, and an access
        token asked for each request: refreshed, on a thread, when it has expired)."""
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self._custom_server = base_url is not None
        self._key = api_key
        self._vertex = vertex
        self._client = client or new_client()
        # Gemini 3 wants a signature on calls it did not make, older models none: the parts differ, so each way has
        # its own (a conversation may switch models).
        self._pieces = {True: JsonPieces(), False: JsonPieces()}

    @classmethod
    def from_config(cls, config: ProviderConfig) -> GeminiProvider:
        """The Gemini API, or Vertex AI where GOOGLE_GENAI_USE_VERTEXAI says so (its server GOOGLE_VERTEX_BASE_URL,
        else the base URL given, else Google's for the location)."""
        env = os.environ if config.env is None else config.env
        if gemini_on_vertex(env):
            server = env.get("GOOGLE_VERTEX_BASE_URL") or config.base_url
            return cls(vertex=VertexAccess(config.project, config.region, server, config.env))
        return cls(api_key=config.api_key or _key(env), base_url=config.base_url)

    def url(self, model: str) -> str:
        return (
            f"{self.base_url}/{API_VERSION}/models/{quote(model_id(model), safe='-._~@')}:streamGenerateContent?alt=sse"
        )

    async def aclose(self) -> None:
        if self._vertex is not None:  # (google-auth's connections to the token endpoint)
            self._vertex.token.close()
        await self._client.aclose()

    async def describe(self, model: str) -> str:
        """Where requests for `model` go on Vertex AI and with what credentials, in one sentence, after getting the
        project and a token as a request would (for the doctor: no model call). ProviderError when either fails."""
        if self._vertex is None:
            return f"the Gemini API at {self.base_url}."
        target = await self._vertex.target()
        await self._vertex.bearer()
        where = target.url(model).partition("/publishers/")[0]
        return f"Gemini on Vertex AI at {where}, with an access token from {self._vertex.token.source}."

    async def stream(self, request: ProviderRequest) -> AsyncIterator[ProviderEvent]:
        """The answer's events; on Vertex AI a token refused (401) before anything came is refreshed and the request
        sent once more, as Google's own clients do (a token revoked or expired early)."""
        for attempt in (1, 2):
            started = False
            try:
                async for event in self._stream_once(request):
                    started = True
                    yield event
                return
            except AuthenticationError as refused:
                if refused.status != 401 or self._vertex is None:
                    raise
                self._vertex.token.invalidate()  # (the next request asks Google for a new token)
                if started or attempt == 2:
                    raise

    async def _stream_once(self, request: ProviderRequest) -> AsyncIterator[ProviderEvent]:
        url, headers, context = await self._target(request.model)
        pieces = self._pieces[signs_calls(request.model)]
        content = await pieces.build(request.messages, partial(build_body, request, pieces))
        errors = partial(error_for_google, context=context)
        connection = SSEConnection(self._client, api=context.api, key_hint=context.credentials, errors=errors)
        async with connection.post(url, content, headers) as source:
            parser = GeminiStreamParser(request.model, context.api)
            async for sse in connection.content(source):
                data = decode_data(sse, api=context.api)
                if isinstance(data, Mapping) and "error" in data:
                    error = data["error"]
                    code = error.get("code") if isinstance(error, Mapping) else None
                    raise errors(code if isinstance(code, int) else 500, data, {})
                for event in parser.feed(data):
                    yield event
            for event in parser.finish():
                yield event

    async def _target(self, model: str) -> tuple[str, dict[str, str], ErrorContext]:
        """Where the request goes, its credentials' header, and what its errors name."""
        if self._vertex is not None:
            target = await self._vertex.target()
            return target.url(model), {"authorization": f"Bearer {await self._vertex.bearer()}"}, target.errors(model)
        if not self._key and not self._custom_server:  # (a server of one's own may not need one)
            raise AuthenticationError(NO_KEY)
        context = ErrorContext(_API, CREDENTIALS, model_id(model), model_hint="GEMINI_MODEL or --model")
        return self.url(model), {"x-goog-api-key": self._key} if self._key else {}, context


def model_id(model: str) -> str:
    """The model's id as the URL takes it ("models/gemini-3.8-flash" and "gemini-3.8-flash" alike)."""
    return model.removeprefix("models/")


def _key(env: Mapping[str, str]) -> str | None:
    return PROVIDER_ENV["gemini"].first(KEY_NAMES, env)
