"""OAuth 2.1 for HTTP and SSE MCP servers, through the SDK's OAuthClientProvider: discovery (protected-resource
metadata, then the authorization server's), dynamic client registration and PKCE are the SDK's; agentui adds the
storage (oauth_store), the loopback redirect listener, the browser, and the rule that connecting never starts a
sign-in by itself: a server that wants one is "needs-auth" until the person authenticates from /mcp, as in Claude
Code."""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from agentui.core.extend.mcp.config import ServerConfig
from agentui.core.extend.mcp.oauth_errors import AuthenticationFailed, NeedsAuthentication
from agentui.core.extend.mcp.oauth_store import REFRESH_MARGIN_SECONDS, CredentialStore

if TYPE_CHECKING:
    import httpx
    from mcp.shared.auth import OAuthMetadata

    from agentui.core.extend.mcp.oauth_callback import CallbackListener

AUTH_SECONDS = 300.0
"""How long the browser sign-in may take (Claude Code's limit)."""
BROWSER_SECONDS = 5.0
"""How long an opener may take to say it failed; one still running then is taken to be the browser itself."""
FALLBACK_PORT = 3118
"""Claude Code's port when no random one in 49152-65535 is free."""

ShowUrl = Callable[[str, bool], Awaitable[None] | None]
"""Told the authorization URL, and whether a browser was opened for it (else the person must open it)."""


def uses_oauth(config: ServerConfig) -> bool:
    """HTTP and SSE servers, unless their configuration brings its own Authorization header (Claude Code's rule)."""
    return config.type in ("http", "sse") and not any(name.lower() == "authorization" for name in config.headers)


def provider(
    config: ServerConfig,
    env: Mapping[str, str],
    sign_in: tuple[str, Callable[[str], Awaitable[None]], Callable[[], Awaitable[tuple[str, str | None]]]]
    | None = None,
) -> httpx.Auth:
    """The httpx auth for `config`'s requests: stored tokens, refreshed when (nearly) expired. Without `sign_in`
    (redirect URI, redirect handler, callback handler) a 401 raises NeedsAuthentication instead of a sign-in."""
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata

    store = CredentialStore(config, env, sign_in[0] if sign_in else "")
    entry = store.entry() or {}
    redirect = sign_in[0] if sign_in else entry.get("redirectUri") or f"http://localhost:{FALLBACK_PORT}/callback"

    class Provider(OAuthClientProvider):
        async def _initialize(self) -> None:
            await super()._initialize()
            if sign_in is not None:  # (a sign-in asked for is made, even over tokens that still work)
                self.context.current_tokens = None
            # The SDK does not know when a stored token expires, nor where a separate server refreshes it.
            left = store.seconds_left()
            if left is not None:
                self.context.token_expiry_time = time.time() + left - REFRESH_MARGIN_SECONDS
            server_url, metadata = store.discovery()
            self.context.auth_server_url = self.context.auth_server_url or server_url
            if (
                metadata is None
                and server_url
                and not self.context.is_token_valid()
                and self.context.can_refresh_token()
            ):
                metadata = await _server_metadata(server_url, config.url)  # (Claude Code keeps only the server's URL)
            self.context.oauth_metadata = self.context.oauth_metadata or metadata

        async def _handle_token_response(self, response: httpx.Response) -> None:
            store.save_discovery(self.context.auth_server_url, self.context.oauth_metadata)
            await super()._handle_token_response(response)

        async def _auth_flow(self, request: httpx.Request) -> AsyncGenerator[httpx.Request, httpx.Response]:
            flow = super()._auth_flow(request)
            outgoing = await flow.__anext__()
            while True:
                response = yield outgoing
                if sign_in is None and outgoing is request and response.status_code == 401:
                    await flow.aclose()  # (not registering a client nor opening a browser: only /mcp does that)
                    raise NeedsAuthentication(config.name)
                try:
                    outgoing = await flow.asend(response)
                except StopAsyncIteration:
                    return

    metadata = OAuthClientMetadata(
        client_name=f"agentui ({config.name})",
        redirect_uris=[redirect],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    handlers = (sign_in[1], sign_in[2]) if sign_in else (None, None)
    return Provider(config.url, metadata, store, handlers[0], handlers[1], timeout=AUTH_SECONDS)


async def _server_metadata(server_url: str, resource: str) -> OAuthMetadata | None:
    """The authorization server's metadata (where its token endpoint is), for a refresh before any discovery."""
    import httpx
    from mcp.client.auth.utils import (
        build_oauth_authorization_server_metadata_discovery_urls,
        handle_auth_metadata_response,
    )

    async with httpx.AsyncClient(timeout=30) as client:
        for url in build_oauth_authorization_server_metadata_discovery_urls(server_url, resource):
            try:
                found, metadata = await handle_auth_metadata_response(await client.get(url))
            except httpx.HTTPError:
                return None
            if metadata is not None or not found:
                return metadata
    return None


async def authenticate(config: ServerConfig, env: Mapping[str, str], show: ShowUrl, browse: bool = True) -> None:
    """Sign in to `config`'s server: a loopback listener for the redirect, the browser opened on the authorization
    URL unless not `browse` (`show` is told it, and whether a browser opened), the tokens stored. Raises
    AuthenticationFailed."""
    import httpx
    from mcp.client.auth import OAuthFlowError, OAuthTokenError

    try:
        listener = await _listen(env, (CredentialStore(config, env).entry() or {}).get("redirectUri"))
    except AuthenticationFailed as exc:
        raise AuthenticationFailed(f"Authenticating with {config.name} failed: {exc}.") from None

    async def redirect(url: str) -> None:
        opened = await open_browser(url, env) if browse else False
        told = show(url, opened)
        if told is not None:
            await told

    async def callback() -> tuple[str, str | None]:
        return await listener.wait(AUTH_SECONDS)

    auth = provider(config, env, (listener.redirect_uri, redirect, callback))
    try:
        async with httpx.AsyncClient(auth=auth, timeout=30, follow_redirects=False) as client:
            await _knock(client, config)
    except (AuthenticationFailed, OAuthFlowError, OAuthTokenError, httpx.HTTPError, ValueError) as exc:
        said = (str(exc).strip() or type(exc).__name__).rstrip(".")
        raise AuthenticationFailed(f"Authenticating with {config.name} failed: {said}.") from None
    finally:
        await listener.close()
    if not (await CredentialStore(config, env).get_tokens()):
        raise AuthenticationFailed(
            f"{config.name} did not ask for authentication, so there is nothing to sign in to; reconnect it instead."
        )


async def _knock(client: httpx.AsyncClient, config: ServerConfig) -> None:
    """A first request the server must authorise (an MCP initialize, or opening the SSE stream): its 401 starts the
    SDK's flow, and the flow's end retries it with the new token."""
    if config.type == "sse":
        async with client.stream("GET", config.url, headers={"Accept": "text/event-stream", **config.headers}):
            return
    hello = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "agentui", "version": "0"},
        },
    }
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18", **config.headers}
    async with client.stream("POST", config.url, json=hello, headers=headers):
        return


async def _listen(env: Mapping[str, str], registered_for: str | None) -> CallbackListener:
    """The redirect's listener on MCP_OAUTH_CALLBACK_PORT (AuthenticationFailed if it is taken), else on the port
    the client was registered with, so its registration still holds, else (none, or taken) on any free port: the
    client is then registered again for it, as Claude Code does."""
    from agentui.core.extend.mcp.oauth_callback import CallbackListener

    with contextlib.suppress(ValueError):
        if env.get("MCP_OAUTH_CALLBACK_PORT"):
            return await CallbackListener.open(int(env["MCP_OAUTH_CALLBACK_PORT"]))
    with contextlib.suppress(ValueError, AuthenticationFailed):
        if registered_for and (port := urlsplit(registered_for).port):
            return await CallbackListener.open(port)
    return await CallbackListener.open(0)


async def open_browser(url: str, env: Mapping[str, str]) -> bool:
    """As Claude Code does: `$BROWSER URL`, else `xdg-open URL` where there is a display; True if it said it did."""
    command = shlex.split(env.get("BROWSER", ""))
    if not command:
        if not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
            return False
        command = ["xdg-open"]
    try:
        process = await asyncio.create_subprocess_exec(
            *command,
            url,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            env=dict(env),
            start_new_session=True,  # (a browser outlives the sign-in; the terminal's signals are not its)
        )
    except OSError:
        return False
    try:
        return await asyncio.wait_for(process.wait(), BROWSER_SECONDS) == 0
    except TimeoutError:  # (still running: a browser that stays until it is closed, showing the page)
        return True


def describe_failure(exc: BaseException) -> str:
    """Why connecting failed, when the cause is OAuth's (for McpServer's sentence), else ''."""
    found = _find(exc, NeedsAuthentication)
    return "needs authentication: run /mcp and choose Authenticate" if found else ""


def _find(exc: BaseException, kind: type[BaseException]) -> BaseException | None:
    if isinstance(exc, kind):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            if (found := _find(inner, kind)) is not None:
                return found
    for linked in (exc.__cause__, exc.__context__):
        if linked is not None and linked is not exc and (found := _find(linked, kind)) is not None:
            return found
    return None
