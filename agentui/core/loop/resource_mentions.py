"""`@server:uri` in a person's prompt, read as Claude Code reads it: a resource a connected MCP server lists goes with
the prompt, read by ReadMcpResourceTool (so the permission rules decide, as for `@file`), in Claude Code's words; a
mention of no listed resource is left as typed."""

from __future__ import annotations

import logging
import re
import uuid
from pathlib import Path
from typing import Any

from agentui.core.extend.mcp.resource_tools import LIST_TOOL, READ_TOOL
from agentui.core.loop.mentions import Attachments
from agentui.core.messages import TextBlock, ToolUseBlock
from agentui.core.safety.permissions import PermissionGate
from agentui.core.tools.base import Tool, ToolContext, ToolRegistry

log = logging.getLogger(__name__)

RESOURCE_MENTION = re.compile(r"(?:^|(?<=[\s\u3002\u3001\uff1f\uff01]))@(\S+:\S+)\b")
"""Claude Code's pattern: `@server:uri` at the start or after a space (or CJK punctuation)."""
READ_AGAIN = (
    "Do NOT read this resource again unless you think it may have changed, since you already have the full contents."
)


def resource_mentions(prompt: str) -> list[tuple[str, str]]:
    """The (server, uri) pairs `prompt` names, in order, each once."""
    found: list[tuple[str, str]] = []
    for match in RESOURCE_MENTION.finditer(prompt):
        server, _, uri = match.group(1).partition(":")
        if server and uri and (server, uri) not in found:
            found.append((server, uri))
    return found


async def attach_resources(
    prompt: str, cwd: Path, tools: ToolRegistry, gate: PermissionGate, into: Attachments
) -> None:
    """Add to `into` the contents of each listed resource `prompt` names (and a sentence for each not attached)."""
    lister, reader = tools.get(LIST_TOOL), tools.get(READ_TOOL)
    named = resource_mentions(prompt) if lister is not None and reader is not None else []
    if not named or lister is None or reader is None:
        return
    ctx = ToolContext(cwd=cwd, session_id="", tool_call_id="mention")
    listed = await lister.run(lister.Args.model_validate({}), ctx)
    offered = {(entry["server"], entry["uri"]) for entry in (listed.details or {}).get("resources", [])}
    for server, uri in named:
        if (server, uri) not in offered:
            continue  # (as Claude Code: `@someone:something` that names no resource is just text)
        try:
            await _attach(server, uri, reader, gate, ctx, into)
        except Exception as exc:  # (a server failing must never cost the prompt: it goes, without this resource)
            log.warning("@%s:%s could not be attached", server, uri, exc_info=True)
            into.notices.append(f"@{server}:{uri} was not attached: {exc}.")


async def _attach(
    server: str, uri: str, reader: Tool[Any], gate: PermissionGate, ctx: ToolContext, into: Attachments
) -> None:
    arguments = {"server": server, "uri": uri}
    args = reader.Args.model_validate(arguments)
    call = ToolUseBlock(id=f"mention_{uuid.uuid4().hex[:12]}", name=reader.name, input=arguments)
    verdict = gate.check(reader, args, call)
    if verdict.behavior != "allow":
        said = verdict.reason[:1].lower() + verdict.reason[1:]
        into.notices.append(f"@{server}:{uri} was not attached: {said}" + ("" if said.endswith(".") else "."))
        return
    result = await reader.run(args, ctx)
    if result.is_error:
        into.notices.append(f"@{server}:{uri} was not attached: {result.content}")
        return
    into.blocks += resource_blocks(server, uri, (result.details or {}).get("contents", []))


def resource_blocks(server: str, uri: str, contents: list[dict[str, Any]]) -> list[TextBlock]:
    """A resource's contents as Claude Code attaches them to the prompt."""
    blocks: list[TextBlock] = []
    for item in contents:
        if "blobSavedTo" in item:
            blocks.append(TextBlock(text=f"[Binary content: {item.get('mimeType') or 'application/octet-stream'}]"))
        elif isinstance(item.get("text"), str):
            blocks += [
                TextBlock(text="Full contents of resource:"),
                TextBlock(text=item["text"]),
                TextBlock(text=READ_AGAIN),
            ]
    if blocks:
        return blocks
    said = "(No content)" if not contents else "(No displayable content)"
    return [TextBlock(text=f'<mcp-resource server="{server}" uri="{uri}">{said}</mcp-resource>')]
