"""Claude Code's model aliases on Amazon Bedrock: the real Claude Code CLI and agentui, each switched onto Bedrock
(CLAUDE_CODE_USE_BEDROCK=1) and pointed at the loopback Bedrock runtime, ask for the same model id for each alias,
from each kind of region. Claude Code signs with the AWS JS SDK and decodes the event stream with it, so its run is
also the second opinion on the loopback server's signature check and framing."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.bedrock_server import ACCESS_KEY, SECRET_KEY, BedrockServer, SigV4Check


@pytest.fixture
def bedrock() -> Iterator[BedrockServer]:
    server = BedrockServer()
    yield server
    server.close()


def asked(
    cli: str, bedrock: BedrockServer, home: Path, region: str, model: str | None, **extra: str
) -> tuple[str, list[str]]:
    """The model id of the streamed request `cli -p hi [--model model]` made, and the betas it asked for."""
    bedrock.sigv4 = SigV4Check(region=region)
    bedrock.invocations.clear()
    (home / "project").mkdir(parents=True)
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "AGENTUI_CONFIG_DIR": str(home / "agentui"),
        "IS_SANDBOX": "1",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_USE_BEDROCK": "1",
        "ANTHROPIC_BEDROCK_BASE_URL": bedrock.url,
        "AWS_ACCESS_KEY_ID": ACCESS_KEY,
        "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
        "AWS_REGION": region,
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_CONFIG_FILE": str(home / "aws-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(home / "aws-credentials"),
        **extra,
    }
    done = subprocess.run(
        [cli, "-p", "hi", *(["--model", model] if model else [])],
        cwd=home / "project", env=env, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"  # (the loopback server's answer, read through its event-stream framing)
    [call] = bedrock.invocations
    return call.model, sorted(call.body.get("anthropic_beta", []))


CASES = [
    *(("us-east-1", alias) for alias in (None, "default", "sonnet", "opus", "haiku", "opusplan", "sonnet[1m]")),
    *((region, alias) for region in ("eu-west-1", "ap-northeast-1", "ca-central-1") for alias in ("sonnet", "opus")),
]


@pytest.mark.parametrize(("region", "alias"), CASES)
def test_each_alias_is_the_same_bedrock_model(
    region: str, alias: str | None, bedrock: BedrockServer, claude_bin: str, agentui_bin: str, tmp_path: Path
) -> None:
    theirs, their_betas = asked(claude_bin, bedrock, tmp_path / "claude", region, alias)
    ours, our_betas = asked(agentui_bin, bedrock, tmp_path / "agentui", region, alias)
    assert ours == theirs
    long_context = "context-1m-2025-08-07"
    assert (long_context in our_betas) == (long_context in their_betas)


@pytest.mark.parametrize(
    ("extra", "authorization"),
    [
        ({"AWS_BEARER_TOKEN_BEDROCK": "ABSKloopback"}, "Bearer ABSKloopback"),
        ({"CLAUDE_CODE_SKIP_BEDROCK_AUTH": "1"}, None),
    ],
)
def test_an_api_key_or_no_auth_as_claude_code_sends_them(
    extra: dict[str, str],
    authorization: str | None,
    bedrock: BedrockServer,
    claude_bin: str,
    agentui_bin: str,
    tmp_path: Path,
) -> None:
    """A Bedrock API key goes as a bearer token in place of a signature (the keys are set too, and unused);
    CLAUDE_CODE_SKIP_BEDROCK_AUTH sends no Authorization at all, for a gateway that adds its own."""
    bedrock.bearer = extra.get("AWS_BEARER_TOKEN_BEDROCK")
    bedrock.check_auth = authorization is not None
    sent = []
    for cli, home in ((claude_bin, tmp_path / "claude"), (agentui_bin, tmp_path / "agentui")):
        asked(cli, bedrock, home, "us-east-1", None, **extra)
        sent.append(bedrock.requests[-1].headers.get("authorization"))
    assert sent == [authorization, authorization]
