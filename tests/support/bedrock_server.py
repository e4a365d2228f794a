"""A loopback Amazon Bedrock runtime: InvokeModelWithResponseStream byte for byte, written here independently of
botocore. Replies are AWS event-stream frames (prelude with lengths and CRC32, typed headers, payload, message CRC32)
and every request's SigV4 signature is recomputed from a known secret key by AWS's documented algorithm (hashlib and
hmac), or its Bedrock API key (bearer token) checked; a request that fails either gets Bedrock's own 403."""

from __future__ import annotations

import base64
import binascii
import datetime
import hashlib
import hmac
import json
import re
import struct
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream

ACCESS_KEY = "AKIDLOOPBACKEXAMPLE"
SECRET_KEY = "loopback/secret/key/EXAMPLEKEY+0123456789"
EVENT_STREAM = "application/vnd.amazon.eventstream"


# The event-stream encoding (AWS's "Event Stream Encoding" document)


def frame(headers: dict[str, str], payload: bytes) -> bytes:
    """One event-stream message: total length, headers length, prelude CRC, headers (all strings, type 7), payload,
    and the CRC of everything before it."""
    encoded = b"".join(
        struct.pack(">B", len(name)) + name.encode() + struct.pack(">BH", 7, len(value.encode())) + value.encode()
        for name, value in headers.items()
    )
    total = 12 + len(encoded) + len(payload) + 4
    prelude = struct.pack(">II", total, len(encoded))
    prelude += struct.pack(">I", binascii.crc32(prelude))
    body = prelude + encoded + payload
    return body + struct.pack(">I", binascii.crc32(body))


def chunk_frame(event: dict[str, Any]) -> bytes:
    """A `chunk` event carrying one Messages API stream event, base64 in `bytes` (with Bedrock's `p` padding)."""
    raw = json.dumps(event).encode()
    payload = json.dumps({"bytes": base64.b64encode(raw).decode(), "p": "abcdefghij"[: len(raw) % 10]})
    return frame(
        {":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"}, payload.encode()
    )


def exception_frame(kind: str, message: str) -> bytes:
    """An exception frame (`throttlingException`, `modelStreamErrorException`, ...), as Bedrock ends a failed stream."""
    payload = json.dumps({"message": message}).encode()
    return frame({":exception-type": kind, ":content-type": "application/json", ":message-type": "exception"}, payload)


def messages_events(blocks: list[dict[str, Any]], **options: Any) -> list[dict[str, Any]]:
    """The Messages API stream events for `blocks` (see sse.anthropic_stream), without the pings Bedrock drops, and
    with Bedrock's invocation metrics on message_stop."""
    events = []
    for chunk in anthropic_stream(blocks, **options):
        data = next(line[6:] for line in chunk.decode().splitlines() if line.startswith("data: "))
        event = json.loads(data)
        if event["type"] == "ping":
            continue
        if event["type"] == "message_stop":
            event["amazon-bedrock-invocationMetrics"] = {
                "inputTokenCount": 12, "outputTokenCount": 34, "invocationLatency": 120, "firstByteLatency": 40,
            }  # fmt: skip
        events.append(event)
    return events


def stream_reply(blocks: list[dict[str, Any]], **options: Any) -> Reply:
    """A 200 reply streaming `blocks`, one frame per HTTP chunk."""
    return Reply(chunks=[chunk_frame(event) for event in messages_events(blocks, **options)], content_type=EVENT_STREAM)


def error_reply(status: int, kind: str, message: str) -> Reply:
    """An HTTP error as Bedrock sends it: a JSON `message` and the error's type in `x-amzn-ErrorType`."""
    return Reply(
        status=status,
        chunks=[json.dumps({"message": message}).encode()],
        headers={"x-amzn-ErrorType": f"{kind}:http://internal.amazon.com/coral/com.amazon.bedrock/"},
        content_type="application/json",
    )


# Signature Version 4, checked as the service checks it


def _uri_encode(text: str, keep: str = "") -> str:
    """AWS's UriEncode: every byte but A-Z a-z 0-9 - _ . ~ (and `keep`) as %XX in upper case."""
    return urllib.parse.quote(text, safe="-_.~" + keep)


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


@dataclass
class SigV4Check:
    """What a signed request must satisfy: the key pair, and the session token when the credentials carry one."""

    access_key: str = ACCESS_KEY
    secret_key: str = SECRET_KEY
    session_token: str | None = None
    region: str = "us-east-1"
    service: str = "bedrock"

    def problem(self, request: RecordedRequest) -> str | None:
        """Why the request's signature is not valid (Bedrock's own words where it has them), or None."""
        authorization = request.headers.get("authorization", "")
        found = re.fullmatch(
            r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, ?"
            r"SignedHeaders=([a-z0-9;\-]+), ?Signature=([0-9a-f]{64})",
            authorization,
        )
        if found is None:
            return "Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters."
        key, day, region, service, signed, signature = found.groups()
        if key != self.access_key:
            return "The security token included in the request is invalid."
        if (region, service) != (self.region, self.service):
            return f"Credential should be scoped to a valid region and service ({region}/{service})."
        if request.headers.get("x-amz-security-token") != self.session_token:
            return "The security token included in the request is invalid."
        stamp = request.headers.get("x-amz-date", "")
        try:
            when = datetime.datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.UTC)
        except ValueError:
            return "Missing or malformed X-Amz-Date."
        if abs((datetime.datetime.now(datetime.UTC) - when).total_seconds()) > 300 or stamp[:8] != day:
            return "Signature expired or not yet current."
        names = signed.split(";")
        if "host" not in names or any(name not in request.headers for name in names):
            return "The request signature names headers it does not have."
        expected = self.signature(request, names, day, stamp)
        if not hmac.compare_digest(expected, signature):
            return (
                "The request signature we calculated does not match the signature you provided. Check your AWS "
                "Secret Access Key and signing method."
            )
        return None

    def signature(self, request: RecordedRequest, names: list[str], day: str, stamp: str) -> str:
        path, _, query = request.path.partition("?")
        # The path is encoded once by the client; its canonical form is that text encoded again.
        canonical_uri = _uri_encode(path, keep="/")
        pairs = sorted(
            (_uri_encode(k), _uri_encode(v))
            for k, v in urllib.parse.parse_qsl(query, keep_blank_values=True)
        )  # fmt: skip
        canonical_query = "&".join(f"{k}={v}" for k, v in pairs)
        canonical_headers = "".join(
            f"{name}:{' '.join(request.headers[name].split())}\n" for name in names
        )  # fmt: skip
        payload_hash = hashlib.sha256(request.body).hexdigest()
        canonical = "\n".join(
            [request.method, canonical_uri, canonical_query, canonical_headers, ";".join(names), payload_hash]
        )
        scope = f"{day}/{self.region}/{self.service}/aws4_request"
        to_sign = "\n".join(["AWS4-HMAC-SHA256", stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()])
        key = ("AWS4" + self.secret_key).encode()
        for part in (day, self.region, self.service, "aws4_request"):
            key = _hmac(key, part)
        return hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()


@dataclass
class Invocation:
    """One InvokeModelWithResponseStream call the server accepted."""

    model: str
    """The model id of the path, decoded."""
    body: dict[str, Any]
    request: RecordedRequest


_MESSAGE = {
    "id": "msg_probe", "type": "message", "role": "assistant", "model": "claude",
    "content": [{"type": "text", "text": "."}], "stop_reason": "max_tokens", "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
}  # fmt: skip
MODEL_PATH = re.compile(r"^/model/([^/]+)/(invoke-with-response-stream|invoke)$")


@dataclass
class BedrockServer:
    """Bedrock's runtime on loopback. Queue replies with `enqueue` (or set `responder`); requests are checked first:
    the signature (or `bearer` token, or none when `check_auth` is False), then the path."""

    sigv4: SigV4Check = field(default_factory=SigV4Check)
    bearer: str | None = None
    check_auth: bool = True
    responder: Callable[[Invocation], Reply] | None = None
    invocations: list[Invocation] = field(default_factory=list)
    probes: list[Invocation] = field(default_factory=list)
    """InvokeModel calls (not streamed): Claude Code's checks of which models the account has."""

    def __post_init__(self) -> None:
        self._queue: list[Reply] = []
        self.http = LoopbackServer()
        self.http.responder = self._answer
        self.url = self.http.url

    def enqueue(self, *replies: Reply) -> None:
        self._queue.extend(replies)

    @property
    def requests(self) -> list[RecordedRequest]:
        return self.http.requests

    def close(self) -> None:
        self.http.close()

    def _answer(self, request: RecordedRequest) -> Reply:
        if self.check_auth and (problem := self._auth_problem(request)):
            kind = "UnrecognizedClientException" if "token" in problem else "InvalidSignatureException"
            return error_reply(403, kind, problem)
        found = MODEL_PATH.match(request.path.partition("?")[0])
        if request.method != "POST" or found is None:
            return error_reply(404, "UnknownOperationException", f"No operation at {request.method} {request.path}")
        invocation = Invocation(urllib.parse.unquote(found[1]), json.loads(request.body or b"{}"), request)
        if found[2] == "invoke":  # (InvokeModel: Claude Code probes which models answer with it)
            self.probes.append(invocation)
            return Reply(chunks=[json.dumps(_MESSAGE).encode()], content_type="application/json")
        self.invocations.append(invocation)
        if self._queue:
            return self._queue.pop(0)
        if self.responder is not None:
            return self.responder(invocation)
        return stream_reply([{"type": "text", "text": "ok"}])

    def _auth_problem(self, request: RecordedRequest) -> str | None:
        if self.bearer is not None:
            if request.headers.get("authorization") == f"Bearer {self.bearer}":
                return None
            return "The security token included in the request is invalid."
        return self.sigv4.problem(request)
