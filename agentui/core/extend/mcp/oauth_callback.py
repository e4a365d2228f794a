"""The loopback listener an OAuth sign-in's browser is sent back to: `http://localhost:PORT/callback` served on
127.0.0.1 only, one redirect taken (its code and state, or the authorization server's error), a page saying how it
went, as Claude Code's listener does."""

from __future__ import annotations

import asyncio
import contextlib
import html
from urllib.parse import parse_qs, urlsplit

from agentui.core.extend.mcp.oauth_errors import AuthenticationFailed

_PAGE = (
    "<!doctype html><html><head><meta charset='utf-8'><title>{heading}</title></head>"
    "<body><h1>{heading}</h1><p>{message}</p></body></html>"
)


class CallbackListener:
    def __init__(self, server: asyncio.Server) -> None:
        self._server = server
        self._answer: asyncio.Future[tuple[str, str | None]] = asyncio.get_running_loop().create_future()
        self.port: int = server.sockets[0].getsockname()[1]

    @classmethod
    async def open(cls, port: int = 0) -> CallbackListener:
        listener: CallbackListener | None = None

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            assert listener is not None
            await listener._serve(reader, writer)

        try:
            server = await asyncio.start_server(serve, "127.0.0.1", port)
        except OSError as exc:
            raise AuthenticationFailed(
                f"the OAuth callback port {port} is already in use ({exc.strerror or exc}); "
                "set MCP_OAUTH_CALLBACK_PORT to a free one"
            ) from None
        listener = cls(server)
        return listener

    @property
    def redirect_uri(self) -> str:
        return f"http://localhost:{self.port}/callback"

    async def wait(self, seconds: float) -> tuple[str, str | None]:
        """The code and state the browser brought back; AuthenticationFailed for an error or no answer in time."""
        try:
            return await asyncio.wait_for(asyncio.shield(self._answer), seconds)
        except TimeoutError:
            raise AuthenticationFailed(f"no answer came from the browser within {seconds:g} s") from None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = (await asyncio.wait_for(reader.readline(), 30)).decode("latin-1")
            while (await asyncio.wait_for(reader.readline(), 30)).strip():  # (the headers: not needed)
                pass
        except (TimeoutError, ConnectionError, asyncio.IncompleteReadError):
            writer.close()
            return
        parts = line.split()
        target = urlsplit(parts[1] if len(parts) > 1 else "/")
        query = {name: values[0] for name, values in parse_qs(target.query).items()}
        if target.path != "/callback" or not ({"code", "error"} & query.keys()):
            status, heading, message = "404 Not Found", "Not found", "This is agentui's MCP OAuth callback listener."
        elif error := query.get("error"):
            status, heading = "200 OK", "Authentication failed"
            message = "Close this tab and try again from agentui."
            described = query.get("error_description")
            said = f"OAuth error: {error}" + (f" - {described}" if described else "")
            self._settle(exception=AuthenticationFailed(said))
        else:
            status, heading = "200 OK", "Authentication successful"
            message = "You can close this tab and return to agentui."
            self._settle(answer=(query["code"], query.get("state")))
        body = _PAGE.format(heading=html.escape(heading), message=html.escape(message)).encode()
        head = f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {len(body)}\r\n"
        writer.write(head.encode() + b"Connection: close\r\n\r\n" + body)
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        writer.close()

    def _settle(self, answer: tuple[str, str | None] | None = None, exception: Exception | None = None) -> None:
        if self._answer.done():
            return
        if exception is not None:
            self._answer.set_exception(exception)
        elif answer is not None:
            self._answer.set_result(answer)

    async def close(self) -> None:
        self._server.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._server.wait_closed(), 5)
        if not self._answer.done():
            self._answer.cancel()
        elif not self._answer.cancelled():
            self._answer.exception()  # (retrieved: no "never retrieved" warning for an answer not waited for)
