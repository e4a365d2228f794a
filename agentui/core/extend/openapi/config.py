"""The config's `openapi` object: which APIs' operations become tools, and where each API's key comes from."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

MAX_RESPONSE_CHARS = 20_000
"""Of a response, what the model reads (the rest is cut, and it is told so)."""


class OpenApiAuth(BaseModel):
    """Where the API's key comes from (an environment variable: the config holds its name, never the key) and how
    it is sent; `type` defaults to what the spec's security scheme says."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    env: str = Field(min_length=1)
    type: str | None = Field(default=None, pattern="^(bearer|basic|header|query)$")
    name: str | None = None
    """The header or query parameter that carries the key (for header and query)."""


class OpenApiConfig(BaseModel):
    """One API of the config's `openapi` object: {"pets": {"spec": "https://…/openapi.yaml", "operations":
    ["listPets", "createPet"], "auth": {"env": "PETS_TOKEN"}}}."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    spec: str = Field(min_length=1)
    """A file (relative to the config file's directory) or an http(s) URL."""
    operations: tuple[str, ...] = Field(min_length=1)
    """The operationIds to offer; ["*"] offers every operation of the spec."""
    base_url: str | None = None
    """The server to call, when not the spec's first."""
    auth: OpenApiAuth | None = None
    timeout: float = Field(default=30.0, gt=0)
    max_response_chars: int = Field(default=MAX_RESPONSE_CHARS, ge=100)
