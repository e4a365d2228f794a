"""Context advisories against the loopback Messages API: as the context passes 60% and then 80% of the model's window,
one ContextAdvisory each, not again while the window stays full; after a compaction they may fire again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentui.core.assembly import open_conversation
from agentui.core.conversation import Launch
from agentui.core.events import ContextAdvisory, Event
from agentui.core.project import PermissionOptions
from agentui.core.providers.anthropic import AnthropicProvider
from agentui.core.run_options import ModelOptions
from agentui.core.settings import Settings
from tests.core.test_budgets import bash
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream

TEXT = [{"type": "text", "text": "Done."}]


def scripted(server: LoopbackServer, answers: list[tuple[list[dict[str, Any]], int]]) -> None:
    """Each request gets the next answer: its blocks, and the input tokens it reports reading."""
    left = list(answers)

    def reply(request: RecordedRequest) -> Reply:
        blocks, read = left.pop(0)
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        usage = {"input_tokens": read, "output_tokens": 10}
        return Reply(chunks=anthropic_stream(blocks, stop_reason=stop, usage=usage, model="claude-sonnet-4-5"))

    server.responder = reply


async def test_advisories_fire_at_60_and_80_percent_of_the_window_once_each_and_again_after_compaction(
    tmp_path: Path, server: LoopbackServer
) -> None:
    window = 100_000
    scripted(
        server,
        [
            ([bash("b1", "true")], 30_000),  # 30%: nothing
            ([bash("b2", "true")], 62_000),  # 62%: past 60
            ([bash("b3", "true")], 70_000),  # 70%: said already
            ([bash("b4", "true")], 83_000),  # 83%: past 80
            (TEXT, 85_000),  # still past 80: said already
            ([{"type": "text", "text": "<summary>the work so far</summary>"}], 1_000),  # the compaction's call
            (TEXT, 65_000),  # after the compaction: past 60 again
        ],
    )
    root = tmp_path / "project"
    root.mkdir()
    opened = open_conversation(
        Launch(Settings(provider="anthropic", model="claude-sonnet-4-5", base_url=server.url, api_key="x",
                        options=ModelOptions(context_window=window, auto_compact=False)),
               cwd=root, permissions=PermissionOptions(mode="bypassPermissions")),
        provider=AnthropicProvider(base_url=server.url, api_key="x"),
    )  # fmt: skip
    events: list[Event] = []
    opened.on(events.append)
    try:
        await opened.send("work")
        await opened.compact()
        await opened.send("more")
    finally:
        await opened.aclose()
    advised = [event for event in events if isinstance(event, ContextAdvisory)]
    assert [event.threshold for event in advised] == [60, 80, 60]
    assert [round(event.context_percent) for event in advised] == [62, 83, 65]
    assert advised[1].context_tokens == 83_010
    assert ContextAdvisory.model_validate_json(advised[0].to_json()) == advised[0]  # (a JSON line, as every event)
