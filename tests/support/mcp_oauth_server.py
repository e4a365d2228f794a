"""An MCP server behind OAuth for the tests, both halves from the official SDK on 127.0.0.1: an authorisation server
(metadata, dynamic client registration, PKCE, refresh; `mcp.server.auth`) on one port and a FastMCP server on
another, which takes only the tokens the first issued. Usage: `mcp_oauth_server.py DIR [http|sse] [refuse]`;
it prints `{"issuer": ..., "url": ...}` on its first line and appends each grant it makes to DIR/grants.jsonl.
`refuse`: the authorisation page answers `access_denied`. The access tokens' lifetime is DIR/lifetime (seconds, 3600
if absent), read at each grant; once DIR/forget exists, every access token is refused."""

from __future__ import annotations

import asyncio
import json
import secrets
import socket
import sys
import time
from pathlib import Path

import uvicorn
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.routes import create_auth_routes
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.fastmcp import FastMCP
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyHttpUrl
from starlette.applications import Starlette

STATE = Path(sys.argv[1])
TRANSPORT = sys.argv[2] if len(sys.argv) > 2 else "http"
REFUSE = "refuse" in sys.argv[3:]


def listening() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    return sock


class Provider:
    """Everything in memory; the person's consent is given at once (or refused, with `refuse`)."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.tokens: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    def note(self, **grant: object) -> None:
        with open(STATE / "grants.jsonl", "a") as log:
            log.write(json.dumps(grant) + "\n")

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id
        self.clients[client_info.client_id] = client_info
        self.note(
            grant="registration",
            client_name=client_info.client_name,
            redirect_uris=[str(uri) for uri in client_info.redirect_uris or []],
        )

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        if REFUSE:
            raise AuthorizeError("access_denied", "The person declined to share their tiny tools")
        code = AuthorizationCode(
            code=secrets.token_urlsafe(16),
            scopes=params.scopes or ["tiny"],
            expires_at=time.time() + 300,
            client_id=client.client_id or "",
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        self.codes[code.code] = code
        return construct_redirect_uri(str(params.redirect_uri), code=code.code, state=params.state)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        return self.codes.get(code)

    def _issue(self, client_id: str, scopes: list[str], grant: str) -> OAuthToken:
        lifetime = int((STATE / "lifetime").read_text()) if (STATE / "lifetime").exists() else 3600
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        self.tokens[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=int(time.time()) + lifetime
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes)
        self.note(grant=grant, access_token=access)
        return OAuthToken(access_token=access, expires_in=lifetime, refresh_token=refresh, scope=" ".join(scopes))

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        del self.codes[authorization_code.code]
        return self._issue(client.client_id or "", authorization_code.scopes, "authorization_code")

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        del self.refresh[refresh_token.token]
        return self._issue(client.client_id or "", scopes or refresh_token.scopes, "refresh_token")

    async def load_access_token(self, token: str) -> AccessToken | None:
        if (STATE / "forget").exists():  # (as a server that lost its tokens: every one is refused)
            return None
        found = self.tokens.get(token)
        return found if found is not None and (found.expires_at or 0) > time.time() else None

    async def revoke_token(self, token: object) -> None:
        pass


class Verifier:
    def __init__(self, provider: Provider) -> None:
        self.provider = provider

    async def verify_token(self, token: str) -> AccessToken | None:
        return await self.provider.load_access_token(token)


async def main() -> None:
    provider = Provider()
    as_socket, mcp_socket = listening(), listening()
    issuer = f"http://127.0.0.1:{as_socket.getsockname()[1]}"
    base = f"http://127.0.0.1:{mcp_socket.getsockname()[1]}"
    url = f"{base}/mcp" if TRANSPORT == "http" else f"{base}/sse"
    routes = create_auth_routes(
        provider,
        AnyHttpUrl(issuer),
        client_registration_options=ClientRegistrationOptions(  # type: ignore[arg-type]
            enabled=True, valid_scopes=["tiny"], default_scopes=["tiny"]
        ),
    )
    authority = Starlette(routes=routes)
    server = FastMCP(
        "tiny-oauth",
        token_verifier=Verifier(provider),
        log_level="WARNING",
        auth=AuthSettings(
            issuer_url=issuer, resource_server_url=url, required_scopes=["tiny"], validate_token_resource=False
        ),
    )  # type: ignore[arg-type]

    @server.tool()
    def whoami() -> str:
        """Says that the caller was let in."""
        return "signed in"

    app = server.streamable_http_app() if TRANSPORT == "http" else server.sse_app()
    print(json.dumps({"issuer": issuer, "url": url}), flush=True)
    quiet = {"log_level": "warning", "lifespan": "on"}
    await asyncio.gather(
        uvicorn.Server(uvicorn.Config(authority, **quiet)).serve(sockets=[as_socket]),  # type: ignore[arg-type]
        uvicorn.Server(uvicorn.Config(app, **quiet)).serve(sockets=[mcp_socket]),  # type: ignore[arg-type]
    )


if __name__ == "__main__":
    asyncio.run(main())
