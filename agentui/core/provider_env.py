"""Where each provider finds its model, server, key, region and project in the environment, by the names Claude
Code and each provider's own tools use, and which provider the environment switches on (Claude Code's
CLAUDE_CODE_USE_BEDROCK and CLAUDE_CODE_USE_VERTEX)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from agentui.core.providers import ProviderName


@dataclass(frozen=True)
class ProviderEnv:
    """The environment variables one provider reads, each list in order of precedence."""

    model: tuple[str, ...] = ()
    base_url: tuple[str, ...] = ()
    api_key: tuple[str, ...] = ()
    auth_token: tuple[str, ...] = ()
    region: tuple[str, ...] = ()
    default_region: str | None = None
    project: tuple[str, ...] = ()
    key_required: bool = True
    """False where a credential chain (AWS's, Google's) answers when no key is set: then nothing is asked of the
    environment up front, and the provider says in one sentence where it looked when it finds nothing."""

    def first(self, names: tuple[str, ...], env: Mapping[str, str]) -> str | None:
        return next((value for name in names if (value := env.get(name, "").strip())), None)


_OPENAI = ProviderEnv(model=("OPENAI_MODEL",), base_url=("OPENAI_BASE_URL",), api_key=("OPENAI_API_KEY",))

PROVIDER_ENV: dict[ProviderName, ProviderEnv] = {
    "anthropic": ProviderEnv(
        model=("ANTHROPIC_MODEL",),
        base_url=("ANTHROPIC_BASE_URL",),
        api_key=("ANTHROPIC_API_KEY",),
        auth_token=("ANTHROPIC_AUTH_TOKEN",),
    ),
    "bedrock": ProviderEnv(
        model=("ANTHROPIC_MODEL",),
        base_url=("ANTHROPIC_BEDROCK_BASE_URL",),
        auth_token=("AWS_BEARER_TOKEN_BEDROCK",),
        region=("AWS_REGION", "AWS_DEFAULT_REGION"),
        default_region="us-east-1",  # (after the AWS profile's own region: bedrock_region)
        key_required=False,
    ),
    "vertex": ProviderEnv(
        model=("ANTHROPIC_MODEL",),
        base_url=("ANTHROPIC_VERTEX_BASE_URL",),
        region=("CLOUD_ML_REGION",),
        default_region="us-east5",
        project=("ANTHROPIC_VERTEX_PROJECT_ID", "GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT"),
        key_required=False,
    ),
    "openai": _OPENAI,
    "openai-responses": _OPENAI,
    "gemini": ProviderEnv(
        model=("GEMINI_MODEL",),
        base_url=("GOOGLE_GEMINI_BASE_URL",),
        api_key=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        region=("GOOGLE_CLOUD_LOCATION",),
        project=("GOOGLE_CLOUD_PROJECT",),
        key_required=False,
    ),
    "scripted": ProviderEnv(key_required=False),
}


def bedrock_region(env: Mapping[str, str]) -> str:
    """Bedrock's region as Claude Code finds it: AWS_REGION, AWS_DEFAULT_REGION, the AWS profile's region in the
    config file, else us-east-1."""
    names = PROVIDER_ENV["bedrock"]
    if found := names.first(names.region, env):
        return found
    from agentui.core.providers.bedrock_auth import profile_region

    return profile_region(env) or names.default_region or "us-east-1"


def switched_on(env: Mapping[str, str]) -> ProviderName | None:
    """The cloud platform the environment switches Claude onto, as Claude Code reads it (Bedrock before Vertex)."""
    if _truthy(env.get("CLAUDE_CODE_USE_BEDROCK")):
        return "bedrock"
    if _truthy(env.get("CLAUDE_CODE_USE_VERTEX")):
        return "vertex"
    return None


def gemini_on_vertex(env: Mapping[str, str]) -> bool:
    """Whether the environment sends Gemini through Vertex AI, as Google's Gen AI SDK reads it
    (GOOGLE_GENAI_USE_VERTEXAI)."""
    return _truthy(env.get("GOOGLE_GENAI_USE_VERTEXAI"))


def _truthy(value: str | None) -> bool:
    """Claude Code's reading of a switch: 1, true, yes or on, in any case."""
    return (value or "").strip().lower() in ("1", "true", "yes", "on")
