"""Where Gemini is on Vertex AI (the Gen AI SDK's GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_CLOUD_PROJECT and
GOOGLE_CLOUD_LOCATION): the URL of a model's `streamGenerateContent` in a project and location, the access token
for it from Google's application default credentials, and what an error's sentence names there."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote

from agentui.core.provider_env import gemini_on_vertex
from agentui.core.providers.google_credentials import GoogleCredentialsError, GoogleToken
from agentui.core.providers.google_errors import ErrorContext

DEFAULT_LOCATION = "global"
"""The Gen AI SDK's default, and the one location that serves every Gemini 3 model (3.1 Pro is served nowhere else)."""
MULTI_REGIONS = frozenset({"us", "eu"})
"""Locations served from a multi-region endpoint of their own (aiplatform.us.rep.googleapis.com)."""
CREDENTIALS = "Google's credentials (GOOGLE_APPLICATION_CREDENTIALS, or `gcloud auth application-default login`)"
API = "Vertex AI"


switched_on = gemini_on_vertex


@dataclass(frozen=True)
class VertexTarget:
    """A project and location of Vertex AI, and the server to reach them at (None: Google's own for the location)."""

    project: str
    location: str = DEFAULT_LOCATION
    base_url: str | None = None

    @property
    def server(self) -> str:
        if self.base_url:
            return self.base_url.rstrip("/")
        if self.location == "global":
            return "https://aiplatform.googleapis.com"
        if self.location in MULTI_REGIONS:
            return f"https://aiplatform.{self.location}.rep.googleapis.com"
        return f"https://{self.location}-aiplatform.googleapis.com"

    def url(self, model: str) -> str:
        where = f"projects/{quote(self.project, safe='')}/locations/{quote(self.location, safe='')}"
        name = quote(model.rsplit("/", 1)[-1], safe="-._~@")
        return f"{self.server}/v1/{where}/publishers/google/models/{name}:streamGenerateContent?alt=sse"

    def errors(self, model: str) -> ErrorContext:
        return ErrorContext(
            API,
            CREDENTIALS,
            model.rsplit("/", 1)[-1],
            where=f" in location {self.location} of project {self.project}",
            model_hint="GEMINI_MODEL or --model, or GOOGLE_CLOUD_LOCATION",
        )


class VertexAccess:
    """Vertex AI reached with Google's application default credentials (google_credentials.py): the project (the
    one configured, else the one the credentials name) and a bearer token for each request."""

    def __init__(
        self, project: str | None, location: str | None, base_url: str | None, env: Mapping[str, str] | None
    ) -> None:
        self._project = project
        self._location = location or DEFAULT_LOCATION
        self._base_url = base_url
        self.token = GoogleToken(env)

    async def target(self) -> VertexTarget:
        project = self._project or await self.token.project()
        if not project:
            raise GoogleCredentialsError(
                "Vertex AI needs a Google Cloud project: set GOOGLE_CLOUD_PROJECT (the credentials, "
                f"{self.token.source or 'Google application default credentials'}, name none)."
            )
        return VertexTarget(project, self._location, self._base_url)

    async def bearer(self) -> str:
        return await self.token.bearer()
