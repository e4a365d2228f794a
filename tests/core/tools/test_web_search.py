"""WebSearch through the Messages API's server-side search, against the loopback server: the side request carries the
server tool and the domains, the result reads as Claude Code's, the person is asked first; other providers are
told it is not available, and the tool is not offered to their models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentui.core.assembly import open_conversation as assemble
from agentui.core.conversation import Conversation, Launch
from agentui.core.events import Event, PermissionDecision, PermissionRequest, ToolEnd
from agentui.core.project import PermissionOptions
from agentui.core.providers.anthropic import AnthropicProvider
from agentui.core.session.lookup import SessionRequest
from agentui.core.settings import Settings
from tests.core.test_task_state import open_conversation, say, use
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream

RESULTS = [
    {"type": "web_search_result", "title": "Markdown · Textual", "url": "https://textual.textualize.io/widgets/markdown/",
     "encrypted_content": "abc", "page_age": None},
    {"type": "web_search_result", "title": "MarkdownViewer", "url": "https://textual.textualize.io/widgets/markdown_viewer/",
     "encrypted_content": "def", "page_age": "2 days ago"},
]  # fmt: skip


def searching_model(server: LoopbackServer, calls: list[dict[str, Any]], search: list[dict[str, Any]]) -> None:
    """The main model calls WebSearch with each of `calls` in turn, then answers; a search request is answered with
    the server tool's blocks (`search`, then some text)."""
    turns: list[RecordedRequest] = []

    def model(request: RecordedRequest) -> Reply:
        body = request.json()
        if any(tool.get("type") == "web_search_20250305" for tool in body.get("tools", [])):
            blocks = [
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
                *search,
                {
                    "type": "text",
                    "text": "Textual has a Markdown widget.",
                    "citations": [
                        {
                            "type": "web_search_result_location",
                            "url": RESULTS[0]["url"],
                            "title": "Markdown",
                            "encrypted_index": "x",
                            "cited_text": "Markdown",
                        }
                    ],
                },
            ]
            return Reply(chunks=anthropic_stream(blocks))
        turns.append(request)
        if len(turns) <= len(calls):
            call = {"type": "tool_use", "id": f"s{len(turns)}", "name": "WebSearch", "input": calls[len(turns) - 1]}
            return Reply(chunks=anthropic_stream([call], stop_reason="tool_use"))
        return Reply(chunks=anthropic_stream([{"type": "text", "text": "Done."}]))

    server.responder = model


def anthropic_conversation(tmp_path: Path, server: LoopbackServer) -> tuple[Conversation, list[Event]]:
    root = tmp_path / "project"
    root.mkdir()
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    launch = Launch(
        Settings(provider="anthropic", model="claude-sonnet-4-5", base_url=server.url, api_key="x"),
        cwd=root,
        permissions=PermissionOptions(),
        session=SessionRequest(),
    )
    conversation = assemble(launch, provider=AnthropicProvider(base_url=server.url, api_key="x"), env=env)
    events: list[Event] = []
    conversation.on(events.append)
    return conversation, events


def answer_all(conversation: Conversation, behavior: str = "allow") -> list[str]:
    asked: list[str] = []

    def listener(event: Event) -> None:
        if isinstance(event, PermissionRequest):
            asked.append(event.reason)
            conversation.answer(event.request_id, PermissionDecision(behavior=behavior))  # type: ignore[arg-type]

    conversation.on(listener)
    return asked


async def test_a_search_by_the_server_tool_reads_as_claude_codes(tmp_path: Path, server: LoopbackServer) -> None:
    searching_model(
        server,
        [{"query": "textual markdown widget", "allowed_domains": ["textual.textualize.io"]}],
        [{"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": RESULTS}],
    )
    conversation, events = anthropic_conversation(tmp_path, server)
    asked = answer_all(conversation)
    result = await conversation.send("find the markdown widget")
    await conversation.aclose()
    assert result.text == "Done."
    assert asked == ["WebSearch wants to search the web for 'textual markdown widget'"]
    [search] = [r.json() for r in server.requests if "web_search" in json.dumps(r.json().get("tools", []))]
    assert search["tools"] == [
        {
            "type": "web_search_20250305",
            "name": "web_search",
            "max_uses": 8,
            "allowed_domains": ["textual.textualize.io"],
        }
    ]
    assert search["messages"][0]["content"][0]["text"] == "Perform a web search for the query: textual markdown widget"
    [end] = [e for e in events if isinstance(e, ToolEnd)]
    links = [{"title": r["title"], "url": r["url"]} for r in RESULTS]
    assert end.content == (
        'Web search results for query: "textual markdown widget"\n\n'
        f"Links: {json.dumps(links, ensure_ascii=False, separators=(',', ':'))}\n\n"
        "Textual has a Markdown widget.\n\n\n"
        "REMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks."
    )
    assert "Markdown · Textual" in str(end.content)  # as written, not escaped
    offered = [tool["name"] for tool in server.requests[0].json()["tools"] if "name" in tool]
    assert "WebSearch" in offered and "WebFetch" in offered
    # The search's tokens count in the session's usage (three calls of 12 input tokens each).
    assert conversation.usage[0].input_tokens == 36


async def test_a_failed_search_and_bad_arguments_are_one_sentence(tmp_path: Path, server: LoopbackServer) -> None:
    failed = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
              "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}}  # fmt: skip
    searching_model(
        server,
        [
            {"query": "anything"},
            {"query": "x"},
            {"query": "xy", "allowed_domains": ["a.com"], "blocked_domains": ["b"]},
        ],
        [failed],
    )
    conversation, events = anthropic_conversation(tmp_path, server)
    answer_all(conversation)
    await conversation.send("search")
    await conversation.aclose()
    first, short, both = [e for e in events if isinstance(e, ToolEnd)]
    assert first.is_error and first.content == "The web search failed (max_uses_exceeded)."
    assert short.is_error and "query: String should have at least 2 characters" in str(short.content)
    assert both.is_error and "give allowed_domains or blocked_domains, not both" in str(both.content)


async def test_other_providers_are_not_offered_it_and_are_told_why(tmp_path: Path) -> None:
    conversation, provider, events = open_conversation(tmp_path, [use("WebSearch", "w1", query="news"), say("ok")])
    asked = answer_all(conversation)
    await conversation.send("search")
    await conversation.aclose()
    assert asked == []  # (nothing would leave the machine: nothing to ask about)
    assert "WebSearch" not in [tool.name for tool in provider.requests[0].tools]
    assert "WebFetch" in [tool.name for tool in provider.requests[0].tools]
    [end] = [e for e in events if isinstance(e, ToolEnd)]
    assert end.is_error and str(end.content).startswith("WebSearch is not available with this provider (scripted)")
