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
    TOKEN,
    GeminiServer,
    TokenEndpoint,
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


def call(
    name: str, args: dict[str, Any], *, call_id: str | None = None, signature: str | None = None
) -> dict[str, Any]:
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
    done = run(
        agentui_bin, ["-p", "Name three colors.", "--output-format", "json"], gemini_env(clean_env, gemini), project
    )
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


ID = {"response_id": "resp-read-turn"}


def read_turn(path: Path) -> list[dict[str, Any]]:
    """Gemini thinking (its summary, then its signature alone on an empty thought part), saying a word, and calling
    Read with a signature of its own, as Gemini 3 streams a step."""
    return [
        chunk([{"text": "**Reading the notes**\nThe notes are in a file; I should read it.", "thought": True}], **ID),
        chunk([{"text": "", "thought": True, "thoughtSignature": THOUGHT_SIGNATURE}], **ID),
        chunk([{"text": "Let me read it."}], **ID),
        chunk(
            [call("Read", {"file_path": str(path)}, call_id="read-1", signature=CALL_SIGNATURE)],
            finish="STOP",
            usage={"promptTokenCount": 30, "candidatesTokenCount": 12, "thoughtsTokenCount": 20, "totalTokenCount": 62},
            **ID,
        ),
    ]


def test_a_tool_call_round_trip_sends_back_the_thinking_and_call_signatures(
    agentui_bin: str, clean_env: dict[str, str], gemini: GeminiServer, project: Path
) -> None:
    notes = project / "notes.txt"
    notes.write_text("hello gemini\n")
    gemini.enqueue(stream(*read_turn(notes)), text_reply("It says hello gemini.", signature="dGV4dC1zaWc="))
    env = gemini_env(clean_env, gemini)
    done = run(agentui_bin, ["-p", "What do my notes say?", "--output-format", "events"], env, project)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    # The thinking shows as thinking, streamed and finished.
    thinking = [e["text"] for e in events if e["type"] == "thinking_delta"]
    assert "".join(thinking) == "**Reading the notes**\nThe notes are in a file; I should read it."
    ended = [e["block"] for e in events if e["type"] == "content_block_end"]
    assert ended[0]["type"] == "thinking" and ended[0]["thought_signature"] == THOUGHT_SIGNATURE
    tool_end = next(e for e in events if e["type"] == "tool_end")
    assert not tool_end["is_error"] and tool_end["content"] == "     1\thello gemini"
    assert events[-1]["type"] == "result" and events[-1]["result"] == "It says hello gemini."

    second = gemini.requests[1].json()["contents"]
    assert second[-2] == {
        "role": "model",
        "parts": [
            {
                "text": "**Reading the notes**\nThe notes are in a file; I should read it.",
                "thought": True,
                "thoughtSignature": THOUGHT_SIGNATURE,
            },
            {"text": "Let me read it."},
            {
                "functionCall": {"name": "Read", "args": {"file_path": str(notes)}, "id": "read-1"},
                "thoughtSignature": CALL_SIGNATURE,
            },
        ],
    }
    assert second[-1] == {
        "role": "user",
        "parts": [
            {"functionResponse": {"name": "Read", "response": {"output": "     1\thello gemini"}, "id": "read-1"}}
        ],
    }


def test_a_resumed_session_sends_back_the_signatures_it_saved(
    agentui_bin: str, clean_env: dict[str, str], gemini: GeminiServer, project: Path
) -> None:
    notes = project / "notes.txt"
    notes.write_text("hello gemini\n")
    gemini.enqueue(stream(*read_turn(notes)), text_reply("It says hello gemini.", signature="dGV4dC1zaWc="))
    env = gemini_env(clean_env, gemini)
    first = run(agentui_bin, ["-p", "What do my notes say?", "--output-format", "json"], env, project)
    assert first.returncode == 0, first.stderr
    session = json.loads(first.stdout)["session_id"]
    before = gemini.requests[1].json()["contents"]

    gemini.enqueue(text_reply("Still hello gemini."))
    again = run(agentui_bin, ["-p", "And now?", "--resume", session, "--output-format", "json"], env, project)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["result"] == "Still hello gemini."
    resumed = gemini.requests[2].json()["contents"]
    assert resumed[: len(before)] == before  # (the thought and the call with their signatures, as first sent)
    assert resumed[len(before)] == {
        "role": "model",
        "parts": [{"text": "It says hello gemini.", "thoughtSignature": "dGV4dC1zaWc="}],
    }
    assert resumed[-1]["parts"][-1] == {"text": "And now?"}


def test_an_image_read_goes_to_gemini_as_inline_data(
    agentui_bin: str, clean_env: dict[str, str], gemini: GeminiServer, project: Path
) -> None:
    (project / "dot.png").write_bytes(PNG)
    gemini.enqueue(
        stream(chunk([call("Read", {"file_path": str(project / "dot.png")})], finish="STOP", response_id="r1")),
        text_reply("A single dot."),
    )
    done = run(agentui_bin, ["-p", "What is in dot.png?"], gemini_env(clean_env, gemini), project)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "A single dot.\n"
    model, results = gemini.requests[1].json()["contents"][-2:]
    sent_call = model["parts"][0]["functionCall"]
    assert "id" not in sent_call  # (Gemini sent none: agentui's own id stays agentui's)
    response, image = results["parts"]
    assert response["functionResponse"]["name"] == "Read" and "id" not in response["functionResponse"]
    assert image == {"inlineData": {"mimeType": "image/png", "data": base64.b64encode(PNG).decode()}}


def test_an_unsigned_call_carries_the_signature_google_documents_for_gemini_3(
    agentui_bin: str, clean_env: dict[str, str], gemini: GeminiServer, project: Path
) -> None:
    # A call Gemini 3 did not make (Gemini 2.5's, here; another model's, in a session resumed on Gemini) has no
    # signature, and Gemini 3 rejects a step whose first call has none: it goes with Google's "skip" signature.
    (project / "notes.txt").write_text("hello gemini\n")
    gemini.enqueue(
        stream(chunk([call("Read", {"file_path": str(project / "notes.txt")})], finish="STOP", response_id="r1")),
        text_reply("It says hello gemini.", signature=None),
        text_reply("Still hello."),
    )
    env = gemini_env(clean_env, gemini)
    first = run(
        agentui_bin, ["-p", "Read my notes", "--model", "gemini-2.5-flash", "--output-format", "json"], env, project
    )
    assert first.returncode == 0, first.stderr
    session = json.loads(first.stdout)["session_id"]
    again = run(agentui_bin, ["-p", "And now?", "--resume", session, "--model", "gemini-3.8-flash"], env, project)
    assert again.returncode == 0, again.stderr
    calls = [
        [part for content in request.json()["contents"] for part in content["parts"] if "functionCall" in part]
        for request in gemini.requests[1:]
    ]
    assert "thoughtSignature" not in calls[0][0]  # (Gemini 2.5 checks no signatures: none is made up for it)
    assert calls[1][0]["thoughtSignature"] == "skip_thought_signature_validator"


@pytest.mark.parametrize(
    ("args", "thinking"),
    [
        (["--effort", "low"], {"includeThoughts": True, "thinkingLevel": "LOW"}),
        (["--effort", "max"], {"includeThoughts": True, "thinkingLevel": "HIGH"}),
        (["--model", "gemini-2.5-flash", "--effort", "medium"], {"includeThoughts": True, "thinkingBudget": 8192}),
        (
            ["--model", "gemini-2.5-pro", "--max-thinking-tokens", "31999"],
            {"includeThoughts": True, "thinkingBudget": 31999},
        ),
        (["--model", "gemini-2.0-flash"], None),
    ],
)
def test_effort_and_thinking_tokens_become_gemini_thinking_settings(
    agentui_bin: str,
    clean_env: dict[str, str],
    gemini: GeminiServer,
    project: Path,
    args: list[str],
    thinking: dict[str, Any] | None,
) -> None:
    gemini.enqueue(text_reply("Done."))
    done = run(agentui_bin, ["-p", "go", *args], gemini_env(clean_env, gemini), project)
    assert done.returncode == 0, done.stderr
    assert gemini.requests[0].json()["generationConfig"].get("thinkingConfig") == thinking


def test_a_safety_stop_is_a_refusal_that_says_so(
    agentui_bin: str, clean_env: dict[str, str], gemini: GeminiServer, project: Path
) -> None:
    gemini.enqueue(stream(chunk([{"text": "I can"}]), chunk([], finish="SAFETY")))
    done = run(agentui_bin, ["-p", "something", "--output-format", "json"], gemini_env(clean_env, gemini), project)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["result"].endswith("Gemini stopped its answer: its safety filters blocked the answer (SAFETY).")
    assert result["stop_reason"] == "refusal"


NOT_FOUND = (
    "models/gemini-9-ultra is not found for API version v1beta, or is not supported for generateContent. Call "
    "ListModels to see the list of available models and their supported methods."
)


@pytest.mark.parametrize(
    ("env_more", "reply", "said"),
    [
        (
            {"GEMINI_API_KEY": "AIza-not-the-key"},
            None,  # (the server's own check: 400 API_KEY_INVALID)
            "agentui: The Gemini API rejected the API key (400 INVALID_ARGUMENT); check GEMINI_API_KEY (or "
            "GOOGLE_API_KEY): API key not valid.",
        ),
        (
            {"GEMINI_API_KEY": "", "AGENTUI_PROVIDER": "gemini"},
            None,  # (no key, and a server of one's own: sent without one, refused as the Gemini API refuses it)
            "agentui: The Gemini API refused access (403 PERMISSION_DENIED); check GEMINI_API_KEY (or GOOGLE_API_KEY): "
            "Method doesn't allow unregistered callers (callers without established identity).",
        ),
        (
            {},
            google_error(403, "PERMISSION_DENIED", "Your API key was reported as leaked. Please use another API key."),
            "agentui: The Gemini API refused access (403 PERMISSION_DENIED); check GEMINI_API_KEY (or GOOGLE_API_KEY): "
            "Your API key was reported as leaked.",
        ),
        (
            {"GEMINI_MODEL": "gemini-9-ultra"},
            google_error(404, "NOT_FOUND", NOT_FOUND),
            "agentui: The Gemini API has no model 'gemini-9-ultra' that these credentials can use (404 NOT_FOUND); "
            "check GEMINI_MODEL or --model: models/gemini-9-ultra is not found for API version v1beta, or is not "
            "supported for generateContent.",
        ),
        (
            {},
            google_error(400, "FAILED_PRECONDITION", "User location is not supported for the API use."),
            "agentui: The Gemini API rejected the request (400 FAILED_PRECONDITION): User location is not supported "
            "for the API use.",
        ),
        (
            {},
            rate_limited("3600s"),  # (longer than agentui waits: said at once, with the wait Google asked for)
            "agentui: The Gemini API is rate limiting requests (429 RESOURCE_EXHAUSTED): You exceeded your current "
            "quota, please check your plan and billing details; it asks to wait 3600 s before trying again, longer "
            "than agentui waits (60 s), so the request was given up (try again later, or set AGENTUI_MAX_RETRY_WAIT "
            "to wait longer).",
        ),
    ],
)
def test_each_gemini_error_is_one_sentence(
    agentui_bin: str,
    clean_env: dict[str, str],
    gemini: GeminiServer,
    project: Path,
    env_more: dict[str, str],
    reply: Any,
    said: str,
) -> None:
    if reply is not None:
        gemini.enqueue(reply)
    done = run(agentui_bin, ["-p", "hi"], gemini_env(clean_env, gemini, **env_more), project)
    assert done.returncode == 1
    assert one_sentence(done.stderr) == said
    assert len(gemini.requests) == 1  # (none of these is tried again)


def test_without_a_key_agentui_says_where_it_looked(agentui_bin: str, clean_env: dict[str, str], project: Path) -> None:
    env = {**clean_env, "AGENTUI_PROVIDER": "gemini"}
    done = run(agentui_bin, ["-p", "hi"], env, project)
    assert done.returncode == 1
    assert one_sentence(done.stderr) == (
        "agentui: No Gemini API key was found: agentui looked for GEMINI_API_KEY and GOOGLE_API_KEY in the "
        "environment; set one (a key from https://aistudio.google.com/apikey), or set GOOGLE_GENAI_USE_VERTEXAI=true "
        "to reach Gemini through Vertex AI."
    )


@pytest.mark.parametrize(
    "failure",
    [
        rate_limited("0.2s"),
        google_error(503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
        google_error(
            500, "INTERNAL", "An internal error has occurred. Please retry or report in the troubleshooting guide."
        ),
    ],
    ids=["429", "503", "500"],
)
def test_a_throttled_or_failing_call_is_tried_again(
    agentui_bin: str, clean_env: dict[str, str], gemini: GeminiServer, project: Path, failure: Any
) -> None:
    gemini.enqueue(failure, text_reply("Done."))
    env = gemini_env(clean_env, gemini)
    done = run(agentui_bin, ["-p", "hi", "--output-format", "events"], env, project)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    retries = [e for e in events if e["type"] == "retry"]
    assert len(retries) == 1 and len(gemini.requests) == 2
    if failure.status == 429:
        assert retries[0]["delay"] == pytest.approx(0.2, abs=0.05)  # (RetryInfo's retryDelay)
    assert events[-1]["result"] == "Done."


def test_an_error_inside_the_stream_is_one_sentence(
    agentui_bin: str, clean_env: dict[str, str], gemini: GeminiServer, project: Path
) -> None:
    error = {"error": {"code": 400, "message": "Request contains an invalid argument.", "status": "INVALID_ARGUMENT"}}
    gemini.enqueue(stream(chunk([{"text": "Hel"}]), error))
    done = run(agentui_bin, ["-p", "hi"], gemini_env(clean_env, gemini), project)
    assert done.returncode == 1
    assert one_sentence(done.stderr).endswith(
        "The Gemini API rejected the request (400 INVALID_ARGUMENT): Request contains an invalid argument."
    )


# Gemini on Vertex AI


@pytest.fixture
def token_endpoint() -> Iterator[TokenEndpoint]:
    endpoint = TokenEndpoint()
    try:
        yield endpoint
    finally:
        endpoint.close()


def vertex_env(clean_env: dict[str, str], server: GeminiServer, **more: str) -> dict[str, str]:
    # (no metadata server: google-auth's look for one goes to a closed port on loopback, never to 169.254.169.254)
    return {
        **clean_env,
        "GOOGLE_GENAI_USE_VERTEXAI": "true",
        "GOOGLE_VERTEX_BASE_URL": server.url,
        "GCE_METADATA_HOST": "127.0.0.1:9",
        "GCE_METADATA_IP": "127.0.0.1:9",
        **more,
    }


def test_vertex_is_switched_on_as_the_gen_ai_sdk_switches_it(
    agentui_bin: str,
    clean_env: dict[str, str],
    gemini: GeminiServer,
    token_endpoint: TokenEndpoint,
    project: Path,
    tmp_path: Path,
) -> None:
    key = token_endpoint.key_file(tmp_path, project="key-project")
    gemini.enqueue(text_reply("From Vertex."), text_reply("From Europe."))
    env = vertex_env(clean_env, gemini, GOOGLE_APPLICATION_CREDENTIALS=str(key))
    done = run(agentui_bin, ["-p", "hi"], env, project)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "From Vertex.\n"
    request = gemini.requests[0]
    assert request.path == (  # (the key file's project; the global location, as the SDK's default)
        "/v1/projects/key-project/locations/global/publishers/google/models/gemini-3.8-flash"
        ":streamGenerateContent?alt=sse"
    )
    assert request.headers["authorization"] == f"Bearer {TOKEN}" and "x-goog-api-key" not in request.headers
    assert request.json()["contents"][-1]["parts"][-1] == {"text": "hi"}
    env.update(GOOGLE_CLOUD_PROJECT="my-project", GOOGLE_CLOUD_LOCATION="europe-west4")
    again = run(agentui_bin, ["-p", "hi", "--model", "gemini-3.1-pro-preview"], env, project)
    assert again.returncode == 0, again.stderr
    assert gemini.requests[1].path.startswith(
        "/v1/projects/my-project/locations/europe-west4/publishers/google/models/gemini-3.1-pro-preview:"
    )


def test_vertex_without_credentials_says_where_agentui_looked(
    agentui_bin: str, clean_env: dict[str, str], gemini: GeminiServer, project: Path
) -> None:
    done = run(agentui_bin, ["-p", "hi"], vertex_env(clean_env, gemini, GOOGLE_CLOUD_PROJECT="p"), project)
    assert done.returncode == 1
    said = one_sentence(done.stderr)
    assert said.startswith("agentui: No Google Cloud credentials were found: GOOGLE_APPLICATION_CREDENTIALS is not set")
    assert "application_default_credentials.json" in said and not gemini.requests


def test_a_vertex_model_the_location_lacks_is_one_sentence(
    agentui_bin: str,
    clean_env: dict[str, str],
    gemini: GeminiServer,
    token_endpoint: TokenEndpoint,
    project: Path,
    tmp_path: Path,
) -> None:
    key = token_endpoint.key_file(tmp_path)
    gemini.enqueue(
        google_error(
            404,
            "NOT_FOUND",
            "Publisher Model `projects/my-project/locations/us-east1/publishers/google/models/gemini-3.1-pro-preview` "
            "was not found or your project does not have access to it. Please ensure you are using a valid model "
            "version. For more information, see: https://cloud.google.com/vertex-ai/generative-ai/docs/learn/model-versions",
        )
    )
    env = vertex_env(clean_env, gemini, GOOGLE_APPLICATION_CREDENTIALS=str(key), GOOGLE_CLOUD_LOCATION="us-east1")
    done = run(agentui_bin, ["-p", "hi", "--model", "gemini-3.1-pro-preview"], env, project)
    assert done.returncode == 1
    assert one_sentence(done.stderr) == (
        "agentui: Vertex AI has no model 'gemini-3.1-pro-preview' in location us-east1 of project my-project that "
        "these credentials can use (404 NOT_FOUND); check GEMINI_MODEL or --model, or GOOGLE_CLOUD_LOCATION: "
        "Publisher Model `projects/my-project/locations/us-east1/publishers/google/models/gemini-3.1-pro-preview` "
        "was not found or your project does not have access to it."
    )
