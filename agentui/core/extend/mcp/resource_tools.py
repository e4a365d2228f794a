"""ListMcpResourcesTool and ReadMcpResourceTool, as Claude Code gives them to the model once a connected MCP server
declares resources: the same names, descriptions, arguments and results (JSON of the resources, each with its
server; a resource's contents, a binary one saved to a file whose path is given). Both are read tools: they go
through the dispatcher and the permission rules like any other."""

from __future__ import annotations

import json
import mimetypes
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NotRequired

from pydantic import Field
from typing_extensions import TypedDict

from agentui.core.extend.mcp.client import McpRequestError, McpServer
from agentui.core.providers.base import ToolSpec
from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolResult

LIST_TOOL = "ListMcpResourcesTool"
READ_TOOL = "ReadMcpResourceTool"
RESOURCE_TOOLS = (LIST_TOOL, READ_TOOL)

LIST_DESCRIPTION = """
List available resources from configured MCP servers.
Each returned resource will include all standard MCP resource fields plus a 'server' field 
indicating which server the resource belongs to.

Parameters:
- server (optional): The name of a specific MCP server to get resources from. If not provided,
  resources from all servers will be returned.
"""  # noqa: W291 (Claude Code's text, its trailing space included)
READ_DESCRIPTION = """
Reads a specific resource from an MCP server, identified by server name and resource URI.

Parameters:
- server (required): The name of the MCP server from which to read the resource
- uri (required): The URI of the resource to read
"""
NOT_FOUND, METHOD_NOT_FOUND = {-32002, -32602}, -32601
"""The codes of a resource a server does not have (MCP's and JSON-RPC's invalid params), and of a read it lacks."""
NO_RESOURCES = "No resources found. MCP servers may still provide tools even if they have no resources."

Servers = Callable[[], Sequence[McpServer]]
"""The conversation's MCP servers as they are now."""


class ListArgs(ToolArgs):
    server: str | None = Field(default=None, description="Optional server name to filter resources by")


class ReadArgs(ToolArgs):
    server: str = Field(description="The MCP server name")
    uri: str = Field(description="The resource URI to read")


def _find(servers: Sequence[McpServer], name: str) -> McpServer | None:
    return next((server for server in servers if server.name == name), None)


class ListDetails(TypedDict):
    resources: list[dict[str, Any]]
    """Each resource as the server lists it, with its `server`."""


class ReadDetails(TypedDict):
    contents: list[dict[str, Any]]
    """The resource's contents: text, or a blob's saved file."""
    error: NotRequired[str]
    """Why there are none (a resource the server does not have)."""


def _not_found(servers: Sequence[McpServer], name: str) -> str:
    return f'Server "{name}" not found. Available servers: {", ".join(server.name for server in servers)}'


class ListMcpResources(Tool[ListArgs]):
    name = LIST_TOOL
    description = LIST_DESCRIPTION
    Args = ListArgs
    Details = ListDetails
    kind = "read"
    aliases = ("ListMcpResources",)

    def __init__(self, servers: Servers) -> None:
        self.servers = servers

    @property
    def spec(self) -> ToolSpec:
        """Claude Code's schema: `server` a plain optional string (pydantic's would allow null)."""
        server = {"description": "Optional server name to filter resources by", "type": "string"}
        schema = {"type": "object", "properties": {"server": server}, "additionalProperties": False}
        return ToolSpec(self.name, self.description, schema)

    @classmethod
    def title(cls, arguments: Mapping[str, Any], cwd: Path | None) -> str:
        server = arguments.get("server")
        return f'List MCP resources from server "{server}"' if server else "List all MCP resources"

    async def run(self, args: ListArgs, ctx: ToolContext) -> ToolResult:
        servers = list(self.servers())
        chosen = servers
        if args.server is not None:
            if (server := _find(servers, args.server)) is None:
                return ToolResult.error(_not_found(servers, args.server))
            chosen = [server]
        listed = [
            resource.listed(server.name)
            for server in chosen
            if server.state == "connected"
            for resource in server.resources
        ]
        if not listed:
            return ToolResult(content=NO_RESOURCES, details={"resources": []})
        return ToolResult(content=_json(listed), details={"resources": listed})


class ReadMcpResource(Tool[ReadArgs]):
    name = READ_TOOL
    description = READ_DESCRIPTION
    Args = ReadArgs
    Details = ReadDetails
    kind = "read"
    aliases = ("ReadMcpResource",)

    def __init__(self, servers: Servers) -> None:
        self.servers = servers

    @classmethod
    def title(cls, arguments: Mapping[str, Any], cwd: Path | None) -> str:
        return f'Read resource "{arguments.get("uri", "")}" from server "{arguments.get("server", "")}"'

    async def run(self, args: ReadArgs, ctx: ToolContext) -> ToolResult:
        servers = list(self.servers())
        server = _find(servers, args.server)
        if server is None:
            return ToolResult.error(_not_found(servers, args.server))
        try:
            contents = await read_resource(server, args.uri)
        except McpRequestError as exc:
            if (said := _not_read(server.name, args.uri, exc.code)) is not None:  # (for the model, as Claude Code's)
                return ToolResult(content=said, details={"contents": [], "error": said})
            return ToolResult.error(str(exc))
        read = {"contents": contents}
        return ToolResult(content=_json(read), details=read)


def _not_read(server: str, uri: str, code: int | None) -> str | None:
    """Claude Code's answer for a resource the server does not have, or a server that cannot read resources."""
    if code in NOT_FOUND:
        return (
            f"Resource not found: {uri} — it may have been deleted or the URI is stale. Re-run {LIST_TOOL} to refresh."
        )
    if code == METHOD_NOT_FOUND:
        return f'Server "{server}" advertises resource support but does not implement resource reads.'
    return None


async def read_resource(server: McpServer, uri: str) -> list[dict[str, Any]]:
    """The resource's contents as Claude Code gives them: text as text, a blob saved to a file (its path said)."""
    from pydantic import AnyUrl

    answer = await server.request("resources/read", lambda session: session.read_resource(AnyUrl(uri)))
    contents: list[dict[str, Any]] = []
    for item in answer.contents:
        entry: dict[str, Any] = {"uri": str(item.uri)}
        if item.mimeType:
            entry["mimeType"] = item.mimeType
        if getattr(item, "text", None) is not None:
            entry["text"] = item.text
        elif isinstance(getattr(item, "blob", None), str):
            entry.update(_saved_blob(server.name, str(item.uri), item.blob, item.mimeType))
        contents.append(entry)
    return contents


def _saved_blob(server: str, uri: str, blob: str, mime_type: str | None) -> dict[str, Any]:
    import base64
    import binascii

    from agentui.core.process_dir import current
    from agentui.core.scratch_files import scratch_files

    said = f"[Resource from {server} at {uri}] "
    try:
        data = base64.b64decode(blob, validate=True)
        suffix = (mimetypes.guess_extension(mime_type or "") or ".bin").lstrip(".")
        path, handle = scratch_files(current().temporary("mcp-")).create_unique(
            None, f"mcp-resource-{uuid.uuid4().hex[:8]}.{suffix}"
        )
        with handle:
            handle.write(data)
    except (OSError, binascii.Error, ValueError) as exc:
        return {"text": f"Binary content could not be saved to disk: {exc}"}
    size = _size(len(data))
    return {
        "blobSavedTo": str(path),
        "text": f"{said}Binary content ({mime_type or 'unknown type'}, {size}) saved to {path}",
    }


def _size(count: int) -> str:
    """As Claude Code says a size: bytes, then KB, MB, GB with one decimal (none when it is .0)."""
    value = count / 1024
    if value < 1:
        return f"{count} bytes"
    for unit in ("KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.1f}".removesuffix(".0") + unit
        value /= 1024
    raise AssertionError("unreachable")


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
