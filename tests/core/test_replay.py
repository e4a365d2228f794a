"""replay(): real Claude Code sessions come back as the events a live run emits: every assistant message whole,
every tool call started and ended (with the details the session recorded), each event a valid JSON line of the bus."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentui.core.context.compaction import SUMMARY_PREFIX
from agentui.core.events import (
    CompactionEnd,
    MessageEnd,
    MessageStart,
    TextDelta,
    ToolEnd,
    ToolStart,
    UserMessage,
    parse_event,
)
from agentui.core.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from agentui.core.replay import replay
from agentui.core.session.reader import load_session

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "claude-projects"
SESSIONS = sorted(path for path in FIXTURES.glob("*/*.jsonl") if not path.name.startswith("agent-"))


@pytest.mark.parametrize("path", SESSIONS, ids=lambda path: path.stem[:8])
def test_a_claude_code_session_replays_as_the_events_of_a_live_run(path: Path) -> None:
    loaded = load_session(path)
    events = list(replay(loaded.messages, loaded.tool_details, loaded.session_id))
    assert all(parse_event(event.to_json()) == event for event in events)
    assistant = [m for m in loaded.messages if m.role == "assistant"]
    assert [e.message for e in events if isinstance(e, MessageEnd)] == assistant
    assert sum(isinstance(e, MessageStart) for e in events) == len(assistant)
    started = {e.tool_call_id: e for e in events if isinstance(e, ToolStart)}
    ended = {e.tool_call_id: e for e in events if isinstance(e, ToolEnd)}
    calls = {b.id: b for m in assistant for b in m.content if isinstance(b, ToolUseBlock)}
    assert started.keys() == calls.keys() and ended.keys() <= started.keys()
    for call_id, end in ended.items():
        assert end.name == calls[call_id].name and end.details == loaded.tool_details.get(call_id, {})
        assert events.index(started[call_id]) < events.index(end)
    said = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert said == "".join(m.text for m in assistant)
    for event in events:  # (a user line replays without its tool results, which are the ToolEnds)
        if isinstance(event, UserMessage):
            assert not any(isinstance(b, ToolResultBlock) for b in event.message.content)


def test_summaries_interrupts_and_details_replay_as_they_happened() -> None:
    call = ToolUseBlock(id="t1", name="Edit", input={"file_path": "a.py"})
    messages = [
        Message.user(SUMMARY_PREFIX + "Earlier we did X."),
        Message(role="assistant", id="m1", content=[TextBlock(text="Editing."), call]),
        Message(role="user", content=[ToolResultBlock(tool_use_id="t1", content="ok")]),
        Message.user("[Request interrupted by user]"),
    ]
    events = list(replay(messages, {"t1": {"structuredPatch": [1]}}, "s"))
    kinds = [event.type for event in events]
    assert kinds == [
        "compaction_end", "message_start", "text_delta", "content_block_end", "message_end", "tool_start", "tool_end",
        "user_message",
    ]  # fmt: skip
    assert isinstance(events[0], CompactionEnd) and events[0].summary == "Earlier we did X."
    assert isinstance(events[6], ToolEnd) and events[6].details == {"structuredPatch": [1]} and events[6].name == "Edit"
    assert isinstance(events[7], UserMessage) and events[7].source == "interrupt"


def test_a_call_the_person_refused_in_claude_code_replays_as_denied() -> None:
    """Claude Code records a refusal only in the result's text; its replay says so as a field, as a live one does."""
    from agentui.core.messages import REFUSED

    path = FIXTURES / "-src-deep-manifest" / "a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl"
    loaded = load_session(path)
    ends = [e for e in replay(loaded.messages, loaded.tool_details, "s") if isinstance(e, ToolEnd)]
    refused = [e for e in ends if isinstance(e.content, str) and e.content.startswith(REFUSED)]
    assert refused and all(e.denied for e in refused)
    assert any(not e.denied for e in ends)
