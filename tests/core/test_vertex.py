"""Claude on Vertex AI against a loopback Google: a service account's key exchanged for tokens by google-auth, the
Messages API through streamRawPredict, each of Google's errors as one sentence, and the Anthropic SDK's Vertex
client reading the same server as a second opinion."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentui.core.messages import Message, TextBlock
from agentui.core.providers.base import (
    AuthenticationError,
    BadRequestError,
    ProviderError,
    ProviderRequest,
    RateLimitError,
)
from agentui.core.providers.retry import RetryNotice, RetryPolicy, stream_with_retry
from agentui.core.providers.stream import BlockDelta, StreamEnd
from agentui.core.providers.vertex import VertexProvider
from tests.support.loopback import Reply
from tests.support.sse import anthropic_stream
from tests.support.vertex_server import KEY_PROJECT, VertexServer, google_error

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def google() -> Iterator[VertexServer]:
    server = VertexServer()
    yield server
    server.close()


def _provider(google: VertexServer, tmp_path: Path, **env: str) -> VertexProvider:
    environment = {"GOOGLE_APPLICATION_CREDENTIALS": str(google.key_file(tmp_path)), **env}
    return VertexProvider(
        project=environment.pop("PROJECT", None),
        region=environment.pop("REGION", "us-east5"),
        base_url=google.base_url,
        env=environment,
    )


def _said(text: str) -> Reply:
    return Reply(chunks=anthropic_stream([{"type": "text", "text": text}]))


def _request(model: str = "claude-sonnet-4-5@20250929") -> ProviderRequest:
    return ProviderRequest(
        model=model, system="be brief", messages=[Message(role="user", content=[TextBlock(text="hi")])]
    )


async def _text(provider: VertexProvider, request: ProviderRequest | None = None) -> str:
    said = []
    async for event in provider.stream(request or _request()):
        if isinstance(event, BlockDelta):
            said.append(event.text)
    return "".join(said)


async def _error(provider: VertexProvider) -> ProviderError:
    with pytest.raises(ProviderError) as raised:
        await _text(provider)
    return raised.value


async def test_a_service_account_key_is_exchanged_for_a_token_and_the_message_streams(
    google: VertexServer, tmp_path: Path
) -> None:
    google.enqueue(_said("hello from vertex"))
    provider = _provider(google, tmp_path, PROJECT="my-project", REGION="europe-west1")
    assert await _text(provider, _request("claude-sonnet-4-5@20250929[1m]")) == "hello from vertex"
    await provider.aclose()
    [call] = google.calls
    assert call.path == (
        "/v1/projects/my-project/locations/europe-west1/publishers/anthropic/models/"
        "claude-sonnet-4-5@20250929:streamRawPredict"
    )
    assert call.headers["authorization"].removeprefix("Bearer ") in google.issued
    assert call.headers["anthropic-beta"] == "context-1m-2025-08-07"
    body = call.json()
    assert body["anthropic_version"] == "vertex-2023-10-16"
    assert body["stream"] is True
    assert "model" not in body
    assert body["messages"][0]["role"] == "user"


async def test_the_key_files_project_and_a_per_model_region_are_used(google: VertexServer, tmp_path: Path) -> None:
    google.enqueue(_said("ok"))
    provider = _provider(google, tmp_path, REGION="us-east5", VERTEX_REGION_CLAUDE_HAIKU_4_5="asia-east1")
    await _text(provider, _request("claude-haiku-4-5@20251001"))
    await provider.aclose()
    assert google.calls[0].path.startswith(f"/v1/projects/{KEY_PROJECT}/locations/asia-east1/")


async def test_a_valid_token_is_reused_and_one_near_its_expiry_is_refreshed(
    google: VertexServer, tmp_path: Path
) -> None:
    google.enqueue(*(_said("ok") for _ in range(4)))
    provider = _provider(google, tmp_path, PROJECT="p")
    await _text(provider)
    await _text(provider)
    assert len(google.assertions) == 1  # (an hour left: the same token)
    google.token_lifetime = 60  # (inside google-auth's refresh margin: each request fetches a fresh one)
    provider = _provider(google, tmp_path, PROJECT="p")
    await _text(provider)
    await _text(provider)
    assert len(google.assertions) == 3
    assert google.calls[2].headers["authorization"] != google.calls[3].headers["authorization"]


async def test_a_rejected_token_is_refreshed_once_then_said(google: VertexServer, tmp_path: Path) -> None:
    google.enqueue(_said("first"), _said("again"))
    provider = _provider(google, tmp_path, PROJECT="p")
    assert await _text(provider) == "first"
    google.revoke_all()
    assert await _text(provider) == "again"
    assert len(google.assertions) == 2
    unauthenticated = google_error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
    google.enqueue(unauthenticated, unauthenticated)
    error = await _error(provider)
    assert isinstance(error, AuthenticationError)
    assert "rejected the access token from the key file GOOGLE_APPLICATION_CREDENTIALS names" in str(error)
    assert str(error).endswith(
        "even after a fresh one was fetched (401 UNAUTHENTICATED: Request had invalid authentication credentials); "
        "check those credentials."
    )
    assert "ya29" not in str(error)


@pytest.mark.parametrize(
    ("reply", "kind", "words"),
    [
        (
            google_error(404, "NOT_FOUND", "Publisher Model `claude-sonnet-4-5@20250929` not found."),
            BadRequestError,
            "has no model claude-sonnet-4-5@20250929 in project p, region us-east5 (404 NOT_FOUND: Publisher Model "
            "`claude-sonnet-4-5@20250929` not found); enable it",
        ),
        (
            google_error(403, "PERMISSION_DENIED", "Permission 'aiplatform.endpoints.predict' denied", listed=True),
            AuthenticationError,
            "refused access to project p (403 PERMISSION_DENIED: Permission 'aiplatform.endpoints.predict' denied); "
            "the credentials from the key file",
        ),
        (
            google_error(429, "RESOURCE_EXHAUSTED", "Quota exceeded for aiplatform.googleapis.com", listed=True),
            RateLimitError,
            "is throttling requests for claude-sonnet-4-5@20250929 in project p, region us-east5 (429 "
            "RESOURCE_EXHAUSTED: Quota exceeded for aiplatform.googleapis.com).",
        ),
    ],
)
async def test_googles_errors_are_one_sentence(
    google: VertexServer, tmp_path: Path, reply: object, kind: type[ProviderError], words: str
) -> None:
    google.enqueue(reply)  # type: ignore[arg-type]
    provider = _provider(google, tmp_path, PROJECT="p")
    error = await _error(provider)
    await provider.aclose()
    assert type(error) is kind
    assert words in str(error)
    assert "Google said" not in str(error) and str(error).count(". ") == 0  # (one sentence, Google's words in it)
    assert "\n" not in str(error)


async def test_a_throttled_call_is_retried(google: VertexServer, tmp_path: Path) -> None:
    google.enqueue(
        google_error(429, "RESOURCE_EXHAUSTED", "Quota exceeded.", listed=True),
        _said("after the wait"),
    )
    provider = _provider(google, tmp_path, PROJECT="p")
    seen = [e async for e in stream_with_retry(provider, _request(), RetryPolicy(base_delay=0.01))]
    await provider.aclose()
    [notice] = [e for e in seen if isinstance(e, RetryNotice)]
    assert isinstance(notice.error, RateLimitError)
    assert isinstance(seen[-1], StreamEnd)
    assert len(google.calls) == 2


async def test_no_project_anywhere_is_one_sentence(google: VertexServer, tmp_path: Path) -> None:
    provider = VertexProvider(project=None, base_url=google.base_url, skip_auth=True, env={})
    error = await _error(provider)
    assert "No Google Cloud project for Vertex AI" in str(error)
    assert "set ANTHROPIC_VERTEX_PROJECT_ID" in str(error)
    assert google.calls == []


def test_the_anthropic_sdks_vertex_client_reads_the_servers_stream(google: VertexServer, tmp_path: Path) -> None:
    """The second opinion: Anthropic's own Vertex client, with a token this server issued, parses its stream."""
    from anthropic import AnthropicVertex

    google.enqueue(_said("the sdk agrees"))
    token = "ya29.sdk-token"
    google.issued[token] = 2e10
    client = AnthropicVertex(region="us-east5", project_id="sdk-project", access_token=token, base_url=google.base_url)
    with client.messages.stream(
        model="claude-sonnet-4-5@20250929", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
    ) as stream:
        text = "".join(stream.text_stream)
    assert text == "the sdk agrees"
    [call] = google.calls
    assert call.path == (
        "/v1/projects/sdk-project/locations/us-east5/publishers/anthropic/models/"
        "claude-sonnet-4-5@20250929:streamRawPredict"
    )
    assert "anthropic_version" in json.loads(call.body)  # (the SDK's newest; Claude Code 2.1.197 sends ours)


async def test_the_doctor_gets_a_token_and_says_where_requests_go(
    google: VertexServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentui.core import doctor
    from agentui.core.settings import Settings

    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(google.key_file(tmp_path)))
    monkeypatch.delenv("CLAUDE_CODE_SKIP_VERTEX_AUTH", raising=False)
    settings = Settings(provider="vertex", model="claude-sonnet-4-5@20250929", base_url=google.base_url, project="p")
    check = await doctor._model_server(settings, None)
    assert check.level == "ok"
    assert check.said == (
        f"Vertex AI at {google.base_url}/projects/p/locations/us-east5, with an access token from the key file "
        f"GOOGLE_APPLICATION_CREDENTIALS names ({tmp_path / 'service-account.json'})."
    )
    assert len(google.assertions) == 1
    assert google.calls == []  # (no model call)
    monkeypatch.setenv("CLAUDE_CODE_SKIP_VERTEX_AUTH", "1")
    check = await doctor._model_server(settings, None)
    assert check.said.endswith("without Google credentials (CLAUDE_CODE_SKIP_VERTEX_AUTH).")


def test_googles_endpoints_by_region() -> None:
    provider = VertexProvider(project="p", region="global", env={"VERTEX_REGION_CLAUDE_4_6_OPUS": "us-east5"})
    assert provider.url("claude-sonnet-4-5@20250929", "p") == (
        "https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers/anthropic/models/"
        "claude-sonnet-4-5@20250929:streamRawPredict"
    )
    assert provider.url("claude-opus-4-6", "p").startswith(
        "https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5/"
    )


def test_the_provider_is_made_without_importing_google_auth() -> None:
    code = (
        "import sys\n"
        "from agentui.core.providers import ProviderConfig, create_provider\n"
        "create_provider(ProviderConfig('vertex', project='p', region='us-east5'))\n"
        "print(sorted(m for m in sys.modules if m.startswith(('google.auth', 'google.oauth2', 'requests'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


async def test_a_refusal_without_credentials_says_skip_auth_is_set(google: VertexServer) -> None:
    provider = VertexProvider(project="p", base_url=google.base_url, skip_auth=True, env={})
    error = await _error(provider)  # (the server takes no request without a token it issued)
    await provider.aclose()
    assert isinstance(error, AuthenticationError)
    assert str(error).startswith("Vertex AI refused a request sent without Google credentials (401 UNAUTHENTICATED")
    assert str(error).endswith("unset CLAUDE_CODE_SKIP_VERTEX_AUTH unless the base URL is a gateway that adds them.")
    assert len(google.calls) == 1  # (nothing to refresh: not asked again)
