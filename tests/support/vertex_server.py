"""A loopback Google: an OAuth token endpoint that issues access tokens for a service account's signed JWT assertion
(checked with the account's public key, as Google's does), a GCE metadata server that issues them to its machine,
and Vertex AI's `streamRawPredict` for Claude, which answers only a bearer token issued here and still valid, with
the Messages API's SSE or Google's errors.

The key file it writes is a real service-account key (a fresh RSA key) whose token_uri is this server: google-auth
does the real signing and exchange against it."""

from __future__ import annotations

import base64
import json
import re
import secrets
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from tests.support.loopback import LoopbackServer, RecordedRequest, Reply

CLIENT_EMAIL = "agentui-test@loopback-project.iam.gserviceaccount.com"
KEY_PROJECT = "loopback-project"
METADATA_PROJECT = "metadata-project"
CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"
_PATH = re.compile(r"^/v1/projects/([^/]+)/locations/([^/]+)/publishers/anthropic/models/([^/:]+):streamRawPredict$")


def google_error(code: int, status: str, message: str, *, listed: bool = False) -> Reply:
    """An error in Google's shape; `listed`: inside a JSON list, as some Google front ends send it."""
    error: Any = {"error": {"code": code, "message": message, "status": status}}
    body = json.dumps([error] if listed else error).encode()
    return Reply(status=code, chunks=[body], content_type="application/json")


class VertexServer:
    """Google's token endpoint at /token and Vertex AI at /v1/projects/…; `calls` are the Vertex requests."""

    def __init__(self, token_lifetime: int = 3600) -> None:
        self.token_lifetime = token_lifetime
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.issued: dict[str, float] = {}
        """Access token -> when it expires (time.time())."""
        self.assertions: list[dict[str, Any]] = []
        """The JWT claims of each token request that verified."""
        self.calls: list[RecordedRequest] = []
        self._replies: list[Reply] = []
        self._lock = threading.Lock()
        self._http = LoopbackServer()
        self._http.responder = self._answer
        self.url = self._http.url
        self.base_url = f"{self.url}/v1"
        """What ANTHROPIC_VERTEX_BASE_URL is set to (the API version is part of it, as Claude Code takes it)."""

    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self._replies.extend(replies)

    def revoke_all(self) -> None:
        """Every token issued so far is no longer accepted (as if expired on Google's side)."""
        with self._lock:
            self.issued = dict.fromkeys(self.issued, 0.0)

    def key_file(self, directory: Path) -> Path:
        """A service-account key file for this server's account, as the Cloud console downloads it."""
        pem = self.key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        info = {
            "type": "service_account",
            "project_id": KEY_PROJECT,
            "private_key_id": "loopback-key-1",
            "private_key": pem.decode(),
            "client_email": CLIENT_EMAIL,
            "client_id": "1234567890",
            "auth_uri": f"{self.url}/auth",
            "token_uri": f"{self.url}/token",
        }
        path = directory / "service-account.json"
        path.write_text(json.dumps(info))
        return path

    def close(self) -> None:
        self._http.close()

    def _answer(self, request: RecordedRequest) -> Reply:
        if request.path == "/token":
            return self._token(request)
        if request.method == "GET":
            return self._metadata(request)
        if not _PATH.match(request.path):
            return google_error(404, "NOT_FOUND", f"The requested URL {request.path} was not found on this server.")
        with self._lock:
            self.calls.append(request)
            bearer = request.headers.get("authorization", "").removeprefix("Bearer ")
            if self.issued.get(bearer, 0.0) <= time.time():
                return google_error(
                    401,
                    "UNAUTHENTICATED",
                    "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie "
                    "or other valid authentication credential.",
                )
            if self._replies:
                return self._replies.pop(0)
        return google_error(500, "INTERNAL", "no reply queued")

    def _token(self, request: RecordedRequest) -> Reply:
        """RFC 7523's JWT bearer grant, verified as Google verifies it: RS256 with the account's key, its audience,
        issuer, scope and lifetime."""
        form = urllib.parse.parse_qs(request.body.decode())
        if form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"]:
            return _oauth_error("unsupported_grant_type", "Invalid grant_type.")
        try:
            header, claims, signed, signature = _jwt_parts(form["assertion"][0])
            self.key.public_key().verify(signature, signed, padding.PKCS1v15(), hashes.SHA256())
        except (KeyError, ValueError, InvalidSignature):
            return _oauth_error("invalid_grant", "Invalid JWT Signature.")
        now = time.time()
        valid = (
            header.get("alg") == "RS256"
            and claims.get("iss") == CLIENT_EMAIL
            and claims.get("aud")
            == "https://oauth2.googleapis.com/token"  # (google-auth's audience, wherever it posts)
            and CLOUD_PLATFORM in str(claims.get("scope", "")).split()
            and claims.get("iat", now + 999) <= now + 60 < claims.get("exp", 0) + 60
        )
        if not valid:
            return _oauth_error("invalid_grant", "Invalid JWT: the claims are not right.")
        with self._lock:
            self.assertions.append(claims)
        return Reply(status=200, chunks=[json.dumps(self._issue()).encode()], content_type="application/json")

    def _metadata(self, request: RecordedRequest) -> Reply:
        """The GCE metadata server, as google-auth asks it (GCE_METADATA_HOST and GCE_METADATA_IP at this server):
        the ping, the project, the default service account and its token. Only requests that say
        `Metadata-Flavor: Google` are answered, as the real one does."""
        flavor = {"metadata-flavor": "Google"}
        if request.headers.get("metadata-flavor") != "Google":
            return Reply(
                status=403, chunks=[b"Missing Metadata-Flavor header."], headers=flavor, content_type="text/plain"
            )
        path, _, query = request.path.partition("?")
        account = "/computeMetadata/v1/instance/service-accounts/default/"
        answers: dict[str, Any] = {
            "/": "",
            "/computeMetadata/v1/project/project-id": METADATA_PROJECT,
            "/computeMetadata/v1/universe/universe-domain": "googleapis.com",
            account: {"email": CLIENT_EMAIL, "aliases": ["default"], "scopes": [CLOUD_PLATFORM]},
        }
        if path == account + "token":
            if CLOUD_PLATFORM not in urllib.parse.unquote(query):
                return Reply(status=400, chunks=[b"the scope is missing"], headers=flavor, content_type="text/plain")
            answers[path] = self._issue()
        if path not in answers:
            return Reply(status=404, chunks=[b"Not Found"], headers=flavor, content_type="text/plain")
        answer = answers[path]
        if isinstance(answer, str):
            return Reply(chunks=[answer.encode()] if answer else [], headers=flavor, content_type="text/plain")
        return Reply(chunks=[json.dumps(answer).encode()], headers=flavor, content_type="application/json")

    def _issue(self) -> dict[str, Any]:
        token = "ya29.loopback-" + secrets.token_urlsafe(24)
        with self._lock:
            self.issued[token] = time.time() + self.token_lifetime
        return {"access_token": token, "expires_in": self.token_lifetime, "token_type": "Bearer"}


def _oauth_error(error: str, description: str) -> Reply:
    return Reply.error(400, {"error": error, "error_description": description})


def _jwt_parts(assertion: str) -> tuple[dict[str, Any], dict[str, Any], bytes, bytes]:
    head, payload, signature = assertion.split(".")
    return json.loads(_unb64(head)), json.loads(_unb64(payload)), f"{head}.{payload}".encode(), _unb64(signature)


def _unb64(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
