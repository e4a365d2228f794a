"""Google's OAuth token endpoint on 127.0.0.1, for a service account's key file made in the test: it takes the JWT
grant (RFC 7523) google-auth sends, checks the assertion's RS256 signature with the key's public half and its
claims, and issues an access token that expires in `expires_in` seconds. `key_file` writes the matching key file."""

from __future__ import annotations

import base64
import json
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from tests.support.loopback import LoopbackServer, RecordedRequest, Reply

CLIENT_EMAIL = "agentui-test@loopback-project.iam.gserviceaccount.com"
PROJECT = "loopback-project"
GOOGLE_TOKEN_ENDPOINT = "https://oauth2.googleapis.com/token"
"""The audience a service account's assertion names, wherever its token_uri points (Google's own endpoint)."""
_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"


class GoogleTokenServer(LoopbackServer):
    """POST /token answers a correctly signed JWT grant with {"access_token", "expires_in", "token_type"}; anything
    else gets OAuth's error answer (400 invalid_grant). `issued` holds every token given, in order."""

    def __init__(self, expires_in: int = 3600) -> None:
        super().__init__()
        self.expires_in = expires_in
        self.issued: list[str] = []
        self._key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self._issue_lock = threading.Lock()

    @property
    def token_uri(self) -> str:
        return f"{self.url}/token"

    def key_file(self, directory: Path, *, project: str = PROJECT) -> Path:
        """A service account's JSON key file whose token_uri is this server."""
        pem = self._key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()
        info = {
            "type": "service_account",
            "project_id": project,
            "private_key_id": "loopback-key-1",
            "private_key": pem,
            "client_email": CLIENT_EMAIL,
            "client_id": "100000000000000000001",
            "token_uri": self.token_uri,
        }
        path = directory / "service-account.json"
        path.write_text(json.dumps(info))
        return path

    def _next(self, request: RecordedRequest) -> Reply:
        if request.path != "/token":
            return super()._next(request)
        with self._lock:
            self.requests.append(request)
        problem = self._check(request)
        if problem:
            return Reply.error(400, {"error": "invalid_grant", "error_description": problem})
        with self._issue_lock:
            token = f"ya29.loopback-{len(self.issued) + 1}"
            self.issued.append(token)
        body = {"access_token": token, "expires_in": self.expires_in, "token_type": "Bearer"}
        return Reply.error(200, body)

    def _check(self, request: RecordedRequest) -> str:
        """What is wrong with the grant, or "" when it is a valid assertion signed by the key file's key."""
        form = parse_qs(request.body.decode())
        if form.get("grant_type") != [_GRANT] or len(form.get("assertion", [])) != 1:
            return "Not a JWT bearer grant."
        try:
            header_b64, claims_b64, signature_b64 = form["assertion"][0].split(".")
            header, claims = json.loads(_unpad(header_b64)), json.loads(_unpad(claims_b64))
            self._key.public_key().verify(
                _unpad(signature_b64),
                f"{header_b64}.{claims_b64}".encode(),
                padding.PKCS1v15(),
                hashes.SHA256(),
            )
        except (ValueError, InvalidSignature):
            return "Invalid JWT Signature."
        return _claims_problem(header, claims)


def _claims_problem(header: dict[str, Any], claims: dict[str, Any]) -> str:
    now = time.time()
    if header.get("alg") != "RS256":
        return "Invalid JWT: the algorithm is not RS256."
    if claims.get("iss") != CLIENT_EMAIL or claims.get("aud") != GOOGLE_TOKEN_ENDPOINT:
        return "Invalid JWT: the issuer or audience is wrong."
    if not isinstance(claims.get("exp"), int) or not claims["exp"] > now - 60:
        return "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe."
    if "https://www.googleapis.com/auth/cloud-platform" not in str(claims.get("scope", "")).split():
        return "Invalid JWT: the cloud-platform scope is missing."
    return ""


def _unpad(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
