"""`agentui -p` on Gemini through its own API: the installed command in a subprocess, against the loopback Gemini
server (tests/support/gemini_server.py), which checks the key and the method as the Gemini API does."""

from __future__ import annotations

import base64
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.gemini_server import (
    KEY,
    GeminiServer,
    chunk,
    google_error,
    model_of,
    rate_limited,
    stream,
    text_reply,
)

THOUGHT_SIGNATURE = "Q2lVQmpBRWRNdW5zaWduZWQtdGhvdWdodA=="
CALL_SIGNATURE = "Q2lVQm1hZGUtYnktZ2VtaW5pLWZvci10aGUtY2FsbA=="
# A 1x1 PNG: what Read gives the model as an image.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


@pytest.fixture
def gemini() -> Iterator[GeminiServer]:
    server = GeminiServer()
    try:
        yield server
    finally:
        server.close()


def gemini_env(clean_env: dict[str, str], server: GeminiServer, **more: str) -> dict[str, str]:
    return {**clean_env, "GEMINI_API_KEY": KEY, "GOOGLE_GEMINI_BASE_URL": server.url, **more}


def run(agentui_bin: str, args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [agentui_bin, *args], env=env, capture_output=True, text=True, timeout=90, cwd=cwd, stdin=subprocess.DEVNULL
    )


def one_sentence(stderr: str) -> str:
    """The error agentui printed: one line, one sentence, no traceback."""
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("agentui: ") and lines[0].endswith("."), stderr
    return lines[0]


def call(name: str, args: dict[str, Any], *, call_id: str | None = None, signature: str | None = None) -> dict[str, Any]:
    function: dict[str, Any] = {"name": name, "args": args}
    if call_id:
        function["id"] = call_id
    part: dict[str, Any] = {"functionCall": function}
    if signature:
        part["thoughtSignature"] = signature
    return part


def test_text_answer_streams_with_the_key_in_its_header(
    agentui_bin: str, clean_env: dict[str, str], gemini: GeminiServer, project: Path
) -> None:
    gemini.enqueue(text_reply("Red, green and blue."))
    done = run(agentui_bin, ["-p", "Name three colors.", "--output-format", "json"], gemini_env(clean_env, gemini), project)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["result"] == "Red, green and blue."
    request = gemini.requests[0]
    assert model_of(request) == "gemini-3.8-flash"  # (the default model)
    assert request.headers["x-goog-api-key"] == KEY and "key=" not in request.path  # (never the key in the URL)
    body = request.json()
    assert body["contents"][-1]["role"] == "user"
    assert body["contents"][-1]["parts"][-1] == {"text": "Name three colors."}
    assert "agentui" in body["systemInstruction"]["parts"][0]["text"]
    assert body["generationConfig"] == {"maxOutputTokens": 65536, "thinkingConfig": {"includeThoughts": True}}
    names = {d["name"] for d in body["tools"][0]["functionDeclarations"]}
    assert {"Read", "Bash", "Edit"} <= names
    read = next(d for d in body["tools"][0]["functionDeclarations"] if d["name"] == "Read")
    assert read["parametersJsonSchema"]["properties"]["file_path"]["type"] == "string"
    assert result["usage"]["input_tokens"] == 40 and result["usage"]["output_tokens"] == 9
