"""The settings /config shows and changes: each one's value now, where that value comes from, and a change written
where it is read from and applied to the open conversation at once.

What Claude Code has and agentui reads from Claude Code's settings files (the default permission mode, verbose
output) is written where Claude Code's /config writes it, the person's `~/.claude/settings.json`. What agentui reads
from its own config file (the model, automatic compaction, thinking; the theme, which the app keeps) is written
there: its model names are any provider's (one in Claude Code's file would break Claude Code), and thinking is a
budget of tokens, off unless asked for, where Claude Code's is a switch that is on."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from agentui.core.claude_settings import SettingsError, SettingsSource, most_specific_first, set_user_setting
from agentui.core.dirs import config_dir
from agentui.core.errors import AgentuiError
from agentui.core.settings import DEFAULT_MODELS, ConfigError, ConfigFile, load_config_file, save_config_value

if TYPE_CHECKING:
    from agentui.core.conversation import Conversation
    from agentui.core.safety.permissions.engine import Mode

DEFAULT_THINKING_BUDGET = 8000
"""Tokens to think with when thinking is turned on and no budget was given (`--thinking enabled`'s too)."""
MODE_CHOICES: tuple[Mode, ...] = ("default", "acceptEdits", "plan")
"""The default modes offered (as Claude Code's /config: bypassPermissions is for the command line only)."""

Kind = Literal["switch", "choice", "text"]


class PreferenceError(AgentuiError):
    """A change that could not be saved; one sentence says why (nothing was written)."""


@dataclass(frozen=True)
class Preference:
    key: str
    label: str
    value: str | bool
    source: str
    """Where the value in force comes from, as the person reads it ("~/.claude/settings.json", "default")."""
    kind: Kind
    choices: tuple[str, ...] = ()


def preferences(conversation: Conversation, env: Mapping[str, str] | None = None) -> list[Preference]:
    """The settings agentui honours that /config changes, in the order it shows them (the theme is the app's)."""
    env = os.environ if env is None else env
    config, _ = _config(env)
    home = Path(env.get("HOME") or Path.home())
    sources = _sources_now(conversation, env)
    options = conversation.agent.config.options
    mode, mode_from = _default_mode(sources, conversation.project.trusted)
    verbose, verbose_from = _verbose(sources)
    thinking = options.thinking_budget is not None
    mode_source = _shown(mode_from, conversation.root, home)
    verbose_source = _shown(verbose_from, conversation.root, home)
    compact_source = _compact_source(options.auto_compact, config, env)
    return [
        Preference("defaultMode", "Default permission mode", mode, mode_source, "choice", MODE_CHOICES),
        Preference("model", "Model", conversation.model, _model_source(conversation, config, env), "text"),
        Preference("autoCompact", "Auto-compact", options.auto_compact, compact_source, "switch"),
        Preference("thinking", "Thinking", thinking, _thinking_source(conversation, config), "switch"),
        Preference("verbose", "Verbose output", verbose, verbose_source, "switch"),
    ]


def verbose_output(conversation: Conversation) -> bool:
    """Claude Code's `verbose` setting: every tool result and the model's thinking shown open as they come."""
    return _verbose(conversation.project.sources)[0]


def _sources_now(conversation: Conversation, env: Mapping[str, str]) -> list[SettingsSource]:
    """The settings files as they are on disk now (/config may have just written one); as the conversation read
    them at its start if one has since become unreadable."""
    from agentui.core.project import ProjectError, settings_sources

    try:
        return settings_sources(conversation.root, env, conversation.launch.permissions)
    except ProjectError:
        return conversation.project.sources


def set_preference(
    conversation: Conversation, key: str, value: str | bool, env: Mapping[str, str] | None = None
) -> str:
    """Save one setting where it is read from and apply it to `conversation` now; a sentence saying what was done.
    Raises PreferenceError (one sentence, nothing written) when the file cannot be written."""
    try:
        match key, value:
            case "defaultMode", str() if value in MODE_CHOICES:
                path = set_user_setting(("permissions", "defaultMode"), value, env)
                return _mode_changed(conversation, value, path, env)
            case "verbose", bool():
                path = set_user_setting(("verbose",), value, env)
                return f"Verbose output {'on' if value else 'off'}; saved to {_home_relative(path, env)}."
            case "model", str() if value.strip():
                path = save_config_value("model", value.strip(), env)
                conversation.set_model(value.strip())
                return f"Model set to {value.strip()}; saved to {_home_relative(path, env)}{_model_caveat(env)}."
            case "autoCompact", bool():
                path = save_config_value("auto_compact", value, env)
                _set_options(conversation, auto_compact=value)
                return f"Auto-compact {'on' if value else 'off'}; saved to {_home_relative(path, env)}."
            case "thinking", bool():
                budget = DEFAULT_THINKING_BUDGET if value else None
                path = save_config_value("thinking_budget", budget, env)
                _set_options(conversation, thinking_budget=budget)
                said = f"on ({DEFAULT_THINKING_BUDGET:,} tokens)" if value else "off"
                return f"Thinking {said}; saved to {_home_relative(path, env)}."
    except (SettingsError, ConfigError) as exc:
        raise PreferenceError(str(exc)) from None
    except OSError as exc:
        raise PreferenceError(f"The setting could not be saved ({exc.strerror or exc}); nothing was written.") from None
    raise PreferenceError(f"{value!r} is not a value /config can give {key}.")


def _mode_changed(conversation: Conversation, mode: str, path: Path, env: Mapping[str, str] | None) -> str:
    """The new default applies to this session too, unless a more specific settings file sets another."""
    saved = f"saved to {_home_relative(path, env)}"
    sources = _sources_now(conversation, os.environ if env is None else env)
    effective, source = _default_mode(sources, conversation.project.trusted)
    if effective != mode and source is not None:
        return f"Default permission mode {mode} {saved}, but {source.path} sets {effective}, which wins here."
    conversation.set_mode(MODE_CHOICES[MODE_CHOICES.index(mode)])
    return f"Default permission mode set to {mode} ({saved}); this session is in {mode} now."


def _set_options(conversation: Conversation, **changes: object) -> None:
    agent = conversation.agent
    options = agent.config.options.model_copy(update=changes)
    agent.config = agent.config.model_copy(update={"options": options})


def _config(env: Mapping[str, str]) -> tuple[ConfigFile, str | None]:
    try:
        return load_config_file(config_dir(env) / "config.json"), None
    except ConfigError as exc:
        return ConfigFile(), str(exc)


def _default_mode(sources: list[SettingsSource], trusted: bool) -> tuple[str, SettingsSource | None]:
    """The defaultMode of the most specific settings file that sets one (an untrusted project's permissive one
    does not count), and that file."""
    for source in most_specific_first(sources):
        mode = source.settings.permissions.defaultMode
        if mode is None or (source.from_project and not trusted and mode in ("acceptEdits", "bypassPermissions")):
            continue
        return mode, source
    return "default", None


def _verbose(sources: list[SettingsSource]) -> tuple[bool, SettingsSource | None]:
    for source in most_specific_first(sources):
        value = (source.settings.model_extra or {}).get("verbose")
        if isinstance(value, bool):
            return value, source
    return False, None


def _shown(source: SettingsSource | None, root: Path, home: Path) -> str:
    if source is None:
        return "default"
    for base, prefix in ((root, ""), (home, "~/")):
        try:
            return prefix + source.path.relative_to(base).as_posix()
        except ValueError:
            continue
    return str(source.path)


def _home_relative(path: Path, env: Mapping[str, str] | None) -> str:
    home = Path((env or os.environ).get("HOME") or Path.home())
    try:
        return "~/" + path.relative_to(home).as_posix()
    except ValueError:
        return str(path)


def _model_source(conversation: Conversation, config: ConfigFile, env: Mapping[str, str]) -> str:
    settings = conversation.launch.settings
    model = conversation.model
    saved = config.model == model and config.provider in (None, settings.provider)
    if model != settings.model:  # (switched since the start: by /config, which saves it, or by /model)
        return "agentui config" if saved else "/model (this session)"
    prefix = {"anthropic": "ANTHROPIC", "openai": "OPENAI", "openai-responses": "OPENAI"}.get(settings.provider)
    for name in (f"{prefix}_MODEL" if prefix else "", "AGENTUI_MODEL"):
        if name and env.get(name) == model:
            return name
    if saved:
        return "agentui config"
    if (main := (config.routes or {}).get("main")) is not None and main.model == model:
        return "agentui config (routes.main)"
    return "default" if DEFAULT_MODELS.get(settings.provider) == model else "--model"


def _model_caveat(env: Mapping[str, str] | None) -> str:
    names = [name for name in ("ANTHROPIC_MODEL", "OPENAI_MODEL", "AGENTUI_MODEL") if (env or os.environ).get(name)]
    return f" (at the next start, {names[0]} still wins)" if names else ""


def _compact_source(live: bool, config: ConfigFile, env: Mapping[str, str]) -> str:
    if config.auto_compact is not None:
        return "agentui config" if config.auto_compact == live else "this session"
    if env.get("DISABLE_AUTO_COMPACT") and not live:
        return "DISABLE_AUTO_COMPACT"
    return "default" if live else "this session"


def _thinking_source(conversation: Conversation, config: ConfigFile) -> str:
    budget = conversation.agent.config.options.thinking_budget
    if budget is not None and budget == config.thinking_budget:
        return f"agentui config ({budget:,} tokens)"
    if budget is not None:
        return f"the command line ({budget:,} tokens)"
    return "default" if config.thinking_budget is None else "the command line"
