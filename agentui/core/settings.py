"""Which model and provider to use: from flags, then the environment, then agentui's config file.

The config file is `config.json` in the platformdirs user config directory (or `$AGENTUI_CONFIG_DIR`), e.g.
`{"provider": "openai", "base_url": "http://127.0.0.1:11434/v1", "model": "qwen2.5-coder"}`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agentui.core.context.memory import AgentsMd
from agentui.core.dirs import config_dir
from agentui.core.errors import AgentuiError
from agentui.core.extend.openapi.config import OpenApiConfig
from agentui.core.model_aliases import family_model, regional
from agentui.core.model_aliases import resolve as resolve_alias
from agentui.core.provider_env import PROVIDER_ENV, bedrock_region, gemini_on_vertex, switched_on
from agentui.core.providers import CLAUDE_PLATFORMS, ProviderConfig, ProviderName
from agentui.core.run_options import Effort, ModelOptions, RunLimits

NumberT = TypeVar("NumberT", int, float)
PROVIDERS: tuple[ProviderName, ...] = get_args(ProviderName)

DEFAULT_MODELS: dict[ProviderName, str] = {
    "anthropic": "claude-sonnet-4-5",
    "bedrock": "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    "vertex": "claude-sonnet-4-5@20250929",
    "openai": "gpt-4.1",
    "openai-responses": "gpt-5",
    "gemini": "gemini-3.8-flash",
    "scripted": "scripted",
}
SMALL_ANTHROPIC_MODEL = "claude-haiku-4-5"
"""The model of small side calls on Anthropic's own API (a base URL may point at a server without it)."""

MIN_AUTO_COMPACT_WINDOW, MAX_AUTO_COMPACT_WINDOW = 100_000, 1_000_000
"""The bounds Claude Code keeps CLAUDE_CODE_AUTO_COMPACT_WINDOW within."""

NO_CREDENTIALS = (
    "No model is configured: set ANTHROPIC_API_KEY (or OPENAI_API_KEY), or point ANTHROPIC_BASE_URL or "
    "OPENAI_BASE_URL at a local server such as llama.cpp or Ollama (http://127.0.0.1:11434/v1)."
)


ROUTE_KINDS = ("main", "orchestration", "subagent", "compaction", "title", "webfetch", "judge", "hook")
"""The kinds of model call a route can send elsewhere; "subagent:<type>" names one type of sub-agent."""


class ConfigError(AgentuiError):
    """The configuration cannot be used; the message is one sentence saying what to fix."""


class Route(BaseModel):
    """Where one kind of model call goes: a model, on a provider (None: the conversation's) at a server (None: the
    provider's own, or its *_BASE_URL). Its key comes from the provider's environment variable, never from here."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str = Field(min_length=1)
    provider: ProviderName | None = None
    base_url: str | None = None

    @classmethod
    def parse(cls, spec: str) -> Route:
        """ "claude-haiku-4-5", or a provider and a model: "openai:qwen2.5-coder:7b"."""
        provider, separator, model = spec.partition(":")
        if separator and provider in PROVIDERS and model:
            return cls(model=model, provider=provider)
        return cls(model=spec)

    def label(self) -> str:
        return f"{self.provider}:{self.model}" if self.provider else self.model


def _routes(value: object) -> dict[str, Route]:
    if not isinstance(value, dict):
        raise ValueError("routes must be an object of call kinds and models")
    found: dict[str, Route] = {}
    for kind, rule in value.items():
        rounds = kind.startswith("round:") and kind[6:].isdigit() and int(kind[6:]) >= 1
        if kind not in ROUTE_KINDS and not (kind.startswith("subagent:") and kind != "subagent:") and not rounds:
            raise ValueError(
                f"{kind!r} is not a kind of call (one of {', '.join(ROUTE_KINDS)}, subagent:<type> or round:<N>)"
            )
        found[kind] = Route.parse(rule) if isinstance(rule, str) else Route.model_validate(rule)
    return found


class InputFilter(BaseModel):
    """A command that reads each prompt before the model does and may reject it (`extend.input_filters`):
    `{"command": "...", "timeout": 60}`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    command: str = Field(min_length=1)
    timeout: float = Field(default=60.0, gt=0)
    """Seconds it may take (as a hook's `timeout`): then it is stopped, and the prompt goes on."""


class ConfigFile(BaseModel):
    """agentui's own settings file. Unknown keys are an error, so a typo does not pass silently."""

    model_config = ConfigDict(extra="forbid")

    provider: ProviderName | None = None
    model: str | None = None
    """Applies when `provider` is unset or is the provider in use."""
    base_url: str | None = None
    """Applies when `provider` is unset or is the provider in use."""
    max_tokens: int | None = Field(default=None, ge=1)
    max_attempts: int | None = Field(default=None, ge=1, le=50)
    wait_for_limits: bool | None = None
    """A rate or usage limit that resets beyond the retry window is waited out: on in the app, off in print mode
    (--wait-for-limits) unless this says true."""
    max_limit_wait_hours: float | None = Field(default=None, gt=0)
    """The longest limit wait taken without asking (6 by default): the app asks, print mode refuses."""
    thinking_budget: int | None = Field(default=None, ge=1024)
    context_window: int | None = Field(default=None, ge=1)
    """The model's context window in tokens, for models the built-in table does not know."""
    compact_threshold: float | None = Field(default=None, ge=0.01, le=1.0)
    """How full the context may get (0.9 = 90%) before older turns are summarised."""
    auto_compact: bool | None = None
    compact_by_topic: bool | None = None
    """Whether a compaction summarises each piece of work in the older turns apart, a section each (true)."""
    compact_carry: bool | None = None
    """Whether summaries carry the person's instructions ("always …") and pinned messages verbatim (true)."""
    auto_compact_window: int | None = Field(default=None, ge=MIN_AUTO_COMPACT_WINDOW, le=MAX_AUTO_COMPACT_WINDOW)
    """The window, in tokens, that automatic compaction counts against when smaller than the model's (Claude Code's
    CLAUDE_CODE_AUTO_COMPACT_WINDOW): a 1M-token model can be kept to 200,000."""
    small_model: str | None = None
    """The model for small calls beside the conversation (WebFetch's answers); by default Claude Haiku on
    Anthropic's own API, else the main model."""
    max_budget_usd: float | None = Field(default=None, gt=0)
    """What a run (with its sub-agents) may spend before it stops, unless --max-budget-usd says otherwise."""
    max_total_tokens: int | None = Field(default=None, ge=1)
    """The tokens a run (with its sub-agents) may use before it stops, unless --max-total-tokens says otherwise."""
    max_duration: float | None = Field(default=None, gt=0)
    """The seconds a run may take before it stops, unless --max-duration says otherwise."""
    subagent_timeout: float | None = Field(default=None, gt=0)
    """The seconds each sub-agent may take (asked to wrap up at 80%), unless --subagent-timeout says otherwise."""
    max_subagents: int | None = Field(default=None, ge=1)
    """How many sub-agents run at once (the others wait their turn), unless AGENTUI_MAX_SUBAGENTS says otherwise;
    10 by default."""
    openapi: dict[str, OpenApiConfig] | None = None
    """APIs whose operations become tools (`openapi__<api>__<operation>`): {"pets": {"spec": "pets.yaml",
    "operations": ["listPets"], "auth": {"env": "PETS_TOKEN"}}}; a relative spec path is in this file's directory."""
    routes: dict[str, Route] | None = None
    """Which model (on which provider) each kind of call goes to: {"compaction": "openai:qwen2.5-coder", "main":
    {"provider": "anthropic", "model": "claude-sonnet-4-5"}, "subagent:Explore": "claude-haiku-4-5"}."""
    script: Path | None = None
    input_filters: list[InputFilter] | None = None
    """Commands that read each prompt before the model does and may reject it: [{"command": "...", "timeout": 60}]
    (see `extend.input_filters`)."""
    theme: str | None = None
    """The app's theme, remembered when /theme switches it."""
    tool_filter_limit: int | None = Field(default=None, ge=1)
    """With more tools than this (60 by default), only the built-in ones and those the task points to are sent; the
    model finds the rest with ToolSearch."""
    question_timeout: float | None = Field(default=None, gt=0)
    """Seconds an AskUserQuestion waits for an answer before it goes on with each question's first option (its
    stated default); unset: it waits as long as it takes."""
    agents_md: AgentsMd | None = None
    """Where AGENTS.md is read as memory: "fallback" (in a directory without CLAUDE.md, the default), "beside"
    (with CLAUDE.md too) or "off" (never, as Claude Code)."""
    plan_queue: bool | None = None
    """Plan mode queues the model's edits for the plan's approval instead of refusing them (as `--permission-mode
    plan-queue`); off by default, as Claude Code's plan mode."""
    learnings: bool | None = None
    """Whether failures a run overcame are kept as learnings of the project, and the most relevant few join the
    system prompt (on unless false)."""
    lsp: bool | None = None
    """Diagnostics after each edit and the LSP tool, from a language server installed here (on unless false;
    AGENTUI_LSP=0 turns it off too)."""
    lsp_wait: float | None = Field(default=None, gt=0, le=60)
    """Seconds an edit waits at most for the language server's diagnostics (2 unless set)."""

    @field_validator("routes", mode="before")
    @classmethod
    def _check_routes(cls, value: object) -> object:
        return None if value is None else _routes(value)


class Settings(BaseModel):
    """Everything resolved: what the provider, the agent and the retry policy are built from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    provider: ProviderName
    model: str
    default_model: str | None = None
    """The model the configuration gives without --model (what the `default` alias means); None: `model`."""
    model_alias: str | None = None
    """The alias `model` was chosen by ("opus", "opusplan"), if it was."""
    model_named: bool = False
    """A flag, the environment or agentui's config file named the model (else Claude Code's `model` setting may)."""
    base_url: str | None = None
    api_key: str | None = Field(default=None, repr=False)
    auth_token: str | None = Field(default=None, repr=False)
    small_model: str | None = None
    """The model for small calls beside the conversation; None for the main model."""
    betas: tuple[str, ...] = ()
    """Messages API beta features to ask for (--betas), sent as `anthropic-beta`."""
    script: Path | None = None
    region: str | None = None
    """The cloud region (Bedrock, Vertex); None where the provider has none."""
    project: str | None = None
    """The Google Cloud project (Vertex)."""
    max_attempts: int = 10
    max_retry_wait: float = 60.0
    """The longest retry-after a server may ask for that is waited out (AGENTUI_MAX_RETRY_WAIT, seconds)."""
    wait_for_limits: bool | None = None
    """Whether a limit that resets later is waited out (ConfigFile.wait_for_limits); None: the front end decides."""
    max_limit_wait_hours: float = 6.0
    options: ModelOptions = ModelOptions()
    """How each model call is made and when the context is compacted: passed to the agent as it is."""
    limits: RunLimits = RunLimits()
    """What a run may use, from the config file (the command line's limits take their place)."""
    routes: dict[str, Route] = Field(default_factory=dict)
    """The config file's routes, "main" already applied to the provider and model above."""
    agents_md: AgentsMd = "fallback"
    """Where AGENTS.md is read as memory (ConfigFile.agents_md)."""
    plan_queue: bool = False
    """Plan mode queues changes (ConfigFile.plan_queue)."""
    learnings: bool = True
    """Memory that learns (ConfigFile.learnings)."""
    lsp: bool = True
    """Language servers after edits (ConfigFile.lsp, AGENTUI_LSP)."""
    lsp_wait: float = 2.0
    """The longest wait for an edit's diagnostics (ConfigFile.lsp_wait)."""
    openapi: dict[str, OpenApiConfig] = Field(default_factory=dict)
    tool_filter_limit: int = 60
    """With more tools than this, the tool filter chooses what is sent (ConfigFile.tool_filter_limit)."""
    question_timeout: float | None = None
    """Seconds AskUserQuestion waits before going on with the stated defaults (ConfigFile.question_timeout)."""
    input_filters: tuple[InputFilter, ...] = ()
    """The config file's input filters (ConfigFile.input_filters)."""

    def with_thinking(self, budget: int | None) -> Settings:
        """The same settings with `budget` tokens to think with (None: no thinking)."""
        return self.model_copy(update={"options": self.options.model_copy(update={"thinking_budget": budget})})

    def with_effort(self, effort: Effort | None) -> Settings:
        """The same settings with `effort` asked of the model (None: the provider's default)."""
        return self.model_copy(update={"options": self.options.model_copy(update={"effort": effort})})

    def provider_config(self) -> ProviderConfig:
        """What `create_provider` makes the provider from."""
        return ProviderConfig(
            self.provider,
            self.base_url,
            self.api_key,
            self.auth_token,
            self.betas,
            self.script,
            region=self.region,
            project=self.project,
        )


@dataclass(frozen=True)
class Overrides:
    """What the command line says; None means "not given"."""

    provider: ProviderName | None = None
    model: str | None = None
    base_url: str | None = None
    script: Path | None = None


def load_config_file(path: Path) -> ConfigFile:
    """Read the config file; a missing file is an empty config, a broken one a ConfigError naming the problem."""
    from agentui.core.jsonfile import read_json_model

    found = read_json_model(
        path, ConfigFile, name="agentui's config file", error=ConfigError, advice="fix or delete it"
    )
    return found or ConfigFile()


def save_config_value(key: str, value: object, env: Mapping[str, str] | None = None) -> Path:
    """Set one key in agentui's config file (None removes it), keeping the rest as it is (written atomically)."""
    import json

    from agentui.core.atomic_write import atomic_write

    if key not in ConfigFile.model_fields:
        raise ConfigError(f"{key!r} is not a setting of agentui's config file.")
    path = config_dir(env) / "config.json"
    load_config_file(path)  # refuse to overwrite a file we cannot read
    data = json.loads(path.read_text(encoding="utf-8") or "{}") if path.exists() else {}
    if value is None:
        data.pop(key, None)
    else:
        data[key] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(Path(os.path.realpath(path)), (json.dumps(data, indent=2) + "\n").encode())
    return path


def resolve_settings(
    overrides: Overrides, env: Mapping[str, str] | None = None, config: ConfigFile | None = None
) -> Settings:
    env = os.environ if env is None else env
    config = config if config is not None else load_config_file(config_dir(env) / "config.json")
    routes = config.routes or {}
    overrides = _with_main_route(overrides, routes)

    provider = (
        overrides.provider
        or _provider_from_env(env)
        or switched_on(env)
        or config.provider
        or _inferred_provider(env, overrides)
    )
    if provider is None:
        raise ConfigError(NO_CREDENTIALS)
    config_applies = config.provider in (None, provider)
    names = PROVIDER_ENV[provider]

    fallback = regional(DEFAULT_MODELS[provider], provider, env)  # (Bedrock's: its region's inference profile)
    named = names.first(names.model, env) or env.get("AGENTUI_MODEL") or (config.model if config_applies else None)
    configured = named or fallback
    default = resolve_alias(configured, provider, env, fallback)  # (a setting may name an alias)
    chosen = resolve_alias(overrides.model, provider, env, default.model) if overrides.model else default
    base_url = overrides.base_url or names.first(names.base_url, env) or (config.base_url if config_applies else None)
    api_key = names.first(names.api_key, env)
    auth_token = names.first(names.auth_token, env)
    script = overrides.script or (Path(env["AGENTUI_SCRIPT"]) if env.get("AGENTUI_SCRIPT") else None) or config.script

    if provider == "scripted" and script is None:
        raise ConfigError("The scripted provider needs a script: pass --script FILE (a JSON list of responses).")
    if names.key_required and not (api_key or auth_token or base_url):
        raise ConfigError(NO_CREDENTIALS)

    attempts = _env_number(env, "AGENTUI_MAX_ATTEMPTS", lambda v: max(1, int(v)), "a whole number, such as 3")
    retry_wait = _env_number(
        env, "AGENTUI_MAX_RETRY_WAIT", lambda v: max(0.0, float(v)), "a number of seconds, such as 300"
    )
    max_attempts = attempts if attempts is not None else config.max_attempts or 10
    max_retry_wait = retry_wait if retry_wait is not None else 60.0
    small_model = _small_model(env, provider, base_url, config.small_model if config_applies else None)
    return Settings(
        provider=provider,
        model=chosen.model,
        default_model=default.model,
        model_alias=chosen.alias,
        model_named=bool(named or overrides.model),
        small_model=small_model,
        base_url=base_url,
        api_key=api_key or None,
        auth_token=auth_token or None,
        script=script,
        region=_region(provider, env),
        project=names.first(names.project, env),
        max_attempts=max_attempts,
        max_retry_wait=max_retry_wait,
        wait_for_limits=config.wait_for_limits,
        max_limit_wait_hours=config.max_limit_wait_hours or 6.0,
        options=_model_options(config, env),
        limits=_run_limits(config, env),
        routes=routes,
        openapi=config.openapi or {},
        input_filters=tuple(config.input_filters or ()),
        agents_md=config.agents_md or "fallback",
        plan_queue=bool(config.plan_queue),
        learnings=config.learnings is not False,
        lsp=config.lsp is not False and env.get("AGENTUI_LSP", "").strip().lower() not in ("0", "false", "off"),
        lsp_wait=config.lsp_wait or 2.0,
        tool_filter_limit=config.tool_filter_limit or 60,
        question_timeout=config.question_timeout,
    )


def _run_limits(config: ConfigFile, env: Mapping[str, str]) -> RunLimits:
    return RunLimits(
        max_budget_usd=config.max_budget_usd,
        max_total_tokens=config.max_total_tokens,
        max_seconds=config.max_duration,
        subagent_seconds=config.subagent_timeout,
        max_subagents=_env_number(
            env, "AGENTUI_MAX_SUBAGENTS", lambda v: max(1, int(v)), "a whole number of sub-agents, such as 4"
        )
        or config.max_subagents,
    )


def _model_options(config: ConfigFile, env: Mapping[str, str]) -> ModelOptions:
    """The model calls' and compaction's options: the config file's, with Claude Code's environment variables over
    them."""
    percent = _env_number(  # (Claude Code's knob, in percent)
        env,
        "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE",
        lambda v: min(1.0, max(0.01, float(v) / 100)),
        "a percentage, such as 80",
    )
    window = _env_number(  # (Claude Code's knob: out-of-range values are brought in range)
        env,
        "CLAUDE_CODE_AUTO_COMPACT_WINDOW",
        lambda v: min(MAX_AUTO_COMPACT_WINDOW, max(MIN_AUTO_COMPACT_WINDOW, int(v))),
        "a number of tokens, such as 200000",
    )
    named = _env_number(
        env, "CLAUDE_CODE_MAX_OUTPUT_TOKENS", lambda v: max(1, int(v)), "a number of tokens, such as 32000"
    )
    return ModelOptions(
        max_tokens=named or config.max_tokens or 8192,
        max_tokens_named=bool(named or config.max_tokens),
        thinking_budget=config.thinking_budget,
        context_window=config.context_window,
        compact_threshold=percent if percent is not None else config.compact_threshold or 0.9,
        auto_compact=config.auto_compact if config.auto_compact is not None else not env.get("DISABLE_AUTO_COMPACT"),
        auto_compact_window=window if window is not None else config.auto_compact_window,
        compact_by_topic=config.compact_by_topic is not False,
        compact_carry=config.compact_carry is not False,
    )


def _with_main_route(overrides: Overrides, routes: Mapping[str, Route]) -> Overrides:
    """The main loop's route is the default model; --model and --provider still choose for one run."""
    if (main := routes.get("main")) is None or overrides.provider or overrides.model:
        return overrides
    return Overrides(
        main.provider or overrides.provider, main.model, main.base_url or overrides.base_url, overrides.script
    )


def _env_number(env: Mapping[str, str], name: str, convert: Callable[[str], NumberT], what: str) -> NumberT | None:
    """The number the environment variable `name` gives, converted; None if it is unset or empty. ConfigError, in one
    sentence, if it is not `what` it must be."""
    if not env.get(name):
        return None
    try:
        return convert(env[name])
    except ValueError:
        raise ConfigError(f"{name} must be {what}.") from None


def _small_model(
    env: Mapping[str, str], provider: ProviderName, base_url: str | None, configured: str | None
) -> str | None:
    """The model for small calls: AGENTUI_SMALL_MODEL, Claude Code's variables for it, the config file's, or
    Anthropic's small model when the Messages API is Anthropic's own."""
    return (
        env.get("AGENTUI_SMALL_MODEL")
        or (
            env.get("ANTHROPIC_SMALL_FAST_MODEL") or env.get("ANTHROPIC_DEFAULT_HAIKU_MODEL")
            if provider in CLAUDE_PLATFORMS
            else None
        )
        or configured
        or (SMALL_ANTHROPIC_MODEL if provider == "anthropic" and base_url is None else None)
        or (family_model("haiku", env, provider) if provider == "bedrock" else None)  # (Claude Code's small model)
    )


def _region(provider: ProviderName, env: Mapping[str, str]) -> str | None:
    if provider == "bedrock":  # (Claude Code reads the AWS profile's region too)
        return bedrock_region(env)
    names = PROVIDER_ENV[provider]
    return names.first(names.region, env) or names.default_region


def _provider_from_env(env: Mapping[str, str]) -> ProviderName | None:
    value = env.get("AGENTUI_PROVIDER", "").strip().lower()
    if not value:
        return None
    if value not in PROVIDERS:
        raise ConfigError(f"AGENTUI_PROVIDER must be one of {', '.join(PROVIDERS)}, not {value!r}.")
    return value


def _inferred_provider(env: Mapping[str, str], overrides: Overrides) -> ProviderName | None:
    """The provider whose credentials or server are in the environment; Anthropic's first, as Claude Code's."""
    if any(env.get(name) for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL")):
        return "anthropic"
    if any(env.get(name) for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL")):
        return "openai"
    if any(env.get(name) for name in ("GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL")) or gemini_on_vertex(env):
        return "gemini"
    if overrides.script is not None:
        return "scripted"
    if overrides.base_url is not None:
        return "anthropic"
    return None
