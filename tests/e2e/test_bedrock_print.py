"""`agentui -p` on Amazon Bedrock, switched on as Claude Code switches it (CLAUDE_CODE_USE_BEDROCK=1), against the
loopback Bedrock runtime: answers, a tool call's round trip with thinking, the credential chain, Bedrock API keys,
a throttled stream retried, and missing credentials as one sentence."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.bedrock_server import (
    ACCESS_KEY,
    EVENT_STREAM,
    SECRET_KEY,
    BedrockServer,
    SigV4Check,
    chunk_frame,
    exception_frame,
    messages_events,
    stream_reply,
)
from tests.support.loopback import Reply

SONNET = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"


@pytest.fixture
def bedrock() -> Iterator[BedrockServer]:
    server = BedrockServer()
    yield server
    server.close()


@pytest.fixture
def env(clean_env: dict[str, str], bedrock: BedrockServer, tmp_path: Path) -> dict[str, str]:
    """Bedrock switched on, pointed at loopback, with static keys and nothing of the machine's own AWS set-up."""
    made = {key: value for key, value in clean_env.items() if not key.startswith("AWS_")}
    return {
        **made,
        "CLAUDE_CODE_USE_BEDROCK": "1",
        "ANTHROPIC_BEDROCK_BASE_URL": bedrock.url,
        "AWS_ACCESS_KEY_ID": ACCESS_KEY,
        "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_CONFIG_FILE": str(tmp_path / "aws-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "aws-credentials"),
        "AGENTUI_MAX_ATTEMPTS": "3",
    }


def run(agentui_bin: str, env: dict[str, str], project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [agentui_bin, "-p", *args],
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def test_an_answer_from_the_default_model(
    agentui_bin: str, env: dict[str, str], bedrock: BedrockServer, project: Path
) -> None:
    bedrock.enqueue(stream_reply([{"type": "text", "text": "Hello from Bedrock"}]))
    done = run(agentui_bin, env, project, "hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Hello from Bedrock\n"
    [call] = bedrock.invocations
    assert call.model == SONNET  # (Claude Code 2.1.197's default on Bedrock, us-east-1's inference profile)
    assert call.body["anthropic_version"] == "bedrock-2023-05-31"
    assert call.body["messages"][0]["role"] == "user"


def test_a_tool_call_round_trip_with_thinking(
    agentui_bin: str, env: dict[str, str], bedrock: BedrockServer, project: Path
) -> None:
    (project / "notes.txt").write_text("the answer is 42\n")
    bedrock.enqueue(
        stream_reply(
            [
                {"type": "thinking", "thinking": "I should read the notes.", "signature": "sig-bedrock"},
                {
                    "type": "tool_use",
                    "id": "toolu_b1",
                    "name": "Read",
                    "input": {"file_path": str(project / "notes.txt")},
                },
            ],
            stop_reason="tool_use",
        ),
        stream_reply([{"type": "text", "text": "The notes say 42."}]),
    )
    done = run(agentui_bin, env, project, "what do the notes say?", "--max-thinking-tokens", "2048", "--model", "opus")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "The notes say 42.\n"
    first, second = bedrock.invocations
    assert first.model == second.model == "us.anthropic.claude-opus-4-6-v1"
    assert first.body["thinking"] == {"type": "adaptive"}  # (Opus 4.6 thinks adaptively: no budget, as Claude Code)
    assistant, result = second.body["messages"][-2:]
    assert assistant["content"][0] == {
        "type": "thinking",
        "thinking": "I should read the notes.",
        "signature": "sig-bedrock",
    }
    assert assistant["content"][1]["type"] == "tool_use" and assistant["content"][1]["id"] == "toolu_b1"
    assert result["content"][0]["tool_use_id"] == "toolu_b1"
    assert "the answer is 42" in result["content"][0]["content"]


def test_a_profile_from_the_shared_files_and_its_region(
    agentui_bin: str, env: dict[str, str], bedrock: BedrockServer, project: Path, tmp_path: Path
) -> None:
    Path(env["AWS_SHARED_CREDENTIALS_FILE"]).write_text(
        f"[work]\naws_access_key_id = {ACCESS_KEY}\naws_secret_access_key = {SECRET_KEY}\n"
    )
    Path(env["AWS_CONFIG_FILE"]).write_text("[profile work]\nregion = eu-west-1\n")
    bedrock.sigv4 = SigV4Check(region="eu-west-1")  # (a request signed for another region is refused)
    del env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"]
    done = run(agentui_bin, {**env, "AWS_PROFILE": "work"}, project, "hi", "--model", "haiku")
    assert done.returncode == 0, done.stderr
    assert [call.model for call in bedrock.invocations] == ["eu.anthropic.claude-haiku-4-5-20251001-v1:0"]


def test_a_bedrock_api_key_is_a_bearer_token(
    agentui_bin: str, env: dict[str, str], bedrock: BedrockServer, project: Path
) -> None:
    bedrock.bearer = "ABSKloopbackkey"
    del env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"]
    done = run(agentui_bin, {**env, "AWS_BEARER_TOKEN_BEDROCK": "ABSKloopbackkey"}, project, "hi")
    assert done.returncode == 0, done.stderr
    assert bedrock.invocations[0].request.headers["authorization"] == "Bearer ABSKloopbackkey"


def test_a_throttled_stream_is_retried(
    agentui_bin: str, env: dict[str, str], bedrock: BedrockServer, project: Path
) -> None:
    throttled = [chunk_frame(event) for event in messages_events([{"type": "text", "text": "never seen"}])][:1]
    bedrock.enqueue(
        Reply(
            chunks=[
                *throttled,
                exception_frame("throttlingException", "Too many tokens, please wait before trying again."),
            ],
            content_type=EVENT_STREAM,
        ),
        stream_reply([{"type": "text", "text": "Second time lucky"}]),
    )
    done = run(agentui_bin, env, project, "hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Second time lucky\n"
    assert done.stderr.startswith("agentui: retrying in ") and "Amazon Bedrock is throttling requests" in done.stderr
    assert len(bedrock.invocations) == 2


def test_no_credentials_is_one_sentence(
    agentui_bin: str, env: dict[str, str], bedrock: BedrockServer, project: Path
) -> None:
    del env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"]
    done = run(agentui_bin, env, project, "hi")
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith(
        "agentui: No AWS credentials for Bedrock: agentui looked for AWS_BEARER_TOKEN_BEDROCK"
    )
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert bedrock.requests == []
