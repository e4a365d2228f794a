"""Model providers. Each lives in its own module and is imported only when it is chosen."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from agentui.core.providers.base import Provider

ProviderName = Literal["anthropic", "openai", "scripted"]


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


def create_provider(config: ProviderConfig) -> Provider:
    """The provider `config` names, configured from it (the key, the base URL, the script file)."""
    if config.name == "anthropic":
        from agentui.core.providers.anthropic import AnthropicProvider

        return AnthropicProvider(
            api_key=config.api_key, auth_token=config.auth_token, base_url=config.base_url, betas=config.betas
        )
    if config.name == "openai":
        from agentui.core.providers.openai import OpenAIProvider

        return OpenAIProvider(api_key=config.api_key, base_url=config.base_url)
    from agentui.core.providers.scripted import ScriptedProvider

    assert config.script is not None, "settings validation requires a script for the scripted provider"
    return ScriptedProvider.from_file(config.script)
