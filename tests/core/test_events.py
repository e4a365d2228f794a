"""Events serialise to one JSON line and back; the bus delivers to callbacks and subscribers without blocking."""

from __future__ import annotations

import asyncio
import json
import typing
from datetime import UTC, datetime

import pytest

from agentui.core import events as ev
from agentui.core.messages import Message, TextBlock, ToolUseBlock, Usage

SID = "0b1c2d3e-0000-4000-8000-000000000000"


def one_of_each() -> list[ev.Event]:
    usage = Usage(input_tokens=3, output_tokens=4, cache_read_input_tokens=5)
    tool_use = ToolUseBlock(id="toolu_1", name="Read", input={"file_path": "a.py"})
    return [
        ev.AgentStart(session_id=SID, model="m", provider="anthropic"),
        ev.AgentEnd(session_id=SID, stop="error", num_turns=2, usage=usage, error="It broke."),
        ev.TurnStart(session_id=SID, turn=1),
        ev.TurnEnd(session_id=SID, turn=1, stop_reason="tool_use"),
        ev.UserMessage(session_id=SID, message=Message.user("hi"), source="prompt"),
        ev.MessageStart(session_id=SID, message_id="msg_1", model="m"),
        ev.TextDelta(session_id=SID, index=0, text="Hel"),
        ev.ThinkingDelta(session_id=SID, index=0, text="hmm"),
        ev.ToolUseDelta(session_id=SID, index=1, tool_call_id="toolu_1", name="Read", partial_json='{"fi'),
        ev.ContentBlockEnd(session_id=SID, index=1, block=tool_use, message_id="msg_1"),
        ev.MessageEnd(
            session_id=SID,
            message=Message(
                role="assistant",
                content=[TextBlock(text="x"), tool_use],
                id="msg_1",
                stop_reason="tool_use",
                usage=usage,
            ),
        ),
        ev.ToolStart(session_id=SID, tool_call_id="toolu_1", name="Read", input={"file_path": "a.py"}),
        ev.ToolProgress(session_id=SID, tool_call_id="toolu_1", text="line\n"),
        ev.ToolEnd(
            session_id=SID,
            tool_call_id="toolu_1",
            name="Read",
            content=[TextBlock(text="1\tx")],
            details={"lines": 1, "missing": None},
        ),
        ev.PermissionRequest(
            session_id=SID,
            request_id="r1",
            tool_call_id="toolu_1",
            tool_name="Bash",
            input={"command": "ls"},
            reason="Bash can run commands",
        ),
        ev.PermissionResolved(
            session_id=SID,
            request_id="r1",
            tool_call_id="toolu_1",
            decision=ev.PermissionDecision(behavior="deny", message="use git status"),
        ),
        ev.UsageUpdate(session_id=SID, usage=usage, total=usage, cost_usd=0.25, context_tokens=12, context_percent=0.1),
        ev.CompactionStart(session_id=SID, trigger="auto", pre_tokens=180_000),
        ev.CompactionEnd(session_id=SID, summary="so far", post_tokens=9_000),
        ev.Retry(session_id=SID, attempt=2, max_attempts=10, delay=0.5, reason="Overloaded."),
        ev.LimitWait(
            session_id=SID, until=datetime(2026, 11, 28, 15, tzinfo=UTC), reason="Usage limit.", provider="anthropic"
        ),
        ev.Error(session_id=SID, message="The API key was rejected.", kind="authentication"),
        ev.TaskListUpdate(
            session_id=SID,
            tasks=[ev.TaskItem(id="1", subject="Run the tests", status="in_progress", blocked_by=("2",))],
        ),
        ev.BackgroundShellUpdate(
            session_id=SID, shell_id="b1a2b3c", command="npm run dev", status="failed", exit_code=1, output_path="/t"
        ),
        ev.BackgroundAgentUpdate(
            session_id=SID,
            task_id="a1",
            tool_call_id="t1",
            description="Find notes",
            agent_type="Explore",
            status="completed",
            output_path="/t",
            result="Found.",
            total_tokens=12,
            tool_uses=1,
            duration_ms=30,
        ),
        ev.Notice(session_id=SID, level="warning", message="The PreToolUse hook `lint.sh` timed out."),
        ev.PromptRejected(session_id=SID, reason="no secrets in prompts", filter="check-prompt"),
        ev.SessionRotated(session_id=SID, new_session_id="s2", idle_minutes=42.5),
        ev.ContextAdvisory(session_id=SID, threshold=60, context_percent=61.5, context_tokens=123_000),
        ev.ElicitationRequest(
            session_id=SID,
            request_id="elicit_1",
            server="deployer",
            message="Where should it be deployed?",
            requested_schema={"type": "object", "properties": {"place": {"type": "string"}}, "required": ["place"]},
        ),
        ev.FileClaim(session_id=SID, path="src/a.py", agent="Explore agent 1a2b3c", state="waiting", holder="main"),
        ev.Finding(session_id=SID, agent="Explore agent 1a2b3c", text="The config is in settings/app.toml."),
        ev.DoomLoop(
            session_id=SID,
            agent="main",
            tool_name="Bash",
            input={"command": "pytest"},
            error="1 failed",
            count=3,
            action="nudge",
            message="<system-reminder>\nThe same call has now failed 3 times.\n</system-reminder>",
        ),
    ]


def test_the_sample_covers_every_event_type() -> None:
    union = typing.get_args(typing.get_args(ev.Event)[0])
    assert set(union) == {type(event) for event in one_of_each()}


@pytest.mark.parametrize("event", one_of_each(), ids=lambda e: e.type)
def test_every_event_is_one_json_line_that_round_trips(event: ev.Event) -> None:
    line = event.to_json()
    assert "\n" not in line
    data = json.loads(line)
    assert list(data)[:2] == ["type", "session_id"]
    assert data["session_id"] == SID
    assert ev.parse_event(line) == event


def test_callbacks_see_every_event_in_order_and_a_failing_one_does_not_stop_the_rest() -> None:
    bus = ev.EventBus()
    seen: list[str] = []

    def broken(event: ev.Event) -> None:
        raise ValueError("subscriber bug")

    bus.on(broken)
    remove = bus.on(lambda event: seen.append(event.text))  # type: ignore[attr-defined]
    for piece in "abc":
        bus.emit(ev.TextDelta(session_id=SID, index=0, text=piece))
    remove()
    bus.emit(ev.TextDelta(session_id=SID, index=0, text="d"))
    assert seen == ["a", "b", "c"]


async def test_a_slow_subscriber_gets_deltas_merged_but_every_other_event_in_order() -> None:
    bus = ev.EventBus()
    slow = bus.subscribe()
    expected_text = ""
    for i in range(5000):
        bus.emit(ev.TextDelta(session_id=SID, index=0, text=str(i % 10)))
        expected_text += str(i % 10)
    bus.emit(ev.ToolStart(session_id=SID, tool_call_id="t", name="Echo", input={}))
    bus.emit(ev.TextDelta(session_id=SID, index=1, text="after"))
    bus.emit(ev.TextDelta(session_id=SID, index=2, text="other block"))
    bus.emit(ev.AgentEnd(session_id=SID, stop="end_turn", num_turns=1, usage=Usage()))
    assert slow.pending() == 5  # 5000 deltas became one; nothing else was merged

    received = []
    async for event in slow:
        received.append(event)
        if event.type == "agent_end":
            break
    assert [e.type for e in received] == ["text_delta", "tool_start", "text_delta", "text_delta", "agent_end"]
    assert received[0].text == expected_text  # type: ignore[union-attr]
    assert [received[2].text, received[3].text] == ["after", "other block"]  # type: ignore[union-attr]


async def test_a_subscriber_that_keeps_up_sees_each_delta() -> None:
    bus = ev.EventBus()
    subscription = bus.subscribe()
    got: list[str] = []

    async def reader() -> None:
        async for event in subscription:
            got.append(event.text)  # type: ignore[union-attr]

    task = asyncio.create_task(reader())
    for piece in ["a", "b", "c"]:
        bus.emit(ev.TextDelta(session_id=SID, index=0, text=piece))
        await asyncio.sleep(0)  # let the reader take it before the next one arrives
    subscription.close()
    await asyncio.wait_for(task, 30)
    assert got == ["a", "b", "c"]


async def test_emit_never_waits_for_subscribers_and_a_closed_one_receives_nothing() -> None:
    bus = ev.EventBus()
    never_reads = bus.subscribe()
    closed = bus.subscribe()
    closed.close()
    for i in range(100):
        bus.emit(ev.ToolProgress(session_id=SID, tool_call_id="t", text=str(i)))
    assert never_reads.pending() == 100  # kept, not dropped: tool events are never lost
    assert closed.pending() == 0
    assert [e async for e in closed] == []
