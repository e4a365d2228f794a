"""The Bedrock provider against the loopback Bedrock runtime: what it sends (the path, the body, the signature or the
token), what it makes of the event stream, and each failure as one sentence of the right kind."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentui.core.messages import Message, TextBlock
from agentui.core.providers import ProviderConfig, create_provider
from agentui.core.providers.base import (
    AuthenticationError,
    BadRequestError,
    ContextOverflowError,
    OverloadedError,
    ProtocolError,
    ProviderError,
    ProviderRequest,
    RateLimitError,
    ServerError,
    StreamBrokenError,
    StreamStalledError,
)
from agentui.core.providers.bedrock import BedrockProvider
from agentui.core.providers.bedrock_auth import SigV4
from agentui.core.providers.http import new_client
from agentui.core.providers.stream import BlockDelta, ProviderEvent, StreamEnd
from tests.support.bedrock_server import (
    ACCESS_KEY,
    EVENT_STREAM,
    SECRET_KEY,
    BedrockServer,
    SigV4Check,
    chunk_frame,
    error_reply,
    exception_frame,
    messages_events,
    stream_reply,
)
from tests.support.loopback import Reply
from tests.support.procs import running

SONNET = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
KEYS = {"AWS_ACCESS_KEY_ID": ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": SECRET_KEY}


@pytest.fixture(autouse=True)
def no_aws_outside(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Nothing of the machine's own AWS set-up, and no wait on instance metadata (botocore reads these from the
    process environment whatever the provider is given)."""
    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))


@pytest.fixture
def bedrock() -> Iterator[BedrockServer]:
    server = BedrockServer()
    yield server
    server.close()


def provider(
    server: BedrockServer, env: dict[str, str], *, region: str = "us-east-1", **extra: object
) -> BedrockProvider:
    made = create_provider(
        ProviderConfig("bedrock", base_url=server.url, region=region, env=env, **extra)  # type: ignore[arg-type]
    )
    assert isinstance(made, BedrockProvider)
    return made


def request(model: str = SONNET, **extra: object) -> ProviderRequest:
    return ProviderRequest(
        model=model, system="Be brief.", messages=[Message(role="user", content=[TextBlock(text="hi")])], **extra
    )  # type: ignore[arg-type]


async def collect(made: BedrockProvider, ask: ProviderRequest | None = None) -> list[ProviderEvent]:
    try:
        return [event async for event in made.stream(ask or request())]
    finally:
        await made.aclose()


async def failure(made: BedrockProvider, ask: ProviderRequest | None = None) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        await collect(made, ask)
    return caught.value


def text(events: list[ProviderEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, BlockDelta) and e.kind == "text")


async def test_a_signed_stream_is_read_and_the_request_is_bedrocks(bedrock: BedrockServer) -> None:
    bedrock.enqueue(stream_reply([{"type": "text", "text": "Hello from Bedrock"}]))
    events = await collect(provider(bedrock, KEYS), request(SONNET + "[1m]", thinking_budget=2048))
    assert text(events) == "Hello from Bedrock"
    assert isinstance(events[-1], StreamEnd) and events[-1].usage.output_tokens == 34
    [call] = bedrock.invocations
    # The id in the path, encoded as the AWS SDK encodes a label; the version and betas in the body, no model or
    # stream there; the signature checked by the server (a bad one is a 403, below).
    assert call.request.path == "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream"
    assert call.model == SONNET
    assert call.body["anthropic_version"] == "bedrock-2023-05-31"
    assert call.body["anthropic_beta"] == ["context-1m-2025-08-07"]
    assert call.body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert "model" not in call.body and "stream" not in call.body
    assert call.request.headers["authorization"].startswith(f"AWS4-HMAC-SHA256 Credential={ACCESS_KEY}/")


async def test_an_inference_profile_arn_is_one_path_segment(bedrock: BedrockServer) -> None:
    arn = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3"
    assert text(await collect(provider(bedrock, KEYS), request(arn))) == "ok"
    assert bedrock.invocations[0].model == arn
    assert "/" not in bedrock.invocations[0].request.path.removeprefix("/model/").split("/invoke")[0]


async def test_a_session_token_is_signed_and_sent(bedrock: BedrockServer) -> None:
    bedrock.sigv4 = SigV4Check(session_token="FwoGZXIvYXdzEXAMPLETOKEN")
    env = {**KEYS, "AWS_SESSION_TOKEN": "FwoGZXIvYXdzEXAMPLETOKEN"}
    assert text(await collect(provider(bedrock, env))) == "ok"


async def test_a_wrong_secret_is_refused_by_the_server_in_one_sentence(bedrock: BedrockServer) -> None:
    env = {**KEYS, "AWS_SECRET_ACCESS_KEY": "not-the-secret"}
    error = await failure(provider(bedrock, env))
    assert isinstance(error, AuthenticationError)
    assert str(error).startswith(
        "Amazon Bedrock did not accept the credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (The request "
        "signature we calculated does not match"
    )
    assert "not-the-secret" not in str(error)


async def test_the_bearer_token_is_sent_instead_of_a_signature(bedrock: BedrockServer) -> None:
    bedrock.bearer = "ABSKbedrock-api-key"
    made = provider(bedrock, {}, auth_token="ABSKbedrock-api-key")
    assert text(await collect(made)) == "ok"
    assert bedrock.invocations[0].request.headers["authorization"] == "Bearer ABSKbedrock-api-key"
    assert "ABSK" not in repr(made._auth)


async def test_skip_auth_sends_no_authorization(bedrock: BedrockServer) -> None:
    bedrock.check_auth = False
    assert text(await collect(provider(bedrock, {**KEYS, "CLAUDE_CODE_SKIP_BEDROCK_AUTH": "1"}))) == "ok"
    assert "authorization" not in bedrock.invocations[0].request.headers


async def test_a_profile_in_the_shared_files_is_used(bedrock: BedrockServer, tmp_path: Path) -> None:
    credentials = tmp_path / "credentials"
    credentials.write_text(f"[dev]\naws_access_key_id = {ACCESS_KEY}\naws_secret_access_key = {SECRET_KEY}\n")
    config = tmp_path / "config"
    config.write_text("[profile dev]\nregion = eu-west-1\n")
    bedrock.sigv4 = SigV4Check(region="eu-west-1")
    env = {"AWS_PROFILE": "dev", "AWS_SHARED_CREDENTIALS_FILE": str(credentials), "AWS_CONFIG_FILE": str(config)}
    assert text(await collect(provider(bedrock, env, region="eu-west-1"))) == "ok"


async def test_expiring_credentials_are_refreshed(bedrock: BedrockServer, tmp_path: Path) -> None:
    """A credential_process whose credentials expire within botocore's refresh margin is asked again before each
    request (botocore's refresh, on agentui's worker thread)."""
    calls = tmp_path / "calls"
    script = tmp_path / "credentials.sh"
    script.write_text(
        "#!/bin/sh\necho x >> " + str(calls) + "\n"
        'printf \'{"Version": 1, "AccessKeyId": "%s", "SecretAccessKey": "%s", "Expiration": "%s"}\' '
        f"{ACCESS_KEY} '{SECRET_KEY}' \"$(date -u -d '+2 minutes' +%Y-%m-%dT%H:%M:%SZ)\"\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    config = tmp_path / "config"
    config.write_text(f"[profile refreshing]\ncredential_process = {script}\n")
    made = provider(bedrock, {"AWS_PROFILE": "refreshing", "AWS_CONFIG_FILE": str(config)})
    for _ in range(2):
        assert text([event async for event in made.stream(request())]) == "ok"
    await made.aclose()
    assert len(calls.read_text().split()) >= 2


async def test_no_credentials_says_where_agentui_looked(bedrock: BedrockServer) -> None:
    error = await failure(provider(bedrock, {}))
    assert isinstance(error, AuthenticationError)
    assert str(error).startswith(
        "No AWS credentials for Bedrock: agentui looked for AWS_BEARER_TOKEN_BEDROCK, AWS_ACCESS_KEY_ID and "
        "AWS_SECRET_ACCESS_KEY, the profile 'default' in "
    )
    assert bedrock.requests == []


async def test_a_missing_profile_is_named(bedrock: BedrockServer, tmp_path: Path) -> None:
    error = await failure(provider(bedrock, {"AWS_PROFILE": "nowhere", "AWS_CONFIG_FILE": str(tmp_path / "c")}))
    assert isinstance(error, AuthenticationError)
    assert str(error).startswith("The AWS profile 'nowhere' (AWS_PROFILE) is in neither ")


@pytest.mark.parametrize(
    ("reply", "kind", "sentence"),
    [
        (
            error_reply(
                403, "AccessDeniedException", "You don't have access to the model with the specified model ID."
            ),
            BadRequestError,
            f"Your AWS account does not have access to the model {SONNET} in us-east-1: request access in the Bedrock "
            "console (Model access), or choose another model with ANTHROPIC_MODEL or --model.",
        ),
        (
            error_reply(403, "ExpiredTokenException", "The security token included in the request is expired"),
            AuthenticationError,
            "The AWS credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY have expired; refresh them (aws sso "
            "login, or new keys) and try again.",
        ),
        (
            error_reply(400, "ValidationException", "The provided model identifier is invalid."),
            BadRequestError,
            f"Amazon Bedrock in us-east-1 has no model {SONNET} (The provided model identifier is invalid); check the "
            "model id, inference profile or ARN (ANTHROPIC_MODEL or --model) and the region (AWS_REGION).",
        ),
        (
            error_reply(404, "ResourceNotFoundException", "Model not found."),
            BadRequestError,
            f"Amazon Bedrock in us-east-1 has no model {SONNET} (Model not found); check the model id, inference "
            "profile or ARN (ANTHROPIC_MODEL or --model) and the region (AWS_REGION).",
        ),
        (
            error_reply(429, "ThrottlingException", "Too many requests, please wait before trying again."),
            RateLimitError,
            "Amazon Bedrock is throttling requests: Too many requests, please wait before trying again.",
        ),
        (
            error_reply(400, "ValidationException", "Input is too long for requested model."),
            ContextOverflowError,
            "The conversation is too long for the model's context window: Input is too long for requested model.",
        ),
        (
            error_reply(503, "ServiceUnavailableException", "Bedrock is unable to process your request."),
            OverloadedError,
            "Amazon Bedrock is unavailable for now: Bedrock is unable to process your request.",
        ),
    ],
)
async def test_http_errors_are_one_sentence_each(
    bedrock: BedrockServer, reply: Reply, kind: type[ProviderError], sentence: str
) -> None:
    bedrock.enqueue(reply)
    error = await failure(provider(bedrock, KEYS))
    assert type(error) is kind
    assert str(error) == sentence
    assert error.retryable == (kind in (RateLimitError, OverloadedError))


async def test_on_demand_ids_point_at_the_regions_inference_profile(bedrock: BedrockServer) -> None:
    bedrock.sigv4 = SigV4Check(region="eu-west-1")
    bedrock.enqueue(
        error_reply(
            400,
            "ValidationException",
            "Invocation of model ID anthropic.claude-sonnet-4-5-20250929-v1:0 with on-demand throughput isn't "
            "supported. Retry your request with the ID or ARN of an inference profile that contains this model.",
        )
    )
    error = await failure(
        provider(bedrock, KEYS, region="eu-west-1"), request("anthropic.claude-sonnet-4-5-20250929-v1:0")
    )
    assert str(error) == (
        "Amazon Bedrock in eu-west-1 does not serve anthropic.claude-sonnet-4-5-20250929-v1:0 on demand: use an "
        "inference profile that has it instead (such as eu.anthropic.claude-sonnet-4-5-20250929-v1:0)."
    )


def _mid_stream(exception: str, message: str) -> Reply:
    frames = [chunk_frame(event) for event in messages_events([{"type": "text", "text": "partial answer"}])]
    return Reply(chunks=[*frames[:3], exception_frame(exception, message)], content_type=EVENT_STREAM)


@pytest.mark.parametrize(
    ("exception", "kind"),
    [
        ("throttlingException", RateLimitError),
        ("modelStreamErrorException", ServerError),
        ("internalServerException", ServerError),
        ("modelTimeoutException", ServerError),
        ("serviceUnavailableException", OverloadedError),
        ("validationException", BadRequestError),
    ],
)
async def test_exception_frames_are_the_right_error(
    bedrock: BedrockServer, exception: str, kind: type[ProviderError]
) -> None:
    bedrock.enqueue(_mid_stream(exception, "Something went wrong."))
    error = await failure(provider(bedrock, KEYS))
    assert type(error) is kind
    assert str(error).endswith(": Something went wrong.")


async def test_a_stream_cut_mid_frame_is_a_broken_stream(bedrock: BedrockServer) -> None:
    body = b"".join(chunk_frame(event) for event in messages_events([{"type": "text", "text": "cut short"}]))
    cut = len(body) - 30  # (inside the last frame)
    bedrock.enqueue(Reply(chunks=[body[:cut]], content_type=EVENT_STREAM))
    error = await failure(provider(bedrock, KEYS))
    assert isinstance(error, StreamBrokenError) and error.retryable
    assert str(error) == "Amazon Bedrock ended the stream in the middle of an event-stream frame."


async def test_frames_split_anywhere_are_put_together(bedrock: BedrockServer) -> None:
    body = b"".join(chunk_frame(event) for event in messages_events([{"type": "text", "text": "in pieces"}]))
    bedrock.enqueue(Reply(chunks=[body[i : i + 7] for i in range(0, len(body), 7)], content_type=EVENT_STREAM))
    assert text(await collect(provider(bedrock, KEYS))) == "in pieces"


async def test_a_corrupted_crc_is_a_protocol_error(bedrock: BedrockServer) -> None:
    frames = [chunk_frame(event) for event in messages_events([{"type": "text", "text": "x"}])]
    broken = bytearray(frames[1])
    broken[20] ^= 0xFF  # (a header byte: the message CRC no longer matches)
    bedrock.enqueue(Reply(chunks=[frames[0], bytes(broken), *frames[2:]], content_type=EVENT_STREAM))
    error = await failure(provider(bedrock, KEYS))
    assert isinstance(error, ProtocolError)
    assert str(error).startswith("Amazon Bedrock sent a corrupt event-stream frame (ChecksumMismatch")


async def test_a_silent_stream_is_given_up(bedrock: BedrockServer) -> None:
    gate = threading.Event()
    frames = [chunk_frame(event) for event in messages_events([{"type": "text", "text": "x"}])]
    bedrock.enqueue(Reply(chunks=frames, content_type=EVENT_STREAM, gate=gate, gate_after=2))
    made = BedrockProvider(auth=SigV4("us-east-1", KEYS), base_url=bedrock.url, client=new_client(idle=0.5))
    try:
        error = await failure(made)
    finally:
        gate.set()
    assert isinstance(error, StreamStalledError)
    assert str(error).startswith("Amazon Bedrock sent nothing for 0 s, so the request was given up")


async def test_the_anthropic_sdk_agrees_with_the_loopback_server(bedrock: BedrockServer) -> None:
    """The second opinion: Anthropic's own Bedrock client signs with botocore and decodes with botocore's
    event-stream parser; the server accepts the one and the SDK reads the other."""
    from anthropic import AnthropicBedrock, PermissionDeniedError

    bedrock.enqueue(stream_reply([{"type": "text", "text": "Hi from the SDK"}]))
    client = AnthropicBedrock(
        aws_access_key=ACCESS_KEY,
        aws_secret_key=SECRET_KEY,
        aws_region="us-east-1",
        base_url=bedrock.url,
        max_retries=0,
    )
    with client.messages.stream(model=SONNET, max_tokens=64, messages=[{"role": "user", "content": "hi"}]) as stream:
        message = stream.get_final_message()
    assert message.content[0].type == "text" and message.content[0].text == "Hi from the SDK"
    wrong = AnthropicBedrock(
        aws_access_key=ACCESS_KEY, aws_secret_key="wrong", aws_region="us-east-1", base_url=bedrock.url, max_retries=0
    )
    with pytest.raises(PermissionDeniedError):
        wrong.messages.create(model=SONNET, max_tokens=8, messages=[{"role": "user", "content": "hi"}])
    assert bedrock.invocations[0].model == SONNET and "model" not in json.loads(bedrock.requests[0].body)


async def test_a_refused_connection_is_one_sentence(bedrock: BedrockServer) -> None:
    url = bedrock.url
    bedrock.close()  # (nothing listens there any more)
    made = BedrockProvider(auth=SigV4("us-east-1", KEYS), base_url=url)
    error = await failure(made)
    assert str(error) == (
        f"Could not connect to {url}/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream: "
        "connection refused; is the server running?"
    )
    assert error.retryable


def test_botocore_is_loaded_only_when_bedrock_is_used() -> None:
    code = (
        "import sys, agentui.core.providers.bedrock, agentui.core.settings; "
        "assert 'botocore' not in sys.modules, 'imported at load'"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


SESSION_TOKEN = "IQoJb3JpZ2luX2VjEXAMPLESESSIONTOKENxyz0123456789"
SIGNATURE_MISMATCH = (
    "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access "
    "Key and signing method. Consult the service documentation for details.\n\nThe Canonical String for this "
    "request should have been\n'POST\n/model/x/invoke-with-response-stream\n\nhost:bedrock-runtime.us-east-1."
    f"amazonaws.com\nx-amz-date:20260101T000000Z\nx-amz-security-token:{SESSION_TOKEN}\n\n"
    "host;x-amz-date;x-amz-security-token\nabc'\n\nThe String-to-Sign should have been\n'AWS4-HMAC-SHA256\n...'"
)


async def test_a_signature_mismatch_shows_awss_first_sentence_and_never_the_session_token(
    bedrock: BedrockServer,
) -> None:
    bedrock.enqueue(error_reply(403, "InvalidSignatureException", SIGNATURE_MISMATCH))
    error = await failure(provider(bedrock, KEYS))
    assert isinstance(error, AuthenticationError)
    assert SESSION_TOKEN not in str(error) and "Canonical String" not in str(error)
    assert "(The request signature we calculated does not match the signature you provided)" in str(error)


def test_aws_session_tokens_and_signatures_are_redacted_wherever_error_text_is() -> None:
    from agentui.core.session.redact import redact_text

    said = (
        f"x-amz-security-token:{SESSION_TOKEN} and ?X-Amz-Security-Token={SESSION_TOKEN}&X-Amz-Date=1 and "
        f"Authorization: AWS4-HMAC-SHA256 Credential={ACCESS_KEY}/20260101/us-east-1/bedrock/aws4_request, "
        "SignedHeaders=host;x-amz-date, Signature=" + "ab" * 32
    )
    redacted = redact_text(said)
    assert SESSION_TOKEN not in redacted and ACCESS_KEY not in redacted and "ab" * 32 not in redacted
    assert redacted.count("[REDACTED aws-session-token]") == 2 and "[REDACTED aws-signature]" in redacted


def test_a_cut_off_response_keeps_the_names_of_amazon_and_google_capitalised() -> None:
    from agentui.core.providers.base import StreamInterruptedError

    cut = StreamInterruptedError(ServerError("Amazon Bedrock failed (modelStreamErrorException)."))
    assert str(cut) == "The response was cut off: Amazon Bedrock failed (modelStreamErrorException)."
    google = StreamInterruptedError(ServerError("Google's Vertex AI failed."))
    assert str(google).endswith(": Google's Vertex AI failed.")
    assert str(StreamInterruptedError(ServerError("AWS said no."))).endswith(": AWS said no.")
    assert str(StreamInterruptedError(ServerError("The connection dropped."))).endswith(": the connection dropped.")


async def test_a_credential_process_that_never_ends_is_given_up_in_one_sentence(tmp_path: Path) -> None:
    """A stuck helper of the credential chain: the request is given up after the ceiling (short here), not hung."""
    from agentui.core.providers.blocking import CredentialsTimeoutError

    script = tmp_path / "stuck.sh"
    started = tmp_path / "started"
    script.write_text(f"#!/bin/sh\nsleep 600 &\necho $$ $! > {started}\nwait\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    config = tmp_path / "config"
    config.write_text(f"[profile stuck]\ncredential_process = {script}\n")
    auth = SigV4("us-east-1", {"AWS_PROFILE": "stuck", "AWS_CONFIG_FILE": str(config)}, timeout=2)
    with pytest.raises(CredentialsTimeoutError) as caught:
        await auth.check()
    assert str(caught.value).startswith(
        "AWS's credential chain gave no credentials for Bedrock within 2 s (profile 'stuck': a credential_process, "
        "SSO or metadata service that does not answer); check the profile in "
    )
    # The helper given up on is ended, with what it started, rather than left running.
    helper, child = (int(pid) for pid in started.read_text().split())
    deadline = time.monotonic() + 30
    while running(helper) or running(child):
        assert time.monotonic() < deadline, "the stuck credential_process was left running"
        await asyncio.sleep(0.05)


async def test_an_assume_role_refusal_is_one_sentence_with_awss_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.loopback import LoopbackServer

    sts = LoopbackServer()
    refusal = (
        '<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type>'
        "<Code>AccessDenied</Code><Message>User: arn:aws:iam::123456789012:user/dev is not authorized to perform: "
        "sts:AssumeRole on resource: arn:aws:iam::123456789012:role/nope</Message></Error>"
        "<RequestId>4c1b8c2e</RequestId></ErrorResponse>"
    )
    sts.enqueue(Reply(status=403, chunks=[refusal.encode()], content_type="text/xml"))
    monkeypatch.setenv("AWS_ENDPOINT_URL_STS", sts.url)  # (botocore reads it from the process's environment)
    config = tmp_path / "config"
    config.write_text(
        f"[profile base]\naws_access_key_id = {ACCESS_KEY}\naws_secret_access_key = {SECRET_KEY}\n"
        "[profile role]\nrole_arn = arn:aws:iam::123456789012:role/nope\nsource_profile = base\n"
        "region = us-east-1\n"
    )
    auth = SigV4("us-east-1", {"AWS_PROFILE": "role", "AWS_CONFIG_FILE": str(config)})
    try:
        with pytest.raises(AuthenticationError) as caught:
            await auth.check()
    finally:
        sts.close()
    assert str(caught.value) == (
        f"AWS refused the credentials of profile 'role' for Bedrock ({config} nor ~/.aws/credentials): AccessDenied: "
        "User: arn:aws:iam::123456789012:user/dev is not authorized to perform: sts:AssumeRole on resource: "
        "arn:aws:iam::123456789012:role/nope."
    )
    assert sts.requests and "AssumeRole" in sts.requests[0].body.decode()
