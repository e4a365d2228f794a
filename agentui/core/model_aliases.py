"""Claude Code's model aliases (`sonnet`, `opus`, `haiku`, `sonnet[1m]`, `opusplan`, `default`) and what each means
on each platform that serves Claude (Anthropic's API, Amazon Bedrock, Google Vertex AI), as Claude Code 2.1.197
resolves them: for `--model`, the `model` setting and `/model`. On any other provider a Claude alias means nothing,
so it is passed as typed (`default` excepted: it is agentui's own word for "the model the configuration gives")."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from agentui.core.providers import CLAUDE_PLATFORMS

ALIASES = ("default", "sonnet", "opus", "haiku", "sonnet[1m]", "opusplan")
"""The names a person can pick, in the order the picker offers them."""

FAMILIES: dict[str, tuple[str, str, str]] = {
    # family: (Claude Code's first-party model id, the variable that names another, its name for people)
    "sonnet": ("claude-sonnet-5", "ANTHROPIC_DEFAULT_SONNET_MODEL", "Sonnet 5"),
    "opus": ("claude-opus-4-8", "ANTHROPIC_DEFAULT_OPUS_MODEL", "Opus 4.8"),
    "haiku": ("claude-haiku-4-5-20251001", "ANTHROPIC_DEFAULT_HAIKU_MODEL", "Haiku 4.5"),
}
PLATFORM_MODELS: dict[str, dict[str, str]] = {
    # platform: {family: the id Claude Code 2.1.197 asks that platform for}
    # (Bedrock's are its US cross-region inference profiles; `regional` gives the one for the region in use)
    "bedrock": {
        "sonnet": "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "opus": "us.anthropic.claude-opus-4-6-v1",
        "haiku": "us.anthropic.claude-haiku-4-5-20251001-v1:0",
    },
    # (read from the request paths of the real CLI with CLAUDE_CODE_USE_VERTEX=1: tests/interop/test_vertex_aliases.py)
    "vertex": {"sonnet": "claude-sonnet-4-5@20250929", "opus": "claude-opus-4-6", "haiku": "claude-haiku-4-5@20251001"},
}
LONG_CONTEXT = "[1m]"
"""The suffix that asks for the 1M-token context window (the Messages API's `context-1m-2025-08-07` beta)."""
LONG_CONTEXT_BETA = "context-1m-2025-08-07"


@dataclass(frozen=True)
class Resolved:
    """What a typed model name means: the model requests carry, and with `opusplan` the one plan mode uses."""

    typed: str
    model: str
    alias: str | None = None
    """The alias it was chosen by (lower case), None for a model id."""
    plan_model: str | None = None
    """`opusplan`: the model while the permission mode is plan (else `model`)."""

    @property
    def label(self) -> str:
        """How the status bar shows the choice: "opus (claude-opus-4-8)", or the id alone."""
        return f"{self.alias} ({self.model})" if self.alias and self.alias != self.model else self.model


def family_model(family: str, env: Mapping[str, str], provider: str = "anthropic") -> str:
    """The model an alias of `family` names on `provider`: its ANTHROPIC_DEFAULT_*_MODEL, else Claude Code's."""
    model, variable, _ = FAMILIES[family]
    return env.get(variable) or regional(PLATFORM_MODELS.get(provider, {}).get(family, model), provider, env)


GEO_PREFIXES = ("us", "eu", "apac", "jp", "au", "us-gov", "global")
"""The prefixes of Bedrock's cross-region inference profiles ("us.anthropic.claude-...")."""


def geo_prefix(region: str) -> str:
    """The cross-region inference profiles' prefix Claude Code picks for an AWS region."""
    for start, geo in (("us-gov-", "us-gov"), ("us-", "us"), ("eu-", "eu"), ("ap-", "apac")):
        if region.startswith(start):
            return geo
    return "global"


def regional(model: str, provider: str, env: Mapping[str, str]) -> str:
    """One of Claude Code's built-in Bedrock ids as it asks for it from the region in use: "us.anthropic..." is
    "eu.anthropic..." from eu-west-1, "apac." from ap-*, "global." from elsewhere. Other providers' ids as they are."""
    if provider != "bedrock":
        return model
    from agentui.core.provider_env import bedrock_region

    geo, _, rest = model.partition(".")
    return f"{geo_prefix(bedrock_region(env))}.{rest}" if geo in GEO_PREFIXES else model


def resolve(typed: str, provider: str, env: Mapping[str, str], default: str) -> Resolved:
    """`typed` as a model: an alias resolved for Anthropic's API (`default`: `default`, the configured model, on any
    provider), anything else as it is."""
    name = typed.strip()
    alias = name.lower()
    if alias == "default":
        return Resolved(name, default, "default")
    if provider not in CLAUDE_PLATFORMS or alias not in ALIASES:
        return Resolved(name, name)
    if alias == "opusplan":
        return Resolved(name, family_model("sonnet", env, provider), alias, family_model("opus", env, provider))
    if alias.endswith(LONG_CONTEXT):
        return Resolved(name, family_model(alias.removesuffix(LONG_CONTEXT), env, provider) + LONG_CONTEXT, alias)
    return Resolved(name, family_model(alias, env, provider), alias)


def described(alias: str, provider: str, env: Mapping[str, str], default: str) -> str:
    """One line for the picker: what the alias means here."""
    if alias == "default":
        return f"the configured model ({default})"
    if provider not in CLAUDE_PLATFORMS:
        return "Claude Code's alias, sent as typed (this server names its own models)"
    if alias == "opusplan":
        return f"{FAMILIES['opus'][2]} in plan mode, else {FAMILIES['sonnet'][2]}"
    family = alias.removesuffix(LONG_CONTEXT)
    name = FAMILIES[family][2] + (" with the 1M-token context window" if alias.endswith(LONG_CONTEXT) else "")
    return f"{name} ({resolve(alias, provider, env, default).model})"


def claude_name(model: str) -> str:
    """A Claude model's name as Anthropic's API has it, whatever the platform's id for it (Bedrock's
    `us.anthropic.claude-sonnet-4-5-20250929-v1:0` or an inference profile's ARN, Vertex's
    `claude-sonnet-4-5@20250929`), in lower case, for the tables kept by model (windows, prices, output limits);
    any other model's name in lower case."""
    name = model.lower()
    at = name.find("claude-")
    return name[at:] if at >= 0 else name


def without_long_context(model: str) -> tuple[str, bool]:
    """The model id a request names, and whether it asks for the 1M-token window ("claude-sonnet-5[1m]")."""
    if model.lower().endswith(LONG_CONTEXT):
        return model[: -len(LONG_CONTEXT)], True
    return model, False
