"""/doctor on Bedrock: the runtime's endpoint in its region, and where the credentials come from (found as a request
finds them; no request is sent, since each one costs), or the sentence saying where agentui looked."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentui.core.conversation import Launch
from agentui.core.doctor import HealthCheck, health_checks
from agentui.core.settings import ConfigFile, Overrides, resolve_settings
from tests.support.bedrock_server import ACCESS_KEY, SECRET_KEY


@pytest.fixture(autouse=True)
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_REGION", "eu-west-1")


async def model_server(tmp_path: Path) -> HealthCheck:
    env = {"CLAUDE_CODE_USE_BEDROCK": "1", "AWS_REGION": "eu-west-1"}
    launch = Launch(resolve_settings(Overrides(), env, ConfigFile()), tmp_path)
    checks = await health_checks(None, launch, tmp_path, env)
    [check] = [check for check in checks if check.item == "Model server"]
    return check


async def test_the_doctor_names_the_endpoint_and_the_credentials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
    check = await model_server(tmp_path)
    assert check.level == "ok"
    assert check.said == (
        "bedrock at https://bedrock-runtime.eu-west-1.amazonaws.com (eu-west-1): credentials from AWS_ACCESS_KEY_ID "
        "and AWS_SECRET_ACCESS_KEY; no request was sent (each one costs)."
    )


async def test_the_doctor_says_where_it_looked_for_missing_credentials(tmp_path: Path) -> None:
    check = await model_server(tmp_path)
    assert check.level == "problem"
    assert check.said.startswith(
        "bedrock at https://bedrock-runtime.eu-west-1.amazonaws.com (eu-west-1): No AWS credentials for Bedrock: "
        "agentui looked for AWS_BEARER_TOKEN_BEDROCK"
    )
    assert SECRET_KEY not in check.said
