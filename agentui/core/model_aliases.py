"""Claude Code's model aliases (`sonnet`, `opus`, `haiku`, `sonnet[1m]`, `opusplan`, `default`) and what each means
on Anthropic's API today, as Claude Code 2.1.197 resolves them: for `--model`, the `model` setting and `/model`. On
an OpenAI-compatible server a Claude alias means nothing, so it is passed as typed (`default` excepted: it is
agentui's own word for "the model the configuration gives")."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

ALIASES = ("default", "sonnet", "opus", "haiku", "sonnet[1m]", "opusplan")
"""The names a person can pick, in the order the picker offers them."""

FAMILIES: dict[str, tuple[str, str, str]] = {
    # family: (Claude Code's first-party model id, the variable that names another, its name for people)
    "sonnet": ("claude-sonnet-5", "ANTHROPIC_DEFAULT_SONNET_MODEL", "Sonnet 5"),
    "opus": ("claude-opus-4-8", "ANTHROPIC_DEFAULT_OPUS_MODEL", "Opus 4.8"),
    "haiku": ("claude-haiku-4-5-20251001", "ANTHROPIC_DEFAULT_HAIKU_MODEL", "Haiku 4.5"),
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


def family_model(family: str, env: Mapping[str, str]) -> str:
    model, variable, _ = FAMILIES[family]
    return env.get(variable) or model


def resolve(typed: str, provider: str, env: Mapping[str, str], default: str) -> Resolved:
    """`typed` as a model: an alias resolved for Anthropic's API (`default`: `default`, the configured model, on any
    provider), anything else as it is."""
    name = typed.strip()
    alias = name.lower()
    if alias == "default":
        return Resolved(name, default, "default")
    if provider != "anthropic" or alias not in ALIASES:
        return Resolved(name, name)
    if alias == "opusplan":
        return Resolved(name, family_model("sonnet", env), alias, family_model("opus", env))
    if alias.endswith(LONG_CONTEXT):
        return Resolved(name, family_model(alias.removesuffix(LONG_CONTEXT), env) + LONG_CONTEXT, alias)
    return Resolved(name, family_model(alias, env), alias)


def described(alias: str, provider: str, env: Mapping[str, str], default: str) -> str:
    """One line for the picker: what the alias means here."""
    if alias == "default":
        return f"the configured model ({default})"
    if provider != "anthropic":
        return "Claude Code's alias, sent as typed (this server names its own models)"
    if alias == "opusplan":
        return f"{FAMILIES['opus'][2]} in plan mode, else {FAMILIES['sonnet'][2]}"
    family = alias.removesuffix(LONG_CONTEXT)
    name = FAMILIES[family][2] + (" with the 1M-token context window" if alias.endswith(LONG_CONTEXT) else "")
    return f"{name} ({resolve(alias, provider, env, default).model})"


def without_long_context(model: str) -> tuple[str, bool]:
    """The model id a request names, and whether it asks for the 1M-token window ("claude-sonnet-5[1m]")."""
    if model.lower().endswith(LONG_CONTEXT):
        return model[: -len(LONG_CONTEXT)], True
    return model, False
