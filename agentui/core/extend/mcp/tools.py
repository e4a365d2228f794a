"""MCP tools as agent tools: `mcp__<server>__<tool>`, described by the server's own schema, checked by the same
permission rules as every tool (`mcp__github__*` allows a whole server), and run by a call to the server. The hub
starts the configured servers and keeps the registry in step with what each offers."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path

from pydantic import ConfigDict
from typing_extensions import TypedDict

from agentui.core.extend.mcp.client import Elicit, McpServer, RemoteTool, SdkBridge
from agentui.core.extend.mcp.config import ServerConfig
from agentui.core.messages import ImageBlock, ResultBlock, TextBlock
from agentui.core.providers.base import ToolSpec
from agentui.core.tools.base import (
    Tool,
    ToolArgs,
    ToolContext,
    ToolRegistry,
    ToolResult,
    external_tool_name,
)


class McpArgs(ToolArgs):
    """Whatever the server's schema asks for: the server validates its own arguments."""

    model_config = ConfigDict(extra="allow")


def tool_name(server: str, tool: str) -> str:
    return external_tool_name("mcp", server, tool)


class McpDetails(TypedDict):
    server: str


class McpTool(Tool[McpArgs]):
    Args = McpArgs
    Details = McpDetails
    kind = "execute"  # another program acts: asked for unless a rule allows it

    def __init__(self, server: McpServer, remote: RemoteTool) -> None:
        self.server = server
        self.remote = remote
        self.name = tool_name(server.name, remote.name)  # type: ignore[misc]
        self.description = remote.description or f"{remote.name} (from the MCP server {server.name})"  # type: ignore[misc]

    @property
    def spec(self) -> ToolSpec:
        schema = dict(self.remote.input_schema)
        schema.setdefault("type", "object")
        return ToolSpec(self.name, self.description, schema)

    async def run(self, args: McpArgs, ctx: ToolContext) -> ToolResult:
        outcome = await self.server.call(self.remote.name, dict(args.model_extra or {}))
        blocks: list[ResultBlock] = []
        for block in outcome.content:
            if block["type"] == "image":
                blocks.append(ImageBlock(source=block["source"]))
            elif outcome.structured is None:
                blocks.append(TextBlock(text=block["text"]))
        if outcome.structured is not None:  # (as Claude Code: the structured result as JSON, in place of its text)
            structured = json.dumps(outcome.structured, ensure_ascii=False, separators=(",", ":"))
            blocks.append(TextBlock(text=structured))
        if all(isinstance(block, TextBlock) for block in blocks):
            text = "\n".join(block.text for block in blocks if isinstance(block, TextBlock))
            return ToolResult(
                content=text or "(no output)", details=McpDetails(server=self.server.name), is_error=outcome.is_error
            )
        return ToolResult(content=blocks, details=McpDetails(server=self.server.name), is_error=outcome.is_error)


class McpHub:
    """The servers of one conversation and their tools in its registry."""

    def __init__(
        self,
        configs: list[ServerConfig],
        tools: ToolRegistry,
        log_dir: Path,
        env: Mapping[str, str] | None = None,
        sdk_bridge: SdkBridge | None = None,
        elicit: Elicit | None = None,
    ) -> None:
        import os

        self.tools = tools
        self.elicit = elicit
        self.log_dir = log_dir
        self._changing = asyncio.Lock()
        self.servers = [
            McpServer(
                config,
                log_dir,
                env=os.environ if env is None else env,
                on_tools_changed=self._refresh,
                bridge=sdk_bridge,
                elicit=elicit,
            )
            for config in configs
        ]

    async def start(self) -> list[str]:
        """Start every server at once; one sentence for each that failed or needs a sign-in."""
        await asyncio.gather(*(server.start() for server in self.servers))
        for server in self.servers:
            self._refresh(server)
        return [
            f"{server.error[:1].upper()}{server.error[1:]}; its tools are not available"
            + (f" (log: {server.log_path})." if server.config.type == "stdio" else ".")
            for server in self.servers
            if server.state in ("failed", "needs-auth")
        ]

    def _refresh(self, server: McpServer) -> None:
        if server not in self.servers:  # (one replaced by a restart: its late news must not touch the new one's)
            return
        prefix = tool_name(server.name, "")
        for name in [tool.name for tool in self.tools if tool.name.startswith(prefix)]:
            self.tools.unregister(name)
        if server.state == "connected":
            for remote in server.tools:
                tool = McpTool(server, remote)
                if self.tools.get(tool.name) is None:
                    self.tools.register(tool)
        self._offer_resource_tools()

    def _offer_resource_tools(self) -> None:
        """Claude Code's resource tools, while a connected server declares resources."""
        from agentui.core.extend.mcp.resource_tools import ListMcpResources, ReadMcpResource

        wanted = any(server.state == "connected" and server.has_resources for server in self.servers)
        for tool in (ListMcpResources(lambda: self.servers), ReadMcpResource(lambda: self.servers)):
            present = self.tools.get(tool.name) is not None
            if wanted and not present:
                self.tools.register(tool)
            elif present and not wanted:
                self.tools.unregister(tool.name)

    async def stop(self, name: str) -> None:
        """Stop the server `name` (its tools go); it can be started again with `restart`."""
        async with self._changing:  # (one stop or restart at a time: two at once would start two servers)
            server = next(server for server in self.servers if server.name == name)
            await server.close()
            self._refresh(server)

    async def restart(self, name: str) -> str | None:
        """Connect the server `name` anew (its tools as it lists them now); why it failed, or None."""
        async with self._changing:
            at, old = next((at, server) for at, server in enumerate(self.servers) if server.name == name)
            await old.close()
            new = McpServer(
                old.config,
                old.log_dir,
                env=old.env,
                on_tools_changed=self._refresh,
                bridge=old.bridge,
                elicit=self.elicit,
            )
            self.servers[at] = new
            await new.start()
            self._refresh(new)
            return new.error or None

    async def add(self, config: ServerConfig, env: Mapping[str, str], bridge: SdkBridge | None) -> str | None:
        """Start a server the conversation did not start with (an SDK program's `setMcpServers`) and register its
        tools; why it failed, or None (a failed one stays listed, as a configured one does)."""
        async with self._changing:
            server = McpServer(
                config, self.log_dir, env=env, on_tools_changed=self._refresh, bridge=bridge, elicit=self.elicit
            )
            self.servers.append(server)
            await server.start()
            self._refresh(server)
            return server.error or None

    async def remove(self, name: str) -> None:
        """Stop the server `name` and forget it: its tools go, and it is no longer listed."""
        async with self._changing:
            server = next(server for server in self.servers if server.name == name)
            await server.close()
            self._refresh(server)
            self.servers.remove(server)

    async def aclose(self) -> None:
        await asyncio.gather(*(server.close() for server in self.servers), return_exceptions=True)
