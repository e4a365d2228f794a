"""Claude on Google Vertex AI: the Messages API through `streamRawPredict`, switched on and configured as Claude Code
does (CLAUDE_CODE_USE_VERTEX, CLOUD_ML_REGION and its per-model VERTEX_REGION_CLAUDE_* overrides,
ANTHROPIC_VERTEX_PROJECT_ID, ANTHROPIC_VERTEX_BASE_URL, CLAUDE_CODE_SKIP_VERTEX_AUTH), with Google's access tokens."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from agentui.core.model_aliases import without_long_context
from agentui.core.provider_env import PROVIDER_ENV
from agentui.core.providers import ProviderConfig
from agentui.core.providers._httpx import httpx
from agentui.core.providers.anthropic import Platform, StreamParser, build_body, request_betas
from agentui.core.providers.base import (
    AuthenticationError,
    BadRequestError,
    ProviderError,
    ProviderRequest,
    RateLimitError,
    StreamBrokenError,
    error_for_status,
    parse_retry_after,
)
from agentui.core.providers.google_credentials import GoogleToken
from agentui.core.providers.http import SSEConnection, decode_data, new_client
from agentui.core.providers.request_bytes import JsonPieces
from agentui.core.providers.stream import ProviderEvent

API = "Vertex AI"
DEFAULT_REGION = "us-east5"
VERTEX = Platform(model_in_body=False, stream_in_body=True, anthropic_version="vertex-2023-10-16")

REGION_OVERRIDES: tuple[tuple[str, str], ...] = (
    # (model id prefix, the variable naming its region): Claude Code 2.1.197's table, first match wins.
    ("claude-fable-5", "VERTEX_REGION_CLAUDE_FABLE_5"),
    ("claude-haiku-4-5", "VERTEX_REGION_CLAUDE_HAIKU_4_5"),
    ("claude-3-5-haiku", "VERTEX_REGION_CLAUDE_3_5_HAIKU"),
    ("claude-3-5-sonnet", "VERTEX_REGION_CLAUDE_3_5_SONNET"),
    ("claude-3-7-sonnet", "VERTEX_REGION_CLAUDE_3_7_SONNET"),
    ("claude-opus-4-8", "VERTEX_REGION_CLAUDE_4_8_OPUS"),
    ("claude-opus-4-7", "VERTEX_REGION_CLAUDE_4_7_OPUS"),
    ("claude-opus-4-6", "VERTEX_REGION_CLAUDE_4_6_OPUS"),
    ("claude-opus-4-5", "VERTEX_REGION_CLAUDE_4_5_OPUS"),
    ("claude-opus-4-1", "VERTEX_REGION_CLAUDE_4_1_OPUS"),
    ("claude-opus-4", "VERTEX_REGION_CLAUDE_4_0_OPUS"),
    ("claude-sonnet-5", "VERTEX_REGION_CLAUDE_5_SONNET"),
    ("claude-sonnet-4-6", "VERTEX_REGION_CLAUDE_4_6_SONNET"),
    ("claude-sonnet-4-5", "VERTEX_REGION_CLAUDE_4_5_SONNET"),
    ("claude-sonnet-4", "VERTEX_REGION_CLAUDE_4_0_SONNET"),
)


def default_base_url(region: str) -> str:
    """Google's endpoint for `region`, with the API version (as ANTHROPIC_VERTEX_BASE_URL is given)."""
    if region == "global":
        return "https://aiplatform.googleapis.com/v1"
    return f"https://{region}-aiplatform.googleapis.com/v1"


class VertexProvider:
    name = "vertex"

    def __init__(
        self,
        *,
        project: str | None,
        region: str = DEFAULT_REGION,
        base_url: str | None = None,
        skip_auth: bool = False,
        betas: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        self._env = os.environ if env is None else env
        self.project = project
        self.region = region
        self.base_url = base_url.rstrip("/") if base_url else None
        self._token = None if skip_auth else GoogleToken(self._env)
        self._betas = tuple(betas)
        self._client = client or new_client()
        self._pieces = JsonPieces()

    @classmethod
    def from_config(cls, config: ProviderConfig) -> VertexProvider:
        env = os.environ if config.env is None else config.env
        names = PROVIDER_ENV["vertex"]
        return cls(
            project=config.project or names.first(names.project, env),
            region=config.region or names.first(names.region, env) or DEFAULT_REGION,
            base_url=config.base_url,
            skip_auth=env.get("CLAUDE_CODE_SKIP_VERTEX_AUTH", "").strip().lower() in ("1", "true", "yes", "on"),
            betas=config.betas,
            env=env,
        )

    def region_for(self, model: str) -> str:
        """The region a model is asked in: its VERTEX_REGION_CLAUDE_* variable if set, else CLOUD_ML_REGION's."""
        for prefix, variable in REGION_OVERRIDES:
            if model.startswith(prefix):
                return self._env.get(variable, "").strip() or self.region
        return self.region

    def url(self, model: str, project: str) -> str:
        region = self.region_for(model)
        base = self.base_url or default_base_url(region)
        return f"{base}/projects/{project}/locations/{region}/publishers/anthropic/models/{model}:streamRawPredict"

    async def describe(self, model: str) -> str:
        """Where requests for `model` go and with what credentials, in one sentence, after getting a token and the
        project as a request would (for the doctor: it costs no model call). ProviderError when either fails."""
        project = await self._project()
        model = without_long_context(model)[0]
        url = self.url(model, project).removesuffix(f"/publishers/anthropic/models/{model}:streamRawPredict")
        if self._token is None:
            return f"Vertex AI at {url}, without Google credentials (CLAUDE_CODE_SKIP_VERTEX_AUTH)."
        await self._token.bearer()
        return f"Vertex AI at {url}, with an access token from {self._token.source}."

    async def aclose(self) -> None:
        if self._token is not None:
            self._token.close()
        await self._client.aclose()

    async def stream(self, request: ProviderRequest) -> AsyncIterator[ProviderEvent]:
        model = without_long_context(request.model)[0]
        project = await self._project()
        where = Where(model, self.region_for(model), project)
        betas = request_betas(self._betas, request)
        content = await self._pieces.build(
            request.messages, partial(build_body, request, self._pieces, platform=VERTEX)
        )
        headers = {"anthropic-beta": ",".join(betas)} if betas else {}
        for attempt in (1, 2):
            if self._token is not None:
                headers["authorization"] = f"Bearer {await self._token.bearer()}"
                where.source = self._token.source
            sse = SSEConnection(self._client, api=API, key_hint="", errors=partial(vertex_error, where=where))
            try:
                async for event in self._answer(sse, self.url(model, project), content, headers):
                    yield event
                return
            except AuthenticationError as error:
                if error.status != 401 or attempt == 2 or self._token is None:
                    raise
                self._token.invalidate()  # (an expired or revoked token: one fresh one is asked for, once)

    async def _answer(
        self, sse: SSEConnection, url: str, content: bytes, headers: dict[str, str]
    ) -> AsyncIterator[ProviderEvent]:
        async with sse.post(url, content, headers) as source:
            parser = StreamParser(source.response.headers.get("request-id", ""), api=API)
            async for event in sse.content(source):
                for parsed in parser.feed(event.event, decode_data(event, api=API)):
                    yield parsed
                if parser.finished:
                    return
            if not parser.finished:
                raise StreamBrokenError(f"{API} ended the stream before the message was complete.")

    async def _project(self) -> str:
        if self.project:
            return self.project
        found = await self._token.project() if self._token is not None else None
        if not found:
            looked = "ANTHROPIC_VERTEX_PROJECT_ID, GOOGLE_CLOUD_PROJECT and GCLOUD_PROJECT are not set"
            if self._token is not None:
                looked += f", and the credentials from {self._token.source} name no project"
            raise BadRequestError(f"No Google Cloud project for Vertex AI: {looked}; set ANTHROPIC_VERTEX_PROJECT_ID.")
        self.project = found
        return found


@dataclass
class Where:
    """What a Vertex AI error is about: the model, the region and project asked, and where the token came from."""

    model: str
    region: str
    project: str
    source: str = ""


def vertex_error(status: int, body: bytes, headers: Mapping[str, str], *, where: Where) -> ProviderError:
    """An error response as one sentence, Google's own words in it: Google's shape (`{"error": {"code", "message",
    "status"}}`, sometimes in a list) or Anthropic's (the model's own errors, passed through)."""
    message, reason = _google_error(body)

    def answered(default: str) -> str:  # "(404 NOT_FOUND: Publisher Model … not found)"
        return f"({status} {reason or default}" + (f": {message.rstrip('.')})" if message else ")")

    asked = f"{where.model} in project {where.project}, region {where.region}"
    if status == 401 and not where.source:
        return AuthenticationError(
            f"{API} refused a request sent without Google credentials {answered('UNAUTHENTICATED')}; unset "
            "CLAUDE_CODE_SKIP_VERTEX_AUTH unless the base URL is a gateway that adds them.",
            status=status,
        )
    if status == 401:
        return AuthenticationError(
            f"{API} rejected the access token from {where.source} even after a fresh one was fetched "
            f"{answered('UNAUTHENTICATED')}; check those credentials.",
            status=status,
        )
    if status == 403:
        return AuthenticationError(
            f"{API} refused access to project {where.project} {answered('PERMISSION_DENIED')}; the credentials "
            f"{f'from {where.source} ' if where.source else ''}need the Vertex AI User role there, and the project "
            "needs the Vertex AI API enabled.",
            status=status,
        )
    if status == 404:
        return BadRequestError(
            f"{API} has no model {asked} {answered('NOT_FOUND')}; enable it in the project's Model Garden, or choose "
            "a region that serves it (CLOUD_ML_REGION, or a VERTEX_REGION_CLAUDE_* variable).",
            status=status,
        )
    if status == 429:
        return RateLimitError(
            f"{API} is throttling requests for {asked} {answered('RESOURCE_EXHAUSTED')}.",
            status=status,
            retry_after=parse_retry_after(headers),
        )
    return error_for_status(status, json.dumps({"error": {"message": message}}), headers, api=API, key_hint="")


def _google_error(body: bytes) -> tuple[str, str]:
    """The message and the status word ("PERMISSION_DENIED") of an error body, whichever shape it has."""
    try:
        data: Any = json.loads(body)
    except ValueError:
        return " ".join(body.decode("utf-8", "replace").split())[:300], ""
    if isinstance(data, list) and data:
        data = data[0]
    error = data.get("error") if isinstance(data, dict) else None
    if not isinstance(error, dict):
        return "", ""
    message = error.get("message")
    reason = error.get("status") or ""
    return (message.strip() if isinstance(message, str) else ""), (reason if isinstance(reason, str) else "")
