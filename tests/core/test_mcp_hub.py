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
