"""A real HTTP server on 127.0.0.1 that replays queued replies (recorded SSE streams) and records each request.

Bodies go out with chunked transfer encoding, one chunk per SSE event, so a reply can be cut mid-body (the client
sees a real protocol error), slowed down, or held at a gate until the test releases it.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    chunks: list[bytes] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "text/event-stream"
    delay: float = 0.0
    """Seconds to wait before each chunk after the first."""
    cut_after: int | None = None
    """Drop the connection after this many chunks, without ending the chunked body."""
    gate: threading.Event | None = None
    """Wait for this event after `gate_after` chunks: lets a test see output before the server finishes."""
    gate_after: int = 1

    @classmethod
    def error(cls, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> Reply:
        return cls(
            status=status, chunks=[json.dumps(body).encode()], headers=headers or {}, content_type="application/json"
        )


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class LoopbackServer:
    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.responder: Callable[[RecordedRequest], Reply] | None = None
        """Answers requests when no reply is queued: a model the test plays, for conversations too long to queue."""
        self.disconnects = 0
        """Replies the client stopped reading before they were complete (a cancelled stream)."""
        self._replies: list[Reply] = []
        self._lock = threading.Lock()
        self._httpd = _QuietServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self._thread.start()

    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self._replies.extend(replies)

    def _next(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self._replies:
                return self._replies.pop(0)
            if self.responder is not None:
                return self.responder(request)
        return Reply.error(500, {"type": "error", "error": {"type": "test_error", "message": "no reply queued"}})

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hangs up mid-reply is what several tests do on purpose


def _handler_for(server: LoopbackServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {key.lower(): value for key, value in self.headers.items()}
            reply = server._next(RecordedRequest(self.command, self.path, headers, body))
            try:
                self._send(reply)
            except (BrokenPipeError, ConnectionResetError):
                server.disconnects += 1
                self.close_connection = True

        do_GET = do_POST

        def _send(self, reply: Reply) -> None:
            self.send_response(reply.status)
            self.send_header("content-type", reply.content_type)
            for key, value in reply.headers.items():
                self.send_header(key, value)
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            for number, chunk in enumerate(reply.chunks):
                if number and reply.delay:
                    threading.Event().wait(reply.delay)
                if reply.cut_after is not None and number >= reply.cut_after:
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                    return
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.flush()
                if number + 1 == reply.gate_after and reply.gate is not None:
                    reply.gate.wait(30)
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

    return Handler
