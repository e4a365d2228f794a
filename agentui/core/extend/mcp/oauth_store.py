"""MCP OAuth tokens kept where and as Claude Code keeps them on Linux: `mcpOAuth` in
`$CLAUDE_CONFIG_DIR/.credentials.json` (mode 0600), one entry per server under `<name>|<16 hex digits>` (the start of
the SHA-256 of its type, URL and headers), so tokens either tool obtained serve the other, and a person can copy the
file between machines."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentui.core.extend.mcp.config import ServerConfig

if TYPE_CHECKING:
    from mcp.shared.auth import OAuthClientInformationFull, OAuthMetadata, OAuthToken

Entry = dict[str, Any]


def credentials_path(env: Mapping[str, str]) -> Path:
    """Claude Code's plaintext secure storage: `$CLAUDE_SECURESTORAGE_CONFIG_DIR` if set, else its config directory."""
    from agentui.core.dirs import claude_config_dir

    base = env.get("CLAUDE_SECURESTORAGE_CONFIG_DIR")
    return (Path(base).expanduser() if base else claude_config_dir(env)) / ".credentials.json"


def server_key(config: ServerConfig) -> str:
    """Claude Code's key: a changed URL or header is another server, whose tokens are not these."""
    described = json.dumps(
        {"type": config.type, "url": config.url, "headers": config.headers}, separators=(",", ":"), ensure_ascii=False
    )
    return f"{config.name}|{hashlib.sha256(described.encode()).hexdigest()[:16]}"


def _read(path: Path) -> dict[str, Any]:
    from agentui.core.jsonfile import regular_file_text

    try:
        data = json.loads(regular_file_text(path))  # (a FIFO planted there is refused, never waited on)
    except (OSError, ValueError):  # (none yet, or unreadable: Claude Code starts again from nothing too)
        return {}
    return data if isinstance(data, dict) else {}


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One writer at a time among agentui's processes (two servers' tokens saved at once must both stay)."""
    from agentui.core.file_lock import locked

    path.parent.mkdir(parents=True, exist_ok=True)
    with locked(path.with_name(".credentials.json.agentui-lock")):
        yield


def _write(path: Path, data: dict[str, Any]) -> None:
    """The whole file replaced at once, readable by its owner only, as Claude Code writes it (through a link to it,
    as Claude Code's own credentials file may be one)."""
    from agentui.core.atomic_write import atomic_write

    atomic_write(Path(os.path.realpath(path)), json.dumps(data).encode(), mode=0o600)


def read_entry(path: Path, key: str) -> Entry | None:
    entry = _read(path).get("mcpOAuth", {}).get(key)
    return entry if isinstance(entry, dict) else None


def change_entry(path: Path, key: str, change: Callable[[Entry], Entry | None]) -> None:
    """`change` gets the server's entry (empty if none) and returns the new one, or None to remove it; the file's
    other contents (the claude.ai login, other servers) are kept."""
    with _locked(path):
        data = _read(path)
        found = data.get("mcpOAuth")
        servers: dict[str, Any] = found if isinstance(found, dict) else {}
        new = change(dict(servers.get(key) or {}))
        if new is None:
            servers.pop(key, None)
        else:
            servers[key] = {name: value for name, value in new.items() if value is not None}
        _write(path, {**data, "mcpOAuth": servers})


REFRESH_MARGIN_SECONDS = 300
"""Claude Code refreshes a token with less than five minutes left."""


class CredentialStore:
    """The SDK's TokenStorage over one server's entry, plus what it needs to refresh in a later process without
    discovering again (the authorization server's metadata, as Claude Code's `discoveryState`)."""

    def __init__(self, config: ServerConfig, env: Mapping[str, str], redirect_uri: str = "") -> None:
        self.config = config
        self.path = credentials_path(env)
        self.key = server_key(config)
        self.redirect_uri = redirect_uri

    def entry(self) -> Entry | None:
        return read_entry(self.path, self.key)

    def _change(self, update: Entry) -> None:
        base = {"serverName": self.config.name, "serverUrl": self.config.url}
        change_entry(self.path, self.key, lambda entry: {**entry, **base, **update})

    async def get_tokens(self) -> OAuthToken | None:
        from mcp.shared.auth import OAuthToken

        entry = self.entry() or {}
        if not entry.get("accessToken"):
            return None
        left = self.seconds_left()
        return OAuthToken(
            access_token=entry["accessToken"],
            refresh_token=entry.get("refreshToken") or None,
            scope=entry.get("scope") or None,
            expires_in=None if left is None else max(0, int(left)),
        )

    def seconds_left(self) -> float | None:
        expires = (self.entry() or {}).get("expiresAt")
        return (expires / 1000 - time.time()) if isinstance(expires, (int, float)) else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        expires = int((time.time() + tokens.expires_in) * 1000) if tokens.expires_in is not None else None
        previous = self.entry() or {}
        self._change(
            {
                "accessToken": tokens.access_token,
                "refreshToken": tokens.refresh_token or previous.get("refreshToken"),
                "expiresAt": expires,
                "scope": tokens.scope,
            }
        )

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        from mcp.shared.auth import OAuthClientInformationFull

        entry = self.entry() or {}
        if not entry.get("clientId"):
            return None
        registered_for = entry.get("redirectUri") or ""
        if self.redirect_uri and registered_for and registered_for != self.redirect_uri:
            return None  # (registered for another callback: the server would refuse this one, so register again)
        return OAuthClientInformationFull(
            client_id=entry["clientId"],
            client_secret=entry.get("clientSecret") or None,
            redirect_uris=[registered_for or self.redirect_uri or "http://localhost/callback"],
            token_endpoint_auth_method="client_secret_post" if entry.get("clientSecret") else "none",
        )

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._change(
            {
                "clientId": client_info.client_id,
                "clientSecret": client_info.client_secret,
                "redirectUri": self.redirect_uri or None,
                "accessToken": (self.entry() or {}).get("accessToken", ""),
            }
        )

    def save_discovery(self, server_url: str | None, metadata: OAuthMetadata | None) -> None:
        if server_url is None and metadata is None:
            return
        kept = (self.entry() or {}).get("discoveryState")
        state: Entry = dict(kept) if isinstance(kept, dict) else {}  # (what Claude Code found stays: its resource URL)
        state["authorizationServerUrl"] = server_url or (str(metadata.issuer) if metadata else None)
        if metadata is not None:
            state["authorizationServerMetadata"] = metadata.model_dump(mode="json", exclude_none=True)
        self._change({"discoveryState": state})

    def discovery(self) -> tuple[str | None, OAuthMetadata | None]:
        from mcp.shared.auth import OAuthMetadata
        from pydantic import ValidationError

        state = (self.entry() or {}).get("discoveryState") or {}
        if not isinstance(state, dict):
            return None, None
        try:
            metadata = OAuthMetadata.model_validate(state["authorizationServerMetadata"])
        except (KeyError, ValidationError):
            metadata = None
        return state.get("authorizationServerUrl") or None, metadata

    def forget_tokens(self) -> None:
        """The tokens go (the registration stays), as Claude Code's 'Clear authentication' keeps the client."""
        change_entry(
            self.path, self.key, lambda entry: {**entry, "accessToken": "", "refreshToken": None, "expiresAt": None}
        )
