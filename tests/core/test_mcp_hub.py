"""The MCP hub in-process: a server's tools in the registry, kept in step when the server's list changes."""

from __future__ import annotations

import sys
from pathlib import Path

from agentui.core.extend.mcp.config import ServerConfig
from agentui.core.extend.mcp.tools import McpHub
from agentui.core.tools.base import ToolContext, ToolRegistry
from tests.support.waiting import eventually

TINY = str(Path(__file__).resolve().parents[1] / "support" / "mcp_server.py")


async def test_a_tool_list_change_reaches_the_registry(tmp_path: Path) -> None:
    tools = ToolRegistry()
    hub = McpHub(
        [ServerConfig(name="tiny", command=sys.executable, args=[TINY])], tools, tmp_path, env={"PATH": "/usr/bin:/bin"}
    )
    try:
        assert await hub.start() == []
        assert "mcp__tiny__late" not in tools.names()
        grow = tools.get("mcp__tiny__grow")
        assert grow is not None
        ctx = ToolContext(cwd=tmp_path, session_id="s", tool_call_id="t")
        assert (await grow.run(grow.Args.model_validate({}), ctx)).content == '{"result":"grown"}'
        await eventually(lambda: "mcp__tiny__late" in tools.names())
        late = tools.get("mcp__tiny__late")
        assert late is not None and late.spec.description == "Arrived after the start."
        assert (await late.run(late.Args.model_validate({}), ctx)).content == '{"result":"late but here"}'
    finally:
        await hub.aclose()
    assert [server.state for server in hub.servers] == ["closed"]


async def test_a_server_that_dies_while_a_resource_is_read_is_said_at_once(tmp_path: Path) -> None:
    """A resources/read (or prompts/get) to a server that crashes meanwhile ends with one sentence as soon as the
    connection does, not after MCP_TOOL_TIMEOUT (here an hour, which the test's ceiling would not wait out)."""
    import asyncio

    import pytest

    from agentui.core.extend.mcp.client import McpRequestError

    hub = McpHub(
        [ServerConfig(name="tiny", command=sys.executable, args=[TINY, "resources"])],
        ToolRegistry(),
        tmp_path,
        env={"PATH": "/usr/bin:/bin", "MCP_TOOL_TIMEOUT": "3600000"},
    )
    try:
        assert await hub.start() == []
        (server,) = hub.servers
        read = await server.request("resources/read", lambda session: session.read_resource("tiny://notes"))
        assert read.contents[0].text == "a note"
        with pytest.raises(McpRequestError) as caught:
            await asyncio.wait_for(
                server.request("resources/read", lambda session: session.read_resource("tiny://die")), 120
            )
        assert str(caught.value) == (
            "The MCP server tiny failed on resources/read: closed the connection (it may have crashed; see its log)."
        )
        assert server.state == "failed"
    finally:
        await hub.aclose()
