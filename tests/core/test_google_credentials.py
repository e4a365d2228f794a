"""Google access tokens from google-auth's credential chain: a service account's key file signed into a loopback token
endpoint (which checks the JWT's signature), kept until shortly before expiry, refreshed, and one sentence for each
way of finding none."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentui.core.providers.base import AuthenticationError, ConnectError
from agentui.core.providers.google_credentials import GoogleToken
from tests.support.google_token_server import PROJECT, GoogleTokenServer


@pytest.fixture
def token_server() -> Iterator[GoogleTokenServer]:
    server = GoogleTokenServer()
    yield server
    server.close()


def _env(key_file: Path | str, home: Path) -> dict[str, str]:
    return {"GOOGLE_APPLICATION_CREDENTIALS": str(key_file), "HOME": str(home)}


async def test_a_key_file_gives_a_token_kept_until_it_nears_expiry(
    token_server: GoogleTokenServer, tmp_path: Path
) -> None:
    source = GoogleToken(_env(token_server.key_file(tmp_path), tmp_path))
    first = await source.bearer()
    assert first == token_server.issued[0]
    assert await source.bearer() == first  # (valid for an hour: not fetched again)
    assert token_server.issued == [first]
    assert await source.project() == PROJECT
    assert source.source == f"the key file GOOGLE_APPLICATION_CREDENTIALS names ({tmp_path / 'service-account.json'})"
    assert first not in repr(source)


async def test_a_token_near_its_expiry_is_refreshed(token_server: GoogleTokenServer, tmp_path: Path) -> None:
    token_server.expires_in = 60  # (inside google-auth's refresh margin: stale as soon as it arrives)
    source = GoogleToken(_env(token_server.key_file(tmp_path), tmp_path))
    first, second = await source.bearer(), await source.bearer()
    assert first != second
    assert token_server.issued == [first, second]


async def test_an_invalidated_token_is_refreshed(token_server: GoogleTokenServer, tmp_path: Path) -> None:
    source = GoogleToken(_env(token_server.key_file(tmp_path), tmp_path))
    first = await source.bearer()
    source.invalidate()
    assert await source.bearer() != first
    assert len(token_server.issued) == 2


async def test_a_missing_key_file_is_one_sentence_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.json"
    with pytest.raises(AuthenticationError) as caught:
        await GoogleToken(_env(missing, tmp_path)).bearer()
    message = str(caught.value)
    assert message == (
        f"GOOGLE_APPLICATION_CREDENTIALS names {missing}, which is not a file; point it at a service account key or an "
        "application-default credentials file."
    )
    assert "\n" not in message


async def test_a_key_the_token_endpoint_rejects_is_one_sentence(
    token_server: GoogleTokenServer, tmp_path: Path
) -> None:
    other = GoogleTokenServer()  # (another key, with this endpoint as its token_uri: a wrong signature)
    try:
        key = json.loads(other.key_file(tmp_path).read_text()) | {"token_uri": token_server.token_uri}
    finally:
        other.close()
    (tmp_path / "k.json").write_text(json.dumps(key))
    with pytest.raises(AuthenticationError) as caught:
        await GoogleToken(_env(tmp_path / "k.json", tmp_path)).bearer()
    assert str(caught.value) == (
        f"Google would not issue an access token for the key file GOOGLE_APPLICATION_CREDENTIALS names "
        f"({tmp_path / 'k.json'}): invalid_grant: Invalid JWT Signature (run `gcloud auth application-default login`, "
        "or check the key)."
    )
    assert token_server.issued == []


async def test_an_unreachable_token_endpoint_is_a_connect_error(tmp_path: Path) -> None:
    server = GoogleTokenServer()
    key_file = server.key_file(tmp_path)
    server.close()  # (its port now refuses connections)
    with pytest.raises(ConnectError) as caught:
        await GoogleToken(_env(key_file, tmp_path)).bearer()
    assert str(caught.value) == (
        "Could not reach Google to refresh the access token for the key file GOOGLE_APPLICATION_CREDENTIALS names "
        f"({key_file}): connection refused."
    )


def test_no_credentials_anywhere_says_where_it_looked(tmp_path: Path) -> None:
    # A process of its own: google-auth reads NO_GCE_CHECK (skip the metadata server, which is not here) on import.
    code = (
        "import asyncio\n"
        "from agentui.core.providers.google_credentials import GoogleToken\n"
        "try:\n"
        "    asyncio.run(GoogleToken().bearer())\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "NO_GCE_CHECK": "true"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.stderr == ""
    adc = tmp_path / ".config" / "gcloud" / "application_default_credentials.json"
    assert done.stdout == (
        "GoogleCredentialsError No Google Cloud credentials were found: GOOGLE_APPLICATION_CREDENTIALS is not set, "
        f"there is no {adc} (made by `gcloud auth application-default login`), and no metadata server answered; log "
        "in with gcloud or set GOOGLE_APPLICATION_CREDENTIALS to a service account key file.\n"
    )


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("[]", "which holds an array of JSON, not a service account key"),
        ('"x"', "which holds a string of JSON, not a service account key"),
        ('{"type": "impersonated_service_account"}', "(a field is missing or not of its type)"),
    ],
)
async def test_a_malformed_key_file_is_one_sentence(tmp_path: Path, content: str, why: str) -> None:
    key_file = tmp_path / "key.json"
    key_file.write_text(content)
    with pytest.raises(AuthenticationError) as caught:
        await GoogleToken(_env(key_file, tmp_path)).bearer()
    message = str(caught.value)
    assert message.startswith(f"GOOGLE_APPLICATION_CREDENTIALS names {key_file}, which ")
    assert "\n" not in message and message.endswith(".") and why in message


async def test_a_token_endpoint_that_never_answers_is_given_up_in_one_sentence(tmp_path: Path) -> None:
    """A token endpoint that takes the connection and never answers (google-auth waits two minutes by default, gcloud
    for ever): given up after the ceiling, short here."""
    import socket

    from agentui.core.providers.blocking import CredentialsTimeoutError

    silent = socket.create_server(("127.0.0.1", 0))
    server = GoogleTokenServer()
    try:
        key = json.loads(server.key_file(tmp_path).read_text())
        key["token_uri"] = f"http://127.0.0.1:{silent.getsockname()[1]}/token"
        (tmp_path / "k.json").write_text(json.dumps(key))
        with pytest.raises(CredentialsTimeoutError) as caught:
            await GoogleToken(_env(tmp_path / "k.json", tmp_path), timeout=0.5).bearer()
    finally:
        server.close()
        silent.close()
    assert str(caught.value).startswith(
        f"Google gave no access token for the key file GOOGLE_APPLICATION_CREDENTIALS names ({tmp_path / 'k.json'}) "
        "within 0.5 s (its token endpoint, gcloud or the metadata server does not answer); "
    )
