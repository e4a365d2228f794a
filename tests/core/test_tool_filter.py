"""The tool filter against the loopback Messages API: with more tools than `tool_filter_limit`, the request carries
the built-in tools, ToolSearch and the tools the prompt's words and past use point to; a tool ToolSearch finds is
sent on every request after, added at the end, so each request's tools begin with the previous one's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentui.core.assembly import open_conversation
from agentui.core.conversation import Conversation, Launch
from agentui.core.profile import Profile, save_profile
from agentui.core.project import PermissionOptions
from agentui.core.providers.anthropic import AnthropicProvider
from agentui.core.settings import Settings
from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolResult
from tests.core.test_budgets import answering
from tests.support.loopback import LoopbackServer

SERVICES = ("jira", "slack", "github", "linear", "notion", "sentry", "datadog", "stripe")
ACTIONS = (
    "create_item", "list_items", "get_item", "update_item", "delete_item", "search", "comment", "archive", "ping",
)  # fmt: skip


class Fake(Tool[ToolArgs]):
    """An MCP-like tool that only says its name."""

    Args = ToolArgs
    kind = "read"

    def __init__(self, name: str, description: str) -> None:
        self.name, self.description = name, description  # type: ignore[misc]

    async def run(self, args: ToolArgs, ctx: ToolContext) -> ToolResult:
        return ToolResult(f"{self.name} ran")


def opened(tmp_path: Path, server: LoopbackServer, limit: int = 60) -> Conversation:
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    settings = Settings(provider="anthropic", model="claude-sonnet-4-5", base_url=server.url, api_key="x",
                        tool_filter_limit=limit)  # fmt: skip
    conversation = open_conversation(
        Launch(settings, cwd=root, permissions=PermissionOptions(mode="bypassPermissions")),
        provider=AnthropicProvider(base_url=server.url, api_key="x"),
    )
    for service in SERVICES:  # 72 tools of eight servers
        for action in ACTIONS:
            said = f"{action.replace('_', ' ')} in {service.title()}"
            conversation.project.tools.register(Fake(f"mcp__{service}__{action}", said))
    return conversation


def names(request: Any) -> list[str]:
    return [tool["name"] for tool in request.json().get("tools", [])]


async def test_many_tools_are_filtered_by_the_prompt_and_toolsearch_adds_the_rest_at_the_end(
    tmp_path: Path, server: LoopbackServer
) -> None:
    search = {"type": "tool_use", "id": "s1", "name": "ToolSearch", "input": {"query": "select:mcp__stripe__ping"}}
    ping = {"type": "tool_use", "id": "p1", "name": "mcp__stripe__ping", "input": {}}
    steps = iter([[search], [ping], [{"type": "text", "text": "Done."}], [{"type": "text", "text": "Again."}]])
    answering(server, lambda body: (next(steps), 100))
    conversation = opened(tmp_path, server)
    try:
        await conversation.send("Comment on the Jira ticket about the login bug")
        await conversation.send("and once more")
    finally:
        await conversation.aclose()
    sent = [names(request) for request in server.requests]
    first = sent[0]
    assert "ToolSearch" in first and "Bash" in first and "Read" in first  # (built-in tools always go)
    chosen = [name for name in first if name.startswith("mcp__")]
    assert chosen[0] == "mcp__jira__comment" and len(first) <= 60  # (best first: two of the prompt's words)
    assert {f"mcp__jira__{action}" for action in ACTIONS} <= set(chosen)  # (then each with one of its words)
    assert "mcp__slack__comment" in chosen and "mcp__stripe__ping" not in chosen and "mcp__slack__archive" not in chosen
    assert sent[1] == [*first, "mcp__stripe__ping"]  # (found: added at the end, nothing reordered)
    assert sent[2] == sent[1] and sent[3][: len(sent[1])] == sent[1]
    ran = [r.json()["messages"][-1]["content"][0] for r in server.requests[1:3]]
    assert "mcp__stripe__ping" in str(ran[0]["content"]) and ran[1]["content"] == "mcp__stripe__ping ran"


async def test_past_use_from_the_profile_brings_a_tool_without_a_word_for_it(
    tmp_path: Path, server: LoopbackServer
) -> None:
    answering(server, lambda body: ([{"type": "text", "text": "Done."}], 100))
    (tmp_path / "project").mkdir()
    save_profile(tmp_path / "project", Profile(tools={"mcp__sentry__list_items": 12}))  # (used before, here)
    conversation = opened(tmp_path, server)
    try:
        await conversation.send("hello")
    finally:
        await conversation.aclose()
    first = names(server.requests[0])
    assert "mcp__sentry__list_items" in first and "mcp__sentry__ping" not in first


async def test_with_few_tools_everything_is_sent_and_no_toolsearch(tmp_path: Path, server: LoopbackServer) -> None:
    answering(server, lambda body: ([{"type": "text", "text": "Done."}], 100))
    conversation = opened(tmp_path, server, limit=500)
    try:
        await conversation.send("hello")
    finally:
        await conversation.aclose()
    first = names(server.requests[0])
    assert "ToolSearch" not in first and "mcp__stripe__ping" in first and len(first) > 72


async def test_toolsearch_by_keywords_finds_held_back_tools_best_first(tmp_path: Path, server: LoopbackServer) -> None:
    query = {"query": "+sentry list items", "max_results": 2}
    search = {"type": "tool_use", "id": "s1", "name": "ToolSearch", "input": query}
    steps = iter([[search], [{"type": "text", "text": "Found."}]])
    answering(server, lambda body: (next(steps), 100))
    conversation = opened(tmp_path, server)
    try:
        await conversation.send("hello")
    finally:
        await conversation.aclose()
    said = server.requests[1].json()["messages"][-1]["content"][0]["content"]
    assert said.startswith("Found 2 tool(s), available to call now: mcp__sentry__list_items, mcp__sentry__")
    assert '"parameters": {' in said and "mcp__slack__" not in said
    added = names(server.requests[1])[len(names(server.requests[0])) :]
    assert added[0] == "mcp__sentry__list_items" and len(added) == 2
