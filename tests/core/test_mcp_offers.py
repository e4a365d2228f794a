"""What MCP servers offer besides tools, in-process against a real server (tests/support/mcp_offers_server.py, the
SDK's FastMCP over stdio): Claude Code's resource tools and their results, `@server:uri` mentions, the servers'
prompts as commands, list_changed notifications for resources and prompts, and elicitation requests (asked through
an event and answered, or declined where no one answers)."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agentui.core.events import ElicitationRequest, EventBus, PermissionDecision
from agentui.core.extend.mcp.config import ServerConfig
from agentui.core.extend.mcp.elicitation import Elicitations
from agentui.core.extend.mcp.prompt_commands import prompt_commands
from agentui.core.extend.mcp.tools import McpHub
from agentui.core.loop.mentions import Attachments
from agentui.core.loop.resource_mentions import attach_resources, resource_mentions
from agentui.core.safety.permissions import KindGate
from agentui.core.tool_views import call_summary
from agentui.core.tools.base import Tool, ToolContext, ToolRegistry, ToolResult
from tests.support.waiting import eventually

SUPPORT = Path(__file__).resolve().parents[1] / "support"
NOTES, TINY = str(SUPPORT / "mcp_offers_server.py"), str(SUPPORT / "mcp_server.py")
ENV = {"PATH": "/usr/bin:/bin"}


@pytest.fixture
async def hub(tmp_path: Path) -> AsyncIterator[McpHub]:
    configs = [
        ServerConfig(name="notes", command=sys.executable, args=[NOTES]),
        ServerConfig(name="tiny", command=sys.executable, args=[TINY]),
    ]
    started = McpHub(configs, ToolRegistry(), tmp_path, env=ENV)
    try:
        assert await started.start() == []
        yield started
    finally:
        await started.aclose()


async def run(tools: ToolRegistry, tool_name: str, **arguments: Any) -> ToolResult:
    tool = tools.get(tool_name)
    assert tool is not None, tool_name
    return await tool.run(
        tool.Args.model_validate(arguments), ToolContext(cwd=Path.cwd(), session_id="s", tool_call_id="t")
    )


def named(tools: ToolRegistry, name: str) -> Tool[Any]:
    tool = tools.get(name)
    assert tool is not None
    return tool


async def test_the_resource_tools_are_claude_codes_and_answer_as_its_do(hub: McpHub) -> None:
    tools = hub.tools
    assert {"ListMcpResourcesTool", "ReadMcpResourceTool"} <= set(tools.names())
    listing, reading = named(tools, "ListMcpResourcesTool"), named(tools, "ReadMcpResourceTool")
    assert listing.kind == reading.kind == "read"
    assert listing.spec.description.startswith("\nList available resources from configured MCP servers.\n")
    assert listing.spec.input_schema == {
        "type": "object",
        "properties": {"server": {"description": "Optional server name to filter resources by", "type": "string"}},
        "additionalProperties": False,
    }
    assert reading.spec.input_schema["required"] == ["server", "uri"]
    assert [
        call_summary(n, {"server": "notes", "uri": "notes://readme"}) for n in ("ListMcpResources", "ReadMcpResource")
    ] == [
        'List MCP resources from server "notes"',
        'Read resource "notes://readme" from server "notes"',
    ]  # (their calls shown in Claude Code's words, under either name)

    listed = await run(tools, "ListMcpResourcesTool")
    assert json.loads(str(listed.content)) == [
        {"uri": "notes://readme", "name": "readme", "mimeType": "text/plain",
         "description": "How the notes are kept", "server": "notes"},
        {"uri": "notes://logo", "name": "logo", "mimeType": "image/png", "server": "notes"},
    ]  # fmt: skip
    assert (await run(tools, "ListMcpResourcesTool", server="tiny")).content == (
        "No resources found. MCP servers may still provide tools even if they have no resources."
    )
    unknown = await run(tools, "ListMcpResourcesTool", server="nope")
    assert unknown.is_error and unknown.content == 'Server "nope" not found. Available servers: notes, tiny'

    text = await run(tools, "ReadMcpResourceTool", server="notes", uri="notes://readme")
    assert text.content == (
        '{"contents":[{"uri":"notes://readme","mimeType":"text/plain",'
        '"text":"Notes are kept in plain text, one per line."}]}'
    )
    logo = await run(tools, "ReadMcpResourceTool", server="notes", uri="notes://logo")
    [saved] = json.loads(str(logo.content))["contents"]
    png = Path(saved["blobSavedTo"])
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert saved["text"] == f"[Resource from notes at notes://logo] Binary content (image/png, 70 bytes) saved to {png}"
    missing = await run(tools, "ReadMcpResourceTool", server="notes", uri="notes://nope")  # (FastMCP's code 0)
    assert missing.is_error and "Unknown resource: notes://nope" in str(missing.content)
    gone = await run(tools, "ReadMcpResourceTool", server="notes", uri="notes://gone")  # (MCP's -32002)
    assert not gone.is_error and gone.content == (
        "Resource not found: notes://gone — it may have been deleted or the URI is stale. "
        "Re-run ListMcpResourcesTool to refresh."
    )

    await hub.stop("notes")  # (tiny, FastMCP's too, declares resources, if none: the tools stay, as in Claude Code)
    assert {"ListMcpResourcesTool", "ReadMcpResourceTool"} <= set(tools.names())
    await hub.stop("tiny")  # (no server connected declares them any more: the tools go)
    assert not {"ListMcpResourcesTool", "ReadMcpResourceTool"} & set(tools.names())


async def test_resource_and_prompt_list_changes_reach_the_conversation(hub: McpHub) -> None:
    notes = hub.servers[0]
    assert [prompt.name for prompt in notes.prompts] == ["greet"]
    assert await run(hub.tools, "mcp__notes__add_note", name="todo", text="buy milk") == ToolResult(
        content='{"result":"added"}', details={"server": "notes"}
    )
    await eventually(lambda: "notes://todo" in [resource.uri for resource in notes.resources])
    assert (await run(hub.tools, "ReadMcpResourceTool", server="notes", uri="notes://todo")).content == (
        '{"contents":[{"uri":"notes://todo","mimeType":"text/plain","text":"buy milk"}]}'
    )
    await run(hub.tools, "mcp__notes__add_prompt")
    await eventually(lambda: len(notes.prompts) == 2)
    assert [(c.name, c.description, c.arguments) for c in prompt_commands(hub.servers)] == [
        ("mcp__notes__greet", "Greets someone in a mood.", ("name", "mood")),
        ("mcp__notes__farewell", "Says goodbye.", ("name",)),
    ]


async def test_a_resource_mention_attaches_its_contents_as_claude_code_does(hub: McpHub) -> None:
    prompt = "compare @notes:notes://readme with @notes:notes://logo, not @someone:else or me@notes:notes://readme"
    assert resource_mentions(prompt) == [("notes", "notes://readme"), ("notes", "notes://logo"), ("someone", "else")]
    attached = Attachments()
    await attach_resources(prompt, Path.cwd(), hub.tools, KindGate(), attached)
    assert [block.text for block in attached.blocks] == [
        "Full contents of resource:",
        "Notes are kept in plain text, one per line.",
        "Do NOT read this resource again unless you think it may have changed, since you already have the full "
        "contents.",
        "[Binary content: image/png]",
    ]
    assert attached.notices == []


class Refusing(KindGate):
    def check(self, tool: Any, args: Any, call: Any) -> Any:
        from agentui.core.safety.permissions import Verdict

        return Verdict("deny", "Permission to use ReadMcpResourceTool has been denied.")


async def test_a_resource_mention_obeys_the_permission_rules(hub: McpHub) -> None:
    attached = Attachments()
    await attach_resources("see @notes:notes://readme", Path.cwd(), hub.tools, Refusing(), attached)
    assert attached.blocks == []
    assert attached.notices == [
        "@notes:notes://readme was not attached: permission to use ReadMcpResourceTool has been denied."
    ]


async def elicitation_hub(tmp_path: Path, answered: bool) -> tuple[McpHub, EventBus, list[ElicitationRequest]]:
    bus, asked = EventBus(), []
    bus.on(lambda event: asked.append(event) if isinstance(event, ElicitationRequest) else None)
    asks = Elicitations(bus, lambda: "session-1", answered)
    config = ServerConfig(name="notes", command=sys.executable, args=[NOTES])
    hub = McpHub([config], ToolRegistry(), tmp_path, env=ENV, elicit=asks.ask)
    assert await hub.start() == []
    return hub, bus, asked


async def test_an_elicitation_is_cancelled_where_no_one_answers(tmp_path: Path) -> None:
    hub, _, asked = await elicitation_hub(tmp_path, answered=False)
    try:
        assert (await run(hub.tools, "mcp__notes__deploy")).content == '{"result":"not deployed: cancel"}'
        assert asked == []
    finally:
        await hub.aclose()


@pytest.mark.parametrize(
    ("decision", "said"),
    [
        (PermissionDecision(behavior="allow", updated_input={"place": "prod", "hurry": "yes"}),
         '{"result":"deploying to prod (hurry: True)"}'),
        (PermissionDecision(behavior="deny"), '{"result":"not deployed: decline"}'),
        (PermissionDecision(behavior="deny", interrupt=True), '{"result":"not deployed: cancel"}'),
    ],
)  # fmt: skip
async def test_an_elicitation_is_an_event_and_the_persons_answer_goes_back(
    tmp_path: Path, decision: PermissionDecision, said: str
) -> None:
    import asyncio

    hub, _, asked = await elicitation_hub(tmp_path, answered=True)
    asks = hub.elicit
    assert asks is not None
    try:
        call = asyncio.ensure_future(run(hub.tools, "mcp__notes__deploy"))
        await eventually(lambda: asked)
        [request] = asked
        assert (request.server, request.message, request.session_id) == (
            "notes", "Where should it be deployed?", "session-1"
        )  # fmt: skip
        assert list(request.requested_schema["properties"]) == ["place", "hurry"]
        answer = asks.__self__  # (the Elicitations the hub asks through)
        assert answer.answer("elicit_unknown", decision) is False
        assert answer.answer(request.request_id, decision) is True
        assert (await call).content == said
    finally:
        await hub.aclose()


def test_a_pngs_size_reads_as_claude_codes() -> None:
    from agentui.core.extend.mcp.resource_tools import _size

    assert [_size(n) for n in (70, 1024, 1536, 5 * 1024 * 1024)] == ["70 bytes", "1KB", "1.5KB", "5MB"]
