"""`agentui -p` on Claude through Vertex AI, switched on as Claude Code switches it: the installed command against a
loopback Google (a service account's key exchanged for a token by google-auth, then streamRawPredict)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.e2e.test_print_mode import assert_one_clean_sentence, run
from tests.support.loopback import Reply
from tests.support.sse import anthropic_stream
from tests.support.vertex_server import METADATA_PROJECT, VertexServer, google_error

SONNET = "claude-sonnet-4-5@20250929"


@pytest.fixture
def google() -> Iterator[VertexServer]:
    server = VertexServer()
    yield server
    server.close()


def vertex_env(clean_env: dict[str, str], google: VertexServer, tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in clean_env.items() if not k.startswith(("GOOGLE_", "GCLOUD_", "CLOUDSDK_", "VERTEX_"))}
    return {
        **env,
        "CLAUDE_CODE_USE_VERTEX": "1",
        "ANTHROPIC_VERTEX_BASE_URL": google.base_url,
        "ANTHROPIC_VERTEX_PROJECT_ID": "my-project",
        "CLOUD_ML_REGION": "europe-west1",
        "GOOGLE_APPLICATION_CREDENTIALS": str(google.key_file(tmp_path)),
        # No metadata server is looked for anywhere but loopback (a closed port).
        "GCE_METADATA_HOST": "127.0.0.1:9",
        "GCE_METADATA_IP": "127.0.0.1:9",
    }


def test_text_through_vertex(agentui_bin: str, clean_env: dict[str, str], google: VertexServer, tmp_path: Path) -> None:
    google.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": "Hello from Vertex."}])))
    done = run(agentui_bin, ["-p", "hi"], vertex_env(clean_env, google, tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Hello from Vertex.\n"
    [call] = google.calls
    assert (
        call.path
        == f"/v1/projects/my-project/locations/europe-west1/publishers/anthropic/models/{SONNET}:streamRawPredict"
    )
    assert call.headers["authorization"].removeprefix("Bearer ") in google.issued
    assert len(google.assertions) == 1
    assert json.loads(call.body)["anthropic_version"] == "vertex-2023-10-16"


def test_a_tool_call_round_trip_and_thinking(
    agentui_bin: str, clean_env: dict[str, str], google: VertexServer, tmp_path: Path
) -> None:
    google.enqueue(
        Reply(
            chunks=anthropic_stream(
                [
                    {"type": "thinking", "thinking": "List the files.", "signature": "sig-1"},
                    {"type": "tool_use", "id": "toolu_1", "name": "Glob", "input": {"pattern": "*.txt"}},
                ],
                stop_reason="tool_use",
            )
        ),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "There is notes.txt."}])),
    )
    env = vertex_env(clean_env, google, tmp_path)
    project = Path(env["HOME"]).parent / "project"
    project.mkdir(exist_ok=True)
    (project / "notes.txt").write_text("x")
    done = run(agentui_bin, ["-p", "which text files?", "--max-thinking-tokens", "2048"], env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("There is notes.txt.\n")
    first, second = (call.json() for call in google.calls)
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assistant, user = second["messages"][-2:]
    assert assistant["content"][0] == {"type": "thinking", "thinking": "List the files.", "signature": "sig-1"}
    [result] = [block for block in user["content"] if block.get("type") == "tool_result"]
    assert result["tool_use_id"] == "toolu_1" and "notes.txt" in json.dumps(result["content"])
    assert len(google.assertions) == 1  # (the token is reused across the turn's calls)


def test_a_throttled_call_is_retried(
    agentui_bin: str, clean_env: dict[str, str], google: VertexServer, tmp_path: Path
) -> None:
    google.enqueue(
        google_error(429, "RESOURCE_EXHAUSTED", "Quota exceeded for online_prediction_requests_per_base_model."),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "After the quota."}])),
    )
    done = run(agentui_bin, ["-p", "hi"], vertex_env(clean_env, google, tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "After the quota.\n"
    assert len(google.calls) == 2


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        (
            google_error(404, "NOT_FOUND", f"Publisher Model `{SONNET}` was not found or your project does not have "
                         "access to it."),
            f"Vertex AI has no model {SONNET} in project my-project, region europe-west1 (404 NOT_FOUND: Publisher "
            "Model",
        ),
        (
            google_error(403, "PERMISSION_DENIED", "Permission 'aiplatform.endpoints.predict' denied.", listed=True),
            "Vertex AI refused access to project my-project (403 PERMISSION_DENIED: Permission",
        ),
    ],
)  # fmt: skip
def test_googles_refusals_are_one_sentence(
    agentui_bin: str, clean_env: dict[str, str], google: VertexServer, tmp_path: Path, reply: Reply, words: str
) -> None:
    google.enqueue(reply)
    done = run(agentui_bin, ["-p", "hi"], vertex_env(clean_env, google, tmp_path))
    assert done.returncode != 0
    assert_one_clean_sentence(done.stderr)
    assert words in done.stderr


def test_no_credentials_says_where_it_looked(
    agentui_bin: str, clean_env: dict[str, str], google: VertexServer, tmp_path: Path
) -> None:
    env = vertex_env(clean_env, google, tmp_path)
    del env["GOOGLE_APPLICATION_CREDENTIALS"]
    done = run(agentui_bin, ["-p", "hi"], env)
    assert done.returncode != 0
    assert_one_clean_sentence(done.stderr)
    assert "No Google Cloud credentials were found: GOOGLE_APPLICATION_CREDENTIALS is not set" in done.stderr
    assert str(Path(env["HOME"]) / ".config/gcloud/application_default_credentials.json") in done.stderr
    assert google.calls == []


def test_a_key_google_will_not_honour_is_one_sentence(
    agentui_bin: str, clean_env: dict[str, str], google: VertexServer, tmp_path: Path
) -> None:
    env = vertex_env(clean_env, google, tmp_path)
    key = json.loads(Path(env["GOOGLE_APPLICATION_CREDENTIALS"]).read_text())
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)  # (not the account's key)
    pem = stranger.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    Path(env["GOOGLE_APPLICATION_CREDENTIALS"]).write_text(json.dumps({**key, "private_key": pem.decode()}))
    done = run(agentui_bin, ["-p", "hi"], env)
    assert done.returncode != 0
    assert_one_clean_sentence(done.stderr)
    assert "Google would not issue an access token for the key file GOOGLE_APPLICATION_CREDENTIALS names" in done.stderr
    assert "invalid_grant: Invalid JWT Signature" in done.stderr


def test_an_unreachable_token_endpoint_is_one_sentence(
    agentui_bin: str, clean_env: dict[str, str], google: VertexServer, tmp_path: Path
) -> None:
    env = vertex_env(clean_env, google, tmp_path)
    key = json.loads(Path(env["GOOGLE_APPLICATION_CREDENTIALS"]).read_text())
    Path(env["GOOGLE_APPLICATION_CREDENTIALS"]).write_text(json.dumps({**key, "token_uri": "http://127.0.0.1:9/token"}))
    done = run(agentui_bin, ["-p", "hi"], env)
    assert done.returncode != 0
    assert_one_clean_sentence(done.stderr)
    assert (
        done.stderr.strip()
        .splitlines()[-1]
        .startswith("agentui: Could not reach Google to refresh the access token for the key file")
    )
    assert done.stderr.strip().endswith(": connection refused.")


def test_credentials_from_the_metadata_server(
    agentui_bin: str, clean_env: dict[str, str], google: VertexServer, tmp_path: Path
) -> None:
    """On Google's machines: no key file, no gcloud file; the metadata server gives the token and the project."""
    google.enqueue(Reply(chunks=anthropic_stream([{"type": "text", "text": "From the metadata server."}])))
    env = vertex_env(clean_env, google, tmp_path)
    del env["GOOGLE_APPLICATION_CREDENTIALS"], env["ANTHROPIC_VERTEX_PROJECT_ID"]
    host = google.url.removeprefix("http://")
    env |= {"GCE_METADATA_HOST": host, "GCE_METADATA_IP": host}
    done = run(agentui_bin, ["-p", "hi"], env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "From the metadata server.\n"
    [call] = google.calls
    assert call.path.startswith(f"/v1/projects/{METADATA_PROJECT}/locations/europe-west1/")
    assert call.headers["authorization"].removeprefix("Bearer ") in google.issued
    assert google.assertions == []  # (no key was exchanged)
