"""Settings come from flags, then the environment, then the config file; bad ones fail with one sentence."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentui.core.settings import (
    NO_CREDENTIALS,
    ConfigError,
    ConfigFile,
    Overrides,
    config_dir,
    load_config_file,
    resolve_settings,
)


def test_no_credentials_at_all_is_one_sentence() -> None:
    with pytest.raises(ConfigError) as caught:
        resolve_settings(Overrides(), env={}, config=ConfigFile())
    assert str(caught.value) == NO_CREDENTIALS
    assert str(caught.value).count(". ") == 0  # one sentence


def test_an_anthropic_key_picks_anthropic_with_its_default_model() -> None:
    settings = resolve_settings(Overrides(), env={"ANTHROPIC_API_KEY": "sk"}, config=ConfigFile())
    assert (settings.provider, settings.model, settings.api_key, settings.base_url) == (
        "anthropic",
        "claude-sonnet-4-5",
        "sk",
        None,
    )
    assert "sk" not in repr(settings)  # keys stay out of logs and tracebacks


def test_a_local_openai_compatible_server_needs_no_key() -> None:
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1", "OPENAI_MODEL": "qwen2.5-coder"}
    settings = resolve_settings(Overrides(), env=env, config=ConfigFile())
    assert (settings.provider, settings.model, settings.base_url, settings.api_key) == (
        "openai",
        "qwen2.5-coder",
        "http://127.0.0.1:11434/v1",
        None,
    )


def test_flags_beat_the_environment_which_beats_the_config_file() -> None:
    config = ConfigFile(provider="anthropic", model="from-config", base_url="http://config", max_tokens=1000)
    env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_MODEL": "from-env", "ANTHROPIC_BASE_URL": "http://env"}
    assert resolve_settings(Overrides(), env=env, config=config).model == "from-env"
    assert resolve_settings(Overrides(), env={"ANTHROPIC_API_KEY": "k"}, config=config).model == "from-config"
    flagged = resolve_settings(Overrides(model="from-flag", base_url="http://flag"), env=env, config=config)
    assert (flagged.model, flagged.base_url, flagged.options.max_tokens) == ("from-flag", "http://flag", 1000)


def test_the_config_files_model_applies_only_to_its_own_provider() -> None:
    config = ConfigFile(provider="openai", model="llama3.2", base_url="http://127.0.0.1:11434/v1")
    assert resolve_settings(Overrides(), env={}, config=config).model == "llama3.2"
    other = resolve_settings(Overrides(provider="anthropic"), env={"ANTHROPIC_API_KEY": "k"}, config=config)
    assert (other.model, other.base_url) == ("claude-sonnet-4-5", None)


def test_the_scripted_provider_needs_a_script() -> None:
    with pytest.raises(ConfigError, match="needs a script"):
        resolve_settings(Overrides(provider="scripted"), env={}, config=ConfigFile())
    settings = resolve_settings(Overrides(script=Path("demo.json")), env={}, config=ConfigFile())
    assert settings.provider == "scripted" and settings.script == Path("demo.json")


def test_bad_environment_values_are_named() -> None:
    with pytest.raises(ConfigError, match="AGENTUI_PROVIDER must be one of anthropic, bedrock, vertex, openai, "):
        resolve_settings(Overrides(), env={"AGENTUI_PROVIDER": "palm"}, config=ConfigFile())
    with pytest.raises(ConfigError, match="AGENTUI_MAX_ATTEMPTS must be a whole number"):
        resolve_settings(
            Overrides(), env={"ANTHROPIC_API_KEY": "k", "AGENTUI_MAX_ATTEMPTS": "lots"}, config=ConfigFile()
        )


def test_config_file_errors_say_where(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    assert load_config_file(path) == ConfigFile()  # missing is fine
    path.write_text('{"provider": "openai",\n "model": }')
    with pytest.raises(
        ConfigError, match=r"is not valid JSON \(line 2, column 11: Expecting value\); fix or delete it"
    ):
        load_config_file(path)
    path.write_text('{"modle": "x"}')
    with pytest.raises(ConfigError, match="has a bad value at 'modle': Extra inputs are not permitted"):
        load_config_file(path)
    path.write_text('{"provider": "palm"}')
    with pytest.raises(ConfigError, match="has a bad value at 'provider'"):
        load_config_file(path)
    path.write_text('{"provider": "openai", "base_url": "http://127.0.0.1:1/v1", "max_attempts": 3}')
    assert load_config_file(path).max_attempts == 3


def test_config_dir_follows_the_environment(tmp_path: Path) -> None:
    assert config_dir({"AGENTUI_CONFIG_DIR": str(tmp_path)}) == tmp_path
    assert config_dir({}).name == "agentui"


def test_claude_codes_autocompact_percentage_sets_the_threshold_down_to_one_percent() -> None:
    from agentui.core.loop.agent import AgentConfig

    for given, threshold in (("80", 0.8), ("10", 0.1), ("0.5", 0.01), ("150", 1.0)):
        settings = resolve_settings(
            Overrides(provider="scripted", script=Path("s.json")),
            {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": given},
            ConfigFile(),
        )
        assert settings.options.compact_threshold == threshold
        AgentConfig(model="m", options=settings.options)  # (the engine takes it as given)


def test_claude_codes_auto_compact_window_is_read_and_kept_within_its_bounds() -> None:
    scripted = Overrides(provider="scripted", script=Path("s.json"))
    for given, window in (("200000", 200_000), ("5000", 100_000), ("3000000", 1_000_000)):
        settings = resolve_settings(scripted, {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": given}, ConfigFile())
        assert settings.options.auto_compact_window == window
    assert (
        resolve_settings(scripted, {}, ConfigFile(auto_compact_window=300_000)).options.auto_compact_window == 300_000
    )
    assert resolve_settings(scripted, {}, ConfigFile()).options.auto_compact_window is None
    with pytest.raises(ConfigError, match="CLAUDE_CODE_AUTO_COMPACT_WINDOW must be a number"):
        resolve_settings(scripted, {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "200k"}, ConfigFile())


def test_the_small_model_is_claude_codes_first_variable() -> None:
    """ANTHROPIC_SMALL_FAST_MODEL first, then ANTHROPIC_DEFAULT_HAIKU_MODEL, as Claude Code 2.1.197 reads them."""
    both = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_SMALL_FAST_MODEL": "fast", "ANTHROPIC_DEFAULT_HAIKU_MODEL": "haiku"}
    assert resolve_settings(Overrides(), env=both, config=ConfigFile()).small_model == "fast"
    haiku = {key: value for key, value in both.items() if key != "ANTHROPIC_SMALL_FAST_MODEL"}
    assert resolve_settings(Overrides(), env=haiku, config=ConfigFile()).small_model == "haiku"
