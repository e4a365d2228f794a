"""Model providers. Each lives in its own module and is imported only when it is chosen."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from agentui.core.providers.base import Provider

ProviderName = Literal["anthropic", "bedrock", "vertex", "openai", "openai-responses", "gemini", "scripted"]

CLAUDE_PLATFORMS: frozenset[str] = frozenset({"anthropic", "bedrock", "vertex"})
"""The providers that serve Claude through the Messages API (Anthropic's own, Amazon Bedrock, Google Vertex AI):
Claude Code's model aliases, documents and Claude's own request fields mean the same on each."""

_MODULES: dict[str, tuple[str, str]] = {
    "anthropic": ("agentui.core.providers.anthropic", "AnthropicProvider"),
    "bedrock": ("agentui.core.providers.bedrock", "BedrockProvider"),
    "vertex": ("agentui.core.providers.vertex", "VertexProvider"),
    "openai": ("agentui.core.providers.openai", "OpenAIProvider"),
    "openai-responses": ("agentui.core.providers.openai_responses", "OpenAIResponsesProvider"),
    "gemini": ("agentui.core.providers.gemini", "GeminiProvider"),
    "scripted": ("agentui.core.providers.scripted", "ScriptedProvider"),
}
"""Where each provider's class is: imported only when it is chosen (start-up loads none of them)."""


@dataclass(frozen=True)
class ProviderConfig:
    """What a provider is made from: which one, and how to reach it (`Settings.provider_config()` gives it)."""

    name: ProviderName
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    auth_token: str | None = field(default=None, repr=False)
    betas: tuple[str, ...] = ()
    script: Path | None = None
    """The scripted provider's script file."""
    region: str | None = None
    """The cloud region (Bedrock's AWS_REGION, Vertex's CLOUD_ML_REGION); None for the provider's default."""
    project: str | None = None
    """The Google Cloud project (Vertex's ANTHROPIC_VERTEX_PROJECT_ID)."""
    env: Mapping[str, str] | None = field(default=None, repr=False, compare=False)
    """The environment the cloud providers take their credential chain from (AWS_PROFILE, a credentials file,
    GOOGLE_APPLICATION_CREDENTIALS…); None for the process's own."""


def create_provider(config: ProviderConfig) -> Provider:
    """The provider `config` names, configured from it (the key, the base URL, the region, the script file): each
    provider class's `from_config`."""
    module, name = _MODULES[config.name]
    provider: Provider = getattr(importlib.import_module(module), name).from_config(config)
    return provider
