"""Model providers. Each lives in its own module and is imported only when it is chosen."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentui.core.providers.base import Provider
    from agentui.core.settings import Settings


def create_provider(settings: Settings) -> Provider:
    """The provider `settings` name, configured from them (the key, the base URL, the script file)."""
    if settings.provider == "anthropic":
        from agentui.core.providers.anthropic import AnthropicProvider

        return AnthropicProvider(
            api_key=settings.api_key, auth_token=settings.auth_token, base_url=settings.base_url, betas=settings.betas
        )
    if settings.provider == "openai":
        from agentui.core.providers.openai import OpenAIProvider

        return OpenAIProvider(api_key=settings.api_key, base_url=settings.base_url)
    from agentui.core.providers.scripted import ScriptedProvider

    assert settings.script is not None, "settings validation requires a script for the scripted provider"
    return ScriptedProvider.from_file(settings.script)
