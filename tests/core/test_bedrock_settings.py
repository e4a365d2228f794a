"""Bedrock switched on as Claude Code switches it: the region (AWS_REGION, AWS_DEFAULT_REGION, the AWS profile's),
the default, alias and small models as Claude Code 2.1.197 asks for them from that region, and what the provider is
made from."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentui.core.settings import ConfigFile, Overrides, Settings, resolve_settings


def settings(env: dict[str, str], model: str | None = None, tmp: Path | None = None) -> Settings:
    base = {"CLAUDE_CODE_USE_BEDROCK": "1", "AWS_CONFIG_FILE": str(tmp / "none") if tmp else "/nonexistent"}
    return resolve_settings(Overrides(model=model), {**base, **env}, ConfigFile())


@pytest.mark.parametrize(
    ("region", "geo"),
    [
        ("us-east-1", "us"),
        ("us-west-2", "us"),
        ("eu-west-1", "eu"),
        ("ap-southeast-2", "apac"),
        ("ca-central-1", "global"),
    ],
)
def test_the_default_small_and_alias_models_follow_the_region(region: str, geo: str) -> None:
    made = settings({"AWS_REGION": region})
    assert made.provider == "bedrock" and made.region == region
    assert made.model == f"{geo}.anthropic.claude-sonnet-4-5-20250929-v1:0"
    assert made.small_model == f"{geo}.anthropic.claude-haiku-4-5-20251001-v1:0"
    assert settings({"AWS_DEFAULT_REGION": region}, "opus").model == f"{geo}.anthropic.claude-opus-4-6-v1"
    long = settings({"AWS_REGION": region}, "sonnet[1m]")
    assert long.model == f"{geo}.anthropic.claude-sonnet-4-5-20250929-v1:0[1m]" and long.model_alias == "sonnet[1m]"


def test_without_a_region_the_profiles_region_then_us_east_1(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.write_text("[profile work]\nregion = eu-central-1\n")
    made = settings({"AWS_PROFILE": "work", "AWS_CONFIG_FILE": str(config)}, "haiku")
    assert made.region == "eu-central-1"
    assert made.model == "eu.anthropic.claude-haiku-4-5-20251001-v1:0"
    assert settings({}, tmp=tmp_path).region == "us-east-1"


def test_named_models_are_sent_as_named() -> None:
    arn = "arn:aws:bedrock:eu-west-1:123456789012:application-inference-profile/abc"
    assert settings({"AWS_REGION": "eu-west-1", "ANTHROPIC_MODEL": arn}).model == arn
    pinned = {"AWS_REGION": "eu-west-1", "ANTHROPIC_DEFAULT_OPUS_MODEL": "us.anthropic.claude-opus-4-1-20250805-v1:0"}
    assert settings(pinned, "opus").model == "us.anthropic.claude-opus-4-1-20250805-v1:0"


def test_the_provider_is_made_from_the_bedrock_variables() -> None:
    made = settings(
        {"AWS_REGION": "us-west-2", "AWS_BEARER_TOKEN_BEDROCK": "ABSKkey", "ANTHROPIC_BEDROCK_BASE_URL": "http://gw"}
    ).provider_config()
    assert (made.name, made.region, made.auth_token, made.base_url) == ("bedrock", "us-west-2", "ABSKkey", "http://gw")
    assert "ABSKkey" not in repr(made)
