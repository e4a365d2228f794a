"""A real web server on 127.0.0.1 for WebFetch's tests: HTML and text pages, redirects, errors, a page too large
(with and without a Content-Length), binary data, and a page that never answers."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ARTICLE = """<!doctype html>
<html><head><title>Release notes</title><style>body { color: red }</style>
<script>document.write("tracking")</script></head>
<body>
<nav><a href="/">Home</a></nav>
<h1>Release 2.0</h1>
<p>The <strong>frobnicate</strong> flag is now on by default. See <a href="https://example.com/docs">the docs</a>.</p>
<ul><li>Faster start-up</li><li>Fewer bugs</li></ul>
<pre><code>pip install widget==2.0</code></pre>
</body></html>
"""
BIG = 11 * 1024 * 1024


class WebServer:
    def __init__(self) -> None:
        self.paths: list[str] = []
        self.release = threading.Event()
        """Set to let the page that never answers end (when the test is over)."""
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def close(self) -> None:
        self.release.set()
        self._httpd.shutdown()
        self._httpd.server_close()


def _handler(server: WebServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            server.paths.append(self.path)
            port = server.port
            routes = {
                "/article.html": (200, "text/html; charset=utf-8", ARTICLE.encode()),
                "/notes.txt": (200, "text/plain", b"plain notes\nline two\n"),
                "/blob": (200, "application/octet-stream", bytes(range(256)) * 4),
                "/empty.html": (200, "text/html", b"<html><body></body></html>"),
            }
            if self.path in routes:
                status, kind, body = routes[self.path]
                self._send(status, kind, body)
            elif self.path.startswith("/pdf/"):
                from tests.support.pdfs import PDFS

                self._send(200, "application/pdf", PDFS[self.path.removeprefix("/pdf/")]())
            elif self.path == "/moved":
                self._redirect("/article.html")
            elif self.path == "/elsewhere":
                self._redirect(f"http://localhost:{port}/article.html")
            elif self.path == "/loop":
                self._redirect("/loop")
            elif self.path == "/big-declared":
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(BIG))
                self.end_headers()
                self.wfile.write(b"x" * 1024)  # (the client stops at the header; the rest never needs sending)
            elif self.path == "/big-streamed":
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Connection", "close")
                self.end_headers()
                chunk = b"y" * 65536
                try:
                    for _ in range(BIG // len(chunk) + 1):
                        self.wfile.write(chunk)
                except OSError:
                    pass  # the client stopped reading at its limit
                self.close_connection = True
            elif self.path == "/never":
                server.release.wait(120)
            else:
                self._send(404, "text/html", b"<h1>Not found</h1>")

        def _send(self, status: int, kind: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _redirect(self, location: str) -> None:
            self.send_response(302)
            self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.end_headers()

    return Handler
