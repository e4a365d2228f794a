"""The servers a conversation's tools come from besides its own: MCP servers (those a project's .mcp.json brings
start only once approved) and the OpenAPI APIs of the config; started on request, closed with the conversation."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentui.core.events import PermissionDecision
    from agentui.core.extend.mcp.client import SdkBridge
    from agentui.core.extend.mcp.config import ServerConfig
    from agentui.core.extend.mcp.elicitation import Elicitations
    from agentui.core.extend.mcp.oauth import ShowUrl
    from agentui.core.extend.mcp.tools import McpHub
    from agentui.core.extend.openapi.config import OpenApiConfig
    from agentui.core.extend.openapi.hub import OpenApiHub
    from agentui.core.project import Project


@dataclass(frozen=True)
class McpStatus:
    name: str
    scope: str
    state: str
    tools: list[str]
    error: str | None
    log_path: Path | None
    oauth: bool = False
    """An HTTP or SSE server, which the person can sign in to (/mcp's Authenticate)."""


class ToolServers:
    def __init__(
        self,
        project: Project,
        mcp_configs: tuple[str, ...],
        strict: bool,
        openapi: Mapping[str, OpenApiConfig],
        elicitations: Elicitations | None = None,
    ) -> None:
        self._project = project
        self._elicitations = elicitations
        """Where the servers' elicitation requests go (None: declined)."""
        self._mcp_configs = mcp_configs
        """--mcp-config: files or JSON of servers besides the configured ones."""
        self._strict = strict
        """--strict-mcp-config: only those."""
        self._openapi_configs = openapi
        self.mcp: McpHub | None = None
        self.openapi: OpenApiHub | None = None
        self._env: Mapping[str, str] | None = None
        self._bridge: SdkBridge | None = None
        self._changing = asyncio.Lock()
        """Starting and setting servers one at a time: an SDK program may set some while the configured ones start."""
        self._dynamic: dict[str, Any] = {}
        """The servers an SDK program set at run time (`setMcpServers`): each one's configuration as given, by name."""
        self._awaiting: dict[str, Any] = {}
        """The project's `.mcp.json` servers no answer or setting approved yet, by name (/mcp can approve them)."""

    def mcp_status(self, awaiting: bool = False) -> list[McpStatus]:
        """Each configured MCP server: its state, its tools, and what went wrong; with `awaiting`, then the project's
        servers awaiting approval (for /mcp: Claude Code's SDK statuses have no such state)."""
        from agentui.core.extend.mcp.oauth import uses_oauth

        waiting = [
            McpStatus(name, config.scope, "needs-approval", [], None, None, uses_oauth(config))
            for name, config in self._awaiting.items()
            if awaiting
        ]
        if self.mcp is None:
            return waiting
        return [
            McpStatus(
                server.name,
                server.config.scope,
                server.state,
                [tool.name for tool in server.tools],
                server.error,
                server.log_path if server.config.type == "stdio" else None,
                uses_oauth(server.config),
            )
            for server in self.mcp.servers
        ] + waiting

    async def start(
        self,
        env: Mapping[str, str],
        approve: Callable[[str, str], Awaitable[bool | None]] | None = None,
        sdk_bridge: SdkBridge | None = None,
        sdk_servers: Sequence[str] = (),
    ) -> list[str]:
        """Start the configured MCP servers and register their tools; a sentence for each that did not start or
        is waiting for approval. `approve(name, description)` asks the person about a `.mcp.json` server no
        setting decides (True or False is remembered for this project, outside it; None is "not now"). An Agent SDK
        front end passes `sdk_bridge`, which carries the messages of its in-process (`sdk`) servers, and the names
        of those it announced outside the configuration (`sdk_servers`: the TypeScript SDK's, in `initialize`).
        Nothing is imported or started when no server is configured. The APIs of the config's `openapi` load here
        too."""
        self._env, self._bridge = env, sdk_bridge
        async with self._changing:
            notices = await self._start_openapi(env)
            return notices + await self._start_mcp_servers(env, approve, sdk_bridge, sdk_servers)

    async def set_dynamic(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """See `_set_dynamic`; after the configured servers' start, if it is going on."""
        async with self._changing:
            return await self._set_dynamic(raw)

    async def _set_dynamic(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """The servers set at run time become `raw` (Claude Code's `mcp_set_servers`): those no longer named, or
        named with another configuration, stop; the others start; the configured ones are left alone. Claude Code's
        answer: the names added and removed, and why each that failed did (not valid, or did not connect: it still
        counts as added, as in Claude Code, until it is set away)."""
        from agentui.core.extend.mcp.config import servers_one_by_one

        env = self._env if self._env is not None else os.environ
        if self.mcp is None:
            self.mcp = self._hub([], env, self._bridge)
        removed = [name for name, entry in self._dynamic.items() if raw.get(name) != entry]
        for name in removed:
            del self._dynamic[name]
            if name in {server.name for server in self.mcp.servers}:
                await self.mcp.remove(name)
        configured = {server.name for server in self.mcp.servers}
        fresh = {name: entry for name, entry in raw.items() if name not in self._dynamic}
        valid, errors = servers_one_by_one(fresh, "the SDK program", env)
        added = []
        for name, entry in fresh.items():
            if name in configured:
                errors[name] = f"An MCP server named {name} is already configured; it was left as it is."
                continue
            self._dynamic[name] = entry
            added.append(name)
            if name in valid and (error := await self.mcp.add(valid[name], env, self._bridge)) is not None:
                errors[name] = error
        return {"added": added, "removed": [name for name in removed if name not in added], "errors": errors}

    def pin_mode(self, name: str, mode: Any) -> dict[str, Any]:
        """Claude Code's `set_mcp_permission_mode_override`: the server `name`'s tools held to the default mode
        ("default": bypassPermissions asks for them), or released (None). Tighten-only; agentui has no auto mode,
        so "auto" is refused as Claude Code refuses it where it has none. Raises ValueError with the sentence."""
        from agentui.core.extend.mcp.tools import tool_name

        if mode not in ("default", "auto", None):
            raise ValueError(
                "Permission mode override over the control channel is tighten-only ('default', 'auto', or null); "
                f"rejected '{mode}'"
            )
        if mode == "auto":
            raise ValueError(f"Cannot pin MCP server '{name}' to auto")
        held = self._project.engine.held_to_ask
        prefix = tool_name(name, "")
        present = prefix in held
        if mode is None:
            held.discard(prefix)
        else:
            held.add(prefix)
        known = name in {status.name for status in self.mcp_status()} or name in self._dynamic
        if known:
            return {}
        if mode is None and not present:
            return {"warning": f"MCP server '{name}' is not known; no override was present to clear."}
        if mode is None:
            return {}
        return {
            "warning": f"MCP server '{name}' is not yet known; override stored but will not apply until a server "
            "with that exact name connects."
        }

    async def _start_openapi(self, env: Mapping[str, str]) -> list[str]:
        apis = self._openapi_configs
        if not apis:
            return []
        from agentui.core.dirs import config_dir
        from agentui.core.extend.openapi.hub import OpenApiHub

        self.openapi = OpenApiHub(apis, self._project.tools, config_dir(env))
        return await self.openapi.start(env)

    async def _start_mcp_servers(
        self,
        env: Mapping[str, str],
        approve: Callable[[str, str], Awaitable[bool | None]] | None,
        sdk_bridge: SdkBridge | None,
        sdk_servers: Sequence[str] = (),
    ) -> list[str]:
        from agentui.core.extend.mcp.config import (
            McpConfigError,
            ServerConfig,
            load_servers,
            project_server_approved,
            remember_approval,
            stored_approvals,
        )

        try:
            configs = load_servers(self._project.root, env, self._mcp_configs)
            if self._strict:
                configs = [config for config in configs if config.scope == "flag"]
        except McpConfigError as exc:
            return [f"{exc} No MCP servers were started."]
        named = {config.name for config in configs}
        configs += [
            ServerConfig(name=name, type="sdk", scope="flag", source="the SDK program")
            for name in dict.fromkeys(sdk_servers)
            if name not in named and sdk_bridge is not None
        ]
        # Approvals count from the person's own settings, and from the project's only once it is trusted: a
        # repository must not be able to approve its own servers.
        approvals: dict[str, Any] = dict(stored_approvals(self._project.root, env))
        for source in self._project.sources:
            if not source.from_project or self._project.trusted:
                settings = source.settings
                approvals["enableAllProjectMcpServers"] = (
                    approvals.get("enableAllProjectMcpServers") or settings.enableAllProjectMcpServers
                )
                approvals["enabledMcpjsonServers"] = [
                    *approvals.get("enabledMcpjsonServers", []),
                    *settings.enabledMcpjsonServers,
                ]
                approvals["disabledMcpjsonServers"] = [
                    *approvals.get("disabledMcpjsonServers", []),
                    *settings.disabledMcpjsonServers,
                ]
        chosen, notices = [], []
        for config in configs:
            if config.scope == "project":
                approved = project_server_approved(config, approvals)
                if approved is None and approve is not None:
                    what = " ".join([config.command, *config.args]) if config.type == "stdio" else config.url
                    approved = await approve(config.name, what)
                    if approved is not None:
                        remember_approval(self._project.root, config.name, approved, env)
                if approved is None:
                    self._awaiting[config.name] = config
                    plugin = config.name.split(":")[1] if config.name.startswith("plugin:") else None
                    where = f"the plugin {plugin}" if plugin else "this project's .mcp.json"
                    notices.append(
                        f"The MCP server {config.name} from {where} is not started: "
                        "approve it in the app, or add its name to enabledMcpjsonServers in your "
                        "settings."
                    )
                if not approved:
                    continue
            chosen.append(config)
        if not chosen:
            return notices

        if self.mcp is not None:  # (an SDK program set servers before these started: they join them)
            failed = [await self.mcp.add(config, env, sdk_bridge) for config in chosen]
            return notices + [
                f"{error[:1].upper()}{error[1:]}; its tools are not available." for error in failed if error
            ]
        self.mcp = self._hub(chosen, env, sdk_bridge)
        return notices + await self.mcp.start()

    async def stop_mcp(self, name: str) -> None:
        """Stop the MCP server `name` and take its tools away (ValueError if there is none)."""
        if self.mcp is None or name not in [server.name for server in self.mcp.servers]:
            raise ValueError(f"Server not found: {name}")
        await self.mcp.stop(name)

    async def restart_mcp(self, name: str) -> None:
        """Connect the MCP server `name` anew; ValueError with its sentence if there is none or it fails."""
        if self.mcp is None or name not in [server.name for server in self.mcp.servers]:
            raise ValueError(f"Server not found: {name}")
        if (error := await self.mcp.restart(name)) is not None:
            raise ValueError(error)

    async def authenticate_mcp(self, name: str, show: ShowUrl, browse: bool = True) -> str:
        """Sign in to the HTTP MCP server `name` (the browser opened on its authorization page unless not `browse`,
        `show` told the URL; the redirect taken on a loopback port; the tokens stored) and connect it anew. Claude
        Code's sentence for how it went; AuthenticationFailed or ValueError with one sentence when it could not."""
        from agentui.core.extend.mcp.oauth import authenticate, uses_oauth

        if self.mcp is None or (server := next((s for s in self.mcp.servers if s.name == name), None)) is None:
            raise ValueError(f"Server not found: {name}")
        if not uses_oauth(server.config):
            raise ValueError(f"The MCP server {name} is not an HTTP server that signs in with OAuth.")
        was_connected = server.state == "connected"
        await authenticate(server.config, self._env if self._env is not None else os.environ, show, browse)
        succeeded, said = await self.reconnect_mcp(name)
        if succeeded:
            return f"Authentication successful. {'Reconnected' if was_connected else 'Connected'} to {name}."
        if said.endswith("option."):
            said = f"Got new credentials, but {name} rejected them on reconnect. Try re-authenticating."
        raise ValueError(said)

    async def clear_mcp_auth(self, name: str) -> str:
        """Forget the tokens and registration kept for the HTTP MCP server `name` (in Claude Code's file too) and
        connect it anew, which then needs a sign-in; Claude Code's sentence. ValueError when there is no such server."""
        from agentui.core.extend.mcp.oauth import uses_oauth
        from agentui.core.extend.mcp.oauth_store import change_entry, credentials_path, server_key

        if self.mcp is None or (server := next((s for s in self.mcp.servers if s.name == name), None)) is None:
            raise ValueError(f"Server not found: {name}")
        if not uses_oauth(server.config):
            raise ValueError(f'Cannot clear auth for server type "{server.config.type}"')
        env = self._env if self._env is not None else os.environ
        change_entry(credentials_path(env), server_key(server.config), lambda entry: None)
        await self.mcp.restart(name)
        return f"Authentication cleared for {name}."

    async def reconnect_mcp(self, name: str) -> tuple[bool, str]:
        """Connect the MCP server `name` anew: whether it connected, and Claude Code's sentence for it."""
        if self.mcp is None or name not in [server.name for server in self.mcp.servers]:
            raise ValueError(f"Server not found: {name}")
        error = await self.mcp.restart(name)
        server = next(server for server in self.mcp.servers if server.name == name)
        if server.state == "connected":
            return True, f"Reconnected to {name}."
        if server.state == "needs-auth":
            return False, f"{name} requires authentication. Use the 'Authenticate' option."
        return False, f"Failed to reconnect to {name}: {error}." if error else f"Failed to reconnect to {name}."

    async def approve_mcp(self, name: str) -> str | None:
        """Approve the project's server `name` (remembered for this project) and start it; why it failed, or None."""
        from agentui.core.extend.mcp.config import remember_approval

        if (config := self._awaiting.pop(name, None)) is None:
            raise ValueError(f"No MCP server named {name} is awaiting approval.")
        env = self._env if self._env is not None else os.environ
        remember_approval(self._project.root, name, True, env)
        async with self._changing:
            if self.mcp is None:
                self.mcp = self._hub([], env, self._bridge)
            return await self.mcp.add(config, env, self._bridge)

    def _hub(self, configs: list[ServerConfig], env: Mapping[str, str], bridge: SdkBridge | None) -> McpHub:
        from agentui.core.dirs import cache_dir
        from agentui.core.extend.mcp.tools import McpHub

        elicit = self._elicitations.ask if self._elicitations is not None else None
        return McpHub(configs, self._project.tools, cache_dir(env) / "mcp-logs", env, bridge, elicit)

    def resource_names(self) -> list[str]:
        """`server:uri` for each resource a connected MCP server lists now (what `@` completes besides files)."""
        servers = self.mcp.servers if self.mcp is not None else []
        return [f"{s.name}:{r.uri}" for s in servers if s.state == "connected" for r in s.resources]

    def answer(self, request_id: str, decision: PermissionDecision) -> bool:
        """The person's answer to an ElicitationRequest event; False if none waits for it."""
        return self._elicitations is not None and self._elicitations.answer(request_id, decision)

    async def aclose(self) -> None:
        if self.mcp is not None:
            await self.mcp.aclose()
        if self.openapi is not None:
            await self.openapi.aclose()
