"""Who may use the served app: every request carries the token (in the address once, then a cookie stands for it),
the websocket carries the token itself and comes from the app's own page (its Origin), and a loopback server answers
only to loopback names (a page whose name was rebound to 127.0.0.1 is another origin). Anything else gets 403.

Browsers send a cookie to every port of its host, so any other server on 127.0.0.1 (another user's, on a shared
machine) receives it: the cookie is a secret of its own that opens the page and its static files only, and the page
keeps the token in the tab's sessionStorage (which is per port), away from every address, for its websocket."""

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
        self.page_secret = secrets.token_urlsafe(32)
        """The cookie's value: it opens the page and static files, not the app."""
        self.port = port
        """The port listened on (known once listening: the cookie's name carries it)."""
        self.loopback = loopback

    @property
    def cookie(self) -> str:
        return f"agentui_serve_{self.port}"  # (cookies ignore ports: two servers on one host keep their own)

    def holds_token(self, given: str | None, secret: str | None = None) -> bool:
        """Whether `given` is the token (or `secret`), compared in constant time."""
        if not given:
            return False
        return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), (secret or self.token).encode())

    def host_allowed(self, host: str | None) -> bool:
        """A loopback server answers to loopback names only (against DNS rebinding); any Host otherwise."""
        if not host:
            return False
        if not self.loopback:
            return True
        parts = urlsplit(f"http://{host}")
        if parts.netloc != host or "@" in host:  # (a Host with a path, query or user in it names no server)
            return False
        return is_loopback(parts.hostname or "")

    def origin_allowed(self, request: web.Request) -> bool:
        """Whether the websocket was opened by the app's own page: its Origin is this server as the browser named it."""
        origin = request.headers.get("Origin")
        return origin is not None and origin.rstrip("/") == f"{request.scheme}://{request.host}"

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        in_address = self.holds_token(request.query.get("token"))
        if not self.host_allowed(request.headers.get("Host")):
            return forbidden()
        if request.path == "/ws":  # (the token itself: a cookie another port's server received opens no app)
            return await handler(request) if in_address and self.origin_allowed(request) else forbidden()
        if not (in_address or self.holds_token(request.cookies.get(self.cookie), self.page_secret)):
            return forbidden()
        if in_address and request.method == "GET":
            response: web.StreamResponse = _without_token(request)
        else:
            response = await handler(request)
        if not response.prepared:
            response.headers.update(HEADERS)
            response.set_cookie(self.cookie, self.page_secret, httponly=True, samesite="Strict", path="/")
        return response


def forbidden() -> web.Response:
    return web.Response(status=403, text="403: Forbidden", headers=HEADERS)


def _without_token(request: web.Request) -> web.Response:
    """The same address with its token moved to the fragment, which no request or Referer carries; the page moves
    it to the tab's sessionStorage and out of the address bar (history, screenshots)."""
    query = {key: value for key, value in request.query.items() if key != "token"}
    address = f"{request.rel_url.with_query(query)}#token={request.query['token']}"
    return web.Response(status=303, headers={"Location": address})
