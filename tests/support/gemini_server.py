"""A Gemini API on 127.0.0.1: `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` (or /v1/) answered with queued
streams, as the Gemini API streams them (`data: {GenerateContentResponse}` events ending in CRLF CRLF), after the
checks the real service makes first: the API key in the `x-goog-api-key` header, the method's path."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from tests.support.loopback import LoopbackServer, RecordedRequest, Reply

KEY = "AIza-test-key-for-the-loopback-gemini"
TOKEN = "ya29.loopback-access-token"
_PATH = re.compile(r"^/v1(?:beta)?/models/(?P<model>[^/:?]+):streamGenerateContent\?alt=sse$")
_VERTEX_PATH = re.compile(
    r"^/v1/projects/(?P<project>[^/]+)/locations/(?P<location>[^/]+)/publishers/google/models/(?P<model>[^/:?]+)"
    r":streamGenerateContent\?alt=sse$"
)


class GeminiServer(LoopbackServer):
    """Queued replies (`enqueue`) go to requests that pass the key and path checks; the others get the error the
    Gemini API gives (403 without a key, 400 API_KEY_INVALID with a wrong one, 404 for another method). A Vertex AI
    path (`/v1/projects/{p}/locations/{l}/publishers/google/models/{m}`) needs the access token `token` as a bearer
    instead, and gets Vertex AI's 401 without it."""

    def __init__(self, key: str = KEY, token: str = TOKEN) -> None:
        super().__init__()
        self.key = key
        self.token = token

    def _next(self, request: RecordedRequest) -> Reply:
        refusal = self._refusal(request)
        if refusal is None:
            return super()._next(request)
        with self._lock:
            self.requests.append(request)
        return refusal

    def _refusal(self, request: RecordedRequest) -> Reply | None:
        if request.method == "POST" and _VERTEX_PATH.match(request.path):
            if request.headers.get("authorization") == f"Bearer {self.token}":
                return None
            return google_error(
                401,
                "UNAUTHENTICATED",
                "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other "
                "valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-"
                "project.",
                [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "ACCESS_TOKEN_TYPE_UNSUPPORTED"}],
            )
        if request.method != "POST" or not _PATH.match(request.path):
            return google_error(404, "NOT_FOUND", f"Method not found: {request.path}.")
        given = request.headers.get("x-goog-api-key")
        if given is None:
            return google_error(
                403,
                "PERMISSION_DENIED",
                "Method doesn't allow unregistered callers (callers without established identity). Please use API "
                "Key or other form of API consumer identity to call this API.",
            )
        if given != self.key:
            return google_error(
                400,
                "INVALID_ARGUMENT",
                "API key not valid. Please pass a valid API key.",
                [_error_info("API_KEY_INVALID")],
            )
        return None


def model_of(request: RecordedRequest) -> str:
    found = _PATH.match(request.path) or _VERTEX_PATH.match(request.path)
    assert found, request.path
    return found["model"]


def _error_info(reason: str) -> dict[str, Any]:
    return {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": reason,
        "domain": "googleapis.com",
        "metadata": {"service": "generativelanguage.googleapis.com"},
    }


def google_error(
    status: int,
    name: str,
    message: str,
    details: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
) -> Reply:
    """An error answer in Google's shape, indented as the Gemini API sends it."""
    error: dict[str, Any] = {"code": status, "message": message, "status": name}
    if details:
        error["details"] = details
    body = json.dumps({"error": error}, indent=2).encode() + b"\n"
    return Reply(status=status, chunks=[body], content_type="application/json; charset=UTF-8", headers=headers or {})


def rate_limited(delay: str = "7s") -> Reply:
    """The free tier's quota answer: 429 RESOURCE_EXHAUSTED with the wait in a RetryInfo detail."""
    return google_error(
        429,
        "RESOURCE_EXHAUSTED",
        "You exceeded your current quota, please check your plan and billing details. For more information on this "
        "error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n* Quota exceeded for metric: "
        "generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 10\nPlease retry in 7s.",
        [
            {
                "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                "violations": [
                    {
                        "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                        "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
                    }
                ],
            },
            {"@type": "type.googleapis.com/google.rpc.Help", "links": [{"description": "Learn more", "url": "x"}]},
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay},
        ],
    )


def chunk(
    parts: list[dict[str, Any]] | None = None,
    *,
    finish: str | None = None,
    usage: dict[str, int] | None = None,
    model: str = "gemini-3.8-flash",
    response_id: str = "resp-loopback-1",
    prompt_feedback: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One GenerateContentResponse of a stream. Each answer has a `response_id` of its own (a session knows an
    answer's blocks by it): the chunks of one stream share it."""
    data: dict[str, Any] = {}
    if parts is not None or finish is not None:
        candidate: dict[str, Any] = {"content": {"parts": parts or [], "role": "model"}, "index": 0}
        if finish is not None:
            candidate["finishReason"] = finish
        data["candidates"] = [candidate]
    if prompt_feedback is not None:
        data["promptFeedback"] = prompt_feedback
    data["usageMetadata"] = usage or {"promptTokenCount": 25, "candidatesTokenCount": 1, "totalTokenCount": 26}
    data["modelVersion"] = model
    data["responseId"] = response_id
    return data


def stream(*chunks: dict[str, Any]) -> Reply:
    """The chunks as the Gemini API streams them with `alt=sse`: one `data:` line each, events ending in CRLF CRLF."""
    return Reply(chunks=[b"data: " + json.dumps(c).encode() + b"\r\n\r\n" for c in chunks])


def text_reply(text: str, *, signature: str | None = "c2lnLXRleHQ=", pieces: int = 3, **more: Any) -> Reply:
    """A text answer split into `pieces` chunks, the signature arriving alone on an empty part at the end (as Gemini 3
    streams it), and the usage of the whole."""
    size = max(1, -(-len(text) // pieces))
    more.setdefault("response_id", f"resp-{uuid.uuid4().hex[:12]}")
    chunks = [chunk([{"text": text[at : at + size]}], **more) for at in range(0, len(text), size)]
    final = [{"text": "", "thoughtSignature": signature}] if signature else []
    usage = {"promptTokenCount": 40, "candidatesTokenCount": 9, "totalTokenCount": 49}
    chunks.append(chunk(final, finish="STOP", usage=usage, **more))
    return stream(*chunks)


class TokenEndpoint(LoopbackServer):
    """Google's OAuth token endpoint for a service account key (`key_file`, whose `token_uri` is this server): the
    JWT-bearer grant's assertion checked against the key's public key, as Google checks it, and answered with the
    access token `token`."""

    def __init__(self, token: str = TOKEN) -> None:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa

        super().__init__()
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.private_pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()
        self.public_pem = key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        self.token = token
        self.responder = self._grant

    def _grant(self, request: RecordedRequest) -> Reply:
        import google.auth.jwt

        form = parse_qs(request.body.decode())
        if form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"] or "assertion" not in form:
            return Reply.error(400, {"error": "unsupported_grant_type"})
        try:  # (signed for Google's token endpoint, whatever the key file's token_uri says)
            claims = google.auth.jwt.decode(
                form["assertion"][0], certs=self.public_pem, audience="https://oauth2.googleapis.com/token"
            )
        except ValueError:
            return Reply.error(400, {"error": "invalid_grant", "error_description": "Invalid JWT Signature."})
        if "https://www.googleapis.com/auth/cloud-platform" not in str(claims.get("scope", "")).split():
            return Reply.error(400, {"error": "invalid_scope", "error_description": "Vertex AI needs cloud-platform."})
        answer = {"access_token": self.token, "expires_in": 3599, "token_type": "Bearer"}
        return Reply(chunks=[json.dumps(answer).encode()], content_type="application/json")

    def key_file(self, directory: Path, project: str = "my-project") -> Path:
        """A service account key file for `project` whose tokens this endpoint issues."""
        path = directory / "service-account.json"
        info = {
            "type": "service_account",
            "project_id": project,
            "private_key_id": "loopback-key",
            "private_key": self.private_pem,
            "client_email": f"agentui@{project}.iam.gserviceaccount.com",
            "client_id": "1234567890",
            "token_uri": f"{self.url}/token",
        }
        path.write_text(json.dumps(info))
        return path
