"""Claude Code's `model` and `effortLevel` settings, for a launch that names neither: the most specific settings
file that has one decides (managed over local over project over the person's own), as in Claude Code, where
`--model`, ANTHROPIC_MODEL and `--effort` come first, and where Opus 4.7 and 4.8 start at their own effort whatever
`effortLevel` says. agentui's own config file and environment come first too (they
name agentui's choice). A Claude model name means something only where Claude is served, so elsewhere `model` is
left alone."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import get_args

from agentui.core.claude_settings import SettingsSource, most_specific_first
from agentui.core.model_aliases import resolve
from agentui.core.providers import CLAUDE_PLATFORMS
from agentui.core.providers.claude_effort import setting_applies
from agentui.core.run_options import Effort
from agentui.core.settings import DEFAULT_MODELS, Settings


def setting(sources: Sequence[SettingsSource], key: str) -> object:
    """The value of `key` in the most specific settings file that sets it; None where none does."""
    for source in most_specific_first(sources):
        value = (source.settings.model_extra or {}).get(key)
        if value is not None:
            return value
    return None


def with_claude_choices(settings: Settings, sources: Sequence[SettingsSource], env: Mapping[str, str]) -> Settings:
    """`settings` with the model and effort Claude Code's settings files choose, where nothing else named them."""
    model = setting(sources, "model")
    if not settings.model_named and settings.provider in CLAUDE_PLATFORMS and isinstance(model, str) and model.strip():
        chosen = resolve(model, settings.provider, env, DEFAULT_MODELS[settings.provider])
        settings = settings.model_copy(
            update={"model": chosen.model, "default_model": chosen.model, "model_alias": chosen.alias}
        )
    effort = setting(sources, "effortLevel")
    if settings.options.effort is None and effort in get_args(Effort) and setting_applies(settings.model):
        settings = settings.with_effort(effort)  # type: ignore[arg-type]
    return settings
