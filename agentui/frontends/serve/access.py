"""Who may use the served app: every request carries the token (in the address once, then in a cookie), the
websocket comes from the app's own page (its Origin), and a loopback server answers only to loopback names (a page
whose name was rebound to 127.0.0.1 is another origin). Anything else gets 403 and nothing more."""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from aiohttp import web

from agentui.frontends.serve.options import is_loopback

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
HEADERS = {"X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}
"""No other page may frame it (a click through it), and the address with its token is never sent on."""


class Access:
    def __init__(self, port: int, loopback: bool, token: str | None = None) -> None:
        self.token = token or secrets.token_urlsafe(32)
        self.port = port
        """The port listened on (known once listening: the cookie's name carries it)."""
        self.loopback = loopback

    @property
    def cookie(self) -> str:
        return f"agentui_serve_{self.port}"  # (cookies ignore ports: two servers on one host keep their own)

    def holds_token(self, given: str | None) -> bool:
        """Whether `given` is the token, compared in constant time."""
        if not given:
            return False
        return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), self.token.encode())

    def host_allowed(self, host: str | None) -> bool:
        """A loopback server answers to loopback names only (against DNS rebinding); any Host otherwise."""
        if not host:
            return False
        if not self.loopback:
            return True
        name = urlsplit(f"http://{host}").hostname or ""
        return is_loopback(name)

    def origin_allowed(self, request: web.Request) -> bool:
        """Whether the websocket was opened by the app's own page: its Origin is this server as the browser named it."""
        origin = request.headers.get("Origin")
        return origin is not None and origin.rstrip("/") == f"{request.scheme}://{request.host}"

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        in_address = self.holds_token(request.query.get("token"))
        if not self.host_allowed(request.headers.get("Host")):
            return forbidden()
        if not (in_address or self.holds_token(request.cookies.get(self.cookie))):
            return forbidden()
        if request.path == "/ws":
            return await handler(request) if self.origin_allowed(request) else forbidden()
        if in_address and request.method == "GET":
            response: web.StreamResponse = _without_token(request)
        else:
            response = await handler(request)
        if not response.prepared:
            response.headers.update(HEADERS)
            response.set_cookie(self.cookie, self.token, httponly=True, samesite="Strict", path="/")
        return response


def forbidden() -> web.Response:
    return web.Response(status=403, text="403: Forbidden", headers=HEADERS)


def _without_token(request: web.Request) -> web.Response:
    """The same address without its token (which then lives in the cookie only, out of history and screenshots)."""
    query = {key: value for key, value in request.query.items() if key != "token"}
    return web.Response(status=303, headers={"Location": str(request.rel_url.with_query(query))})
