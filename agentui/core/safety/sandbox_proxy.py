"""The sandbox's only way out to the network: an HTTP proxy agentui runs on a Unix socket, which lets through CONNECT
tunnels and plain HTTP requests to the hosts `sandbox.network.allowedDomains` names and answers 403 to the rest.
Inside the sandbox, `sandbox_bridge.py` forwards 127.0.0.1:3128 to that socket and HTTP(S)_PROXY point there."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from pathlib import Path

log = logging.getLogger(__name__)

HEADER_LIMIT = 64 * 1024
CONNECT_TIMEOUT = 15.0


def host_allowed(host: str, allowed: Sequence[str]) -> bool:
    """`example.com` allows that host; `*.example.com` its subdomains (not itself), as in Claude Code's settings."""
    host = host.lower().rstrip(".").strip("[]")
    for pattern in allowed:
        pattern = pattern.lower().rstrip(".")
        if pattern.startswith("*."):
            if host.endswith(pattern[1:]) and host != pattern[2:]:
                return True
        elif host == pattern:
            return True
    return False


class DomainProxy:
    def __init__(self, allowed: Sequence[str], socket_path: Path) -> None:
        self.allowed = tuple(allowed)
        self.socket_path = socket_path
        self.refused: list[str] = []
        """Hosts a sandboxed command tried to reach and was refused, for the person to see."""
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        if self._server is None:
            self._server = await asyncio.start_unix_server(self._serve, path=str(self.socket_path))

    async def aclose(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        if len(head) > HEADER_LIMIT:
            await _answer(writer, 431, "request headers too large")
            return
        request_line, _, rest = head.partition(b"\r\n")
        parts = request_line.decode("latin-1").split()
        if len(parts) != 3:
            await _answer(writer, 400, "not an HTTP proxy request")
            return
        method, target, version = parts
        if method == "CONNECT":
            host, _, port_text = target.rpartition(":")
            forward = b""
        elif target.startswith("http://"):
            authority, _, path = target[7:].partition("/")
            host, _, port_text = authority.rpartition(":") if ":" in authority else (authority, "", "80")
            forward = f"{method} /{path} {version}\r\n".encode("latin-1") + _without_proxy_headers(rest)
        else:
            await _answer(writer, 400, "only CONNECT and absolute http:// requests go through this proxy")
            return
        try:
            port = int(port_text or "443")
        except ValueError:
            await _answer(writer, 400, "bad port")
            return
        if not host_allowed(host, self.allowed):
            self.refused.append(host)
            await _answer(writer, 403, f"{host} is not in the sandbox's network.allowedDomains")
            return
        try:
            upstream_reader, upstream_writer = await asyncio.wait_for(
                asyncio.open_connection(host.strip("[]"), port), CONNECT_TIMEOUT
            )
        except (OSError, TimeoutError) as exc:
            await _answer(writer, 502, f"could not connect to {host}:{port} ({exc})")
            return
        if method == "CONNECT":
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            upstream_writer.write(forward)
        await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))


def _without_proxy_headers(headers: bytes) -> bytes:
    lines = [line for line in headers.split(b"\r\n") if not line.lower().startswith((b"proxy-", b"connection:"))]
    return b"\r\n".join([*[line for line in lines if line], b"Connection: close", b"", b""])


async def _answer(writer: asyncio.StreamWriter, status: int, reason: str) -> None:
    body = f"agentui sandbox: {reason}\n".encode()
    writer.write(
        f"HTTP/1.1 {status} {reason[:60]}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode(
            "latin-1", "replace"
        )
        + body
    )
    with contextlib.suppress(ConnectionError):
        await writer.drain()
    writer.close()


async def _pipe(source: asyncio.StreamReader, target: asyncio.StreamWriter) -> None:
    try:
        while data := await source.read(65536):
            target.write(data)
            await target.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        with contextlib.suppress(Exception):
            target.close()
