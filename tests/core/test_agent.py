"""The agent loop, driven by the scripted provider: tool turns, permissions, cancel, steering, follow-ups, limits."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agentui.core.events import AgentEnd, Event, PermissionDecision, PermissionRequest, TextDelta, ToolEnd, ToolStart
from agentui.core.loop.agent import INTERRUPTED_BY_USER, INTERRUPTED_FOR_TOOL_USE, Agent, AgentConfig
from agentui.core.messages import Message, TextBlock, ToolResultBlock
from agentui.core.providers.anthropic import AnthropicProvider
from agentui.core.providers.retry import RetryPolicy
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.run_options import ModelOptions
from agentui.core.safety.permissions.gate import KindGate, Verdict
from agentui.core.tools.base import ToolRegistry
from tests.conftest import assert_valid_history
from tests.support.agents import new_agent
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream
from tests.support.tools import Echo, Explode, Meet, Sleep, WriteNote


def tool_call(name: str, call_id: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def _split(config: dict[str, Any]) -> dict[str, Any]:
    """AgentConfig's own fields, and the rest as its ModelOptions."""
    own = {key: value for key, value in config.items() if key in AgentConfig.model_fields}
    options = {key: value for key, value in config.items() if key not in own}
    return {**own, "options": ModelOptions(**options)}


def make_agent(script: list[dict[str, Any]], *tools: Any, **config: Any) -> tuple[Agent, ScriptedProvider, list[Event]]:
    provider = ScriptedProvider(script)
    agent = new_agent(
        provider,
        AgentConfig(model="scripted", system_prompt="sys", **_split(config)),
        tools=ToolRegistry(tools),
        retry=RetryPolicy(base_delay=0.01),
    )
    seen: list[Event] = []
    agent.bus.on(seen.append)
    return agent, provider, seen


def results_of(message: Message) -> dict[str, ToolResultBlock]:
    return {b.tool_use_id: b for b in message.content if isinstance(b, ToolResultBlock)}


async def test_a_text_answer_emits_the_lifecycle_in_order() -> None:
    agent, _, seen = make_agent([{"text": "Hello there.", "chunk_size": 4}])
    result = await agent.prompt("hi")
    assert result.stop == "end_turn" and result.text == "Hello there." and result.num_turns == 1
    kinds = [e.type for e in seen]
    assert kinds == [
        "agent_start",
        "user_message",
        "turn_start",
        "message_start",
        "text_delta",
        "text_delta",
        "text_delta",
        "content_block_end",
        "message_end",
        "usage",
        "turn_end",
        "agent_end",
    ]
    assert "".join(e.text for e in seen if isinstance(e, TextDelta)) == "Hello there."
    assert {e.session_id for e in seen} == {agent.session_id}


async def test_tool_calls_run_and_their_results_go_back_to_the_model() -> None:
    agent, provider, seen = make_agent(
        [
            {"content": [{"type": "text", "text": "Let me check."}, tool_call("Echo", "t1", text="pong")]},
            {"text": "It said pong."},
        ],
        Echo(),
    )
    result = await agent.prompt("ping")
    assert result.text == "It said pong." and result.num_turns == 2
    first, second = provider.requests
    assert [t.name for t in first.tools] == ["Echo"]
    assert first.tools[0].input_schema["additionalProperties"] is False
    assert results_of(second.messages[-1])["t1"] == ToolResultBlock(tool_use_id="t1", content="pong")
    start = next(e for e in seen if isinstance(e, ToolStart))
    assert start.input == {"text": "pong"}
    kinds = [e.type for e in seen]
    assert (
        kinds.index("content_block_end")
        < kinds.index("tool_start")
        < kinds.index("tool_progress")
        < kinds.index("tool_end")
    )
    end = next(e for e in seen if e.type == "tool_end")
    assert end.details == {"length": 4} and not end.is_error  # type: ignore[union-attr]
    assert_valid_history(agent.messages)


async def test_read_only_calls_of_one_response_run_concurrently() -> None:
    calls = [tool_call("Meet", f"m{i}", who=f"reader {i}") for i in range(3)]
    agent, provider, _ = make_agent([{"content": calls}, {"text": "All met."}], Meet(parties=3))
    result = await asyncio.wait_for(agent.prompt("go"), 30)
    assert result.text == "All met."  # Meet only returns when all three run at once
    results = results_of(provider.requests[1].messages[-1])
    assert [results[f"m{i}"].content for i in range(3)] == [f"reader {i} met the others" for i in range(3)]


async def test_writes_ask_permission_and_run_in_order_once_allowed() -> None:
    writer = WriteNote()
    calls = [tool_call("WriteNote", "w1", note="first"), tool_call("WriteNote", "w2", note="second")]
    agent, _, _ = make_agent([{"content": calls}, {"text": "Done."}], writer)
    run = agent.start("write two notes")
    asked = []
    async for event in run:
        if isinstance(event, PermissionRequest):
            asked.append(event.input["note"])
            assert event.reason == "WriteNote can modify files"
            run.respond_permission(event.request_id, PermissionDecision(behavior="allow"))
    result = await run.result()
    assert result.text == "Done."
    assert asked == ["first", "second"]  # "once" covers one call only
    assert writer.written == ["first", "second"]


async def test_allow_for_the_session_stops_further_asks() -> None:
    writer = WriteNote()
    agent, _, _ = make_agent(
        [
            {"content": [tool_call("WriteNote", "w1", note="a")]},
            {"content": [tool_call("WriteNote", "w2", note="b")]},
            {"text": "ok"},
        ],
        writer,
    )
    run = agent.start("go")
    asked = 0
    async for event in run:
        if isinstance(event, PermissionRequest):
            asked += 1
            run.respond_permission(event.request_id, PermissionDecision(behavior="allow", scope="session"))
    await run.result()
    assert asked == 1 and writer.written == ["a", "b"]


async def test_a_denied_call_tells_the_model_why_and_writes_nothing() -> None:
    writer = WriteNote()
    agent, provider, seen = make_agent(
        [{"content": [tool_call("WriteNote", "w1", note="x")]}, {"text": "Understood."}], writer
    )
    agent.bus.on(
        lambda e: (
            agent.respond_permission(e.request_id, PermissionDecision(behavior="deny", message="use the docs folder"))
            if isinstance(e, PermissionRequest)
            else None
        )
    )
    result = await agent.prompt("write")
    assert result.text == "Understood." and writer.written == []
    (end,) = [e for e in seen if isinstance(e, ToolEnd)]
    assert end.denied and end.details["denied"]  # (a field; the details keep it for the session and the wire)
    denied = results_of(provider.requests[1].messages[-1])["w1"]
    assert (
        denied.is_error
        and "rejected" in denied.content
        and denied.content.endswith("The user said: use the docs folder")
    )


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (tool_call("Nope", "x1"), "There is no tool named 'Nope'; the available tools are: Echo, Explode."),
        (
            tool_call("Echo", "x2", text=3),
            "Echo was not run: invalid arguments (text: Input should be a valid string).",
        ),
        (
            tool_call("Echo", "x3", text="a", extra=1),
            "Echo was not run: invalid arguments (extra: Extra inputs are not permitted).",
        ),
        (tool_call("Explode", "x4", text="now"), "Explode failed: RuntimeError: boom: now."),
    ],
)
async def test_bad_calls_become_errors_the_model_can_correct(call: dict[str, Any], expected: str) -> None:
    agent, provider, _ = make_agent([{"content": [call]}, {"text": "Sorry."}], Echo(), Explode())
    result = await agent.prompt("go")
    assert result.stop == "end_turn"
    answer = results_of(provider.requests[1].messages[-1])[call["id"]]
    assert answer.is_error and answer.content == expected


async def test_arguments_that_are_not_json_become_an_error_result() -> None:
    from agentui.core.messages import Usage
    from agentui.core.providers.stream import BlockDelta, BlockStart, BlockStop, StreamEnd, StreamStart

    class BrokenJSON(ScriptedProvider):
        async def stream(self, request):  # type: ignore[no-untyped-def]
            self.requests.append(request)
            if len(self.requests) == 1:
                yield StreamStart("m1", "x", Usage())
                yield BlockStart(0, "tool_use", tool_id="t1", tool_name="Echo")
                yield BlockDelta(0, "input_json", '{"text": "unterminated')
                yield BlockStop(0)
                yield StreamEnd("tool_use", Usage())
            else:
                async for event in super().stream(request):
                    yield event

    provider = BrokenJSON([{"text": "retrying properly"}])
    agent = new_agent(provider, AgentConfig(model="x"), tools=ToolRegistry([Echo()]))
    await agent.prompt("go")
    answer = results_of(provider.requests[1].messages[-1])["t1"]
    assert answer.is_error and answer.content.startswith("Echo was not run: the arguments were not valid JSON")


async def test_cancel_mid_stream_keeps_the_partial_text_and_leaves_a_valid_history() -> None:
    agent, _, _ = make_agent([{"text": "word " * 200, "chunk_size": 5, "delay": 0.01}])
    run = agent.start("talk")
    async for event in run:
        answered = any(m.role == "assistant" for m in agent.messages)
        if isinstance(event, TextDelta) and event.text == "word " and not answered:
            run.cancel()
    result = await asyncio.wait_for(run.result(), 30)
    assert result.stop == "cancelled"
    partial = agent.messages[-2]
    assert partial.role == "assistant" and partial.stop_reason == "cancelled"
    assert partial.text.startswith("word ") and len(partial.text) < len("word " * 200)
    assert agent.messages[-1].text == INTERRUPTED_BY_USER
    assert_valid_history(agent.messages)


async def test_cancel_mid_tool_stops_it_and_answers_the_call() -> None:
    sleeper = Sleep()
    agent, _, seen = make_agent(
        [{"content": [tool_call("Echo", "e1", text="done first"), tool_call("Sleep", "s1", seconds=600)]}],
        Echo(),
        sleeper,
    )
    agent.bus.on(
        lambda e: (
            agent.respond_permission(e.request_id, PermissionDecision(behavior="allow"))
            if isinstance(e, PermissionRequest)
            else None
        )
    )
    task = asyncio.create_task(agent.prompt("sleep"))
    await asyncio.wait_for(sleeper.started.wait(), 30)
    agent.cancel()
    result = await asyncio.wait_for(task, 30)  # far less than the 600 s the tool wanted
    assert result.stop == "cancelled" and sleeper.cancelled
    results = results_of(agent.messages[-2])
    assert results["e1"].content == "done first" and not results["e1"].is_error  # a finished result is kept
    assert results["s1"].is_error and "Interrupted by user" in results["s1"].content
    assert agent.messages[-1].text == INTERRUPTED_FOR_TOOL_USE
    assert [e.tool_call_id for e in seen if e.type == "tool_end"] == ["e1", "s1"]  # type: ignore[union-attr]
    assert_valid_history(agent.messages)


async def test_cancel_while_a_permission_request_waits() -> None:
    agent, _, _ = make_agent([{"content": [tool_call("WriteNote", "w1", note="x")]}], WriteNote())
    run = agent.start("write")
    requests = []
    async for event in run:
        if isinstance(event, PermissionRequest):
            requests.append(event.request_id)
            run.cancel()
    result = await asyncio.wait_for(run.result(), 30)
    assert result.stop == "cancelled" and len(requests) == 1
    assert not agent.respond_permission(requests[0], PermissionDecision(behavior="allow"))  # too late
    assert_valid_history(agent.messages)


async def test_cancel_during_the_wait_between_retries() -> None:
    agent, provider, _ = make_agent([{"error": {"status": 529, "message": "Overloaded", "retry_after": 60}}])
    run = agent.start("hi")
    async for event in run:
        if event.type == "retry":
            run.cancel()
    result = await asyncio.wait_for(run.result(), 30)
    assert result.stop == "cancelled" and len(provider.requests) == 1


async def test_the_agent_can_run_again_after_a_cancel() -> None:
    agent, _, _ = make_agent([{"text": "slow " * 100, "chunk_size": 5, "delay": 0.01}, {"text": "Fresh answer."}])
    run = agent.start("first")
    async for event in run:
        if isinstance(event, TextDelta):
            run.cancel()
    await run.result()
    result = await agent.prompt("second")
    assert result.stop == "end_turn" and result.text == "Fresh answer."


async def test_steering_a_cancelled_run_never_read_is_given_back_not_kept_for_later() -> None:
    """Steering the run ends without reading (the person's Esc) was left in the inbox, to surface after the first
    turn of whatever run came next; it is handed back in the run's end (AgentEnd.unsent, RunResult.unsent)."""
    agent, _, _ = make_agent([{"text": "slow " * 100, "chunk_size": 5, "delay": 0.01}, {"text": "Fresh answer."}])
    run = agent.start("first")
    ends = []
    async for event in run:
        if isinstance(event, TextDelta) and not ends:
            run.inject("and also this")
            run.cancel()
            ends.append(event)
        if isinstance(event, AgentEnd):
            ends.append(event)
    result = await run.result()
    assert result.stop == "cancelled" and result.unsent == ["and also this"] and ends[-1].unsent == ["and also this"]
    again = await agent.prompt("second")
    assert again.unsent == [] and not any("and also this" in m.text for m in agent.messages)


async def test_steering_is_delivered_after_the_current_tool_calls() -> None:
    sleeper = Sleep()
    agent, provider, seen = make_agent(
        [{"content": [tool_call("Echo", "e1", text="a")]}, {"text": "Adjusted."}], Echo(), sleeper
    )
    run = agent.start("do it")
    async for event in run:
        if isinstance(event, ToolStart):
            run.inject("actually, use tabs")
    assert (await run.result()).text == "Adjusted."
    second = provider.requests[1].messages
    assert isinstance(second[-2].content[0], ToolResultBlock)
    assert second[-1] == Message.user("actually, use tabs")
    assert [e.source for e in seen if e.type == "user_message"] == ["prompt", "steer"]  # type: ignore[union-attr]


async def test_follow_ups_run_after_the_turn_ends() -> None:
    agent, provider, _ = make_agent([{"text": "One."}, {"text": "Two."}])
    run = agent.start("first")
    run.follow_up("and then?")
    result = await run.result()
    assert result.text == "Two." and result.num_turns == 2
    assert provider.requests[1].messages[-1] == Message.user("and then?")


async def test_max_turns_stops_a_loop_that_would_go_on() -> None:
    forever = [{"content": [tool_call("Echo", f"e{i}", text="again")]} for i in range(10)]
    agent, provider, _ = make_agent(forever, Echo(), max_turns=3)
    result = await agent.prompt("loop")
    assert result.stop == "max_turns" and result.num_turns == 3 and len(provider.requests) == 3
    assert_valid_history(agent.messages)


async def test_a_stream_cut_after_a_tool_call_completed_does_not_run_it() -> None:
    writer = WriteNote()
    agent, provider, _ = make_agent(
        [
            {
                "content": [{"type": "text", "text": "Writing."}, tool_call("WriteNote", "w1", note="x")],
                "cut_after_blocks": 2,
            }
        ],
        writer,
    )
    result = await agent.prompt("write")
    assert result.stop == "interrupted" and writer.written == [] and len(provider.requests) == 1
    assert results_of(agent.messages[-1])["w1"].content.startswith("Not run: the response was cut off")
    assert_valid_history(agent.messages)


async def test_history_carries_across_runs_and_usage_adds_up() -> None:
    agent, provider, seen = make_agent(
        [
            {"text": "A.", "usage": {"input_tokens": 5, "output_tokens": 2}},
            {"text": "B.", "usage": {"input_tokens": 9, "output_tokens": 3}},
        ],
        context_window=100,
    )
    await agent.prompt("one")
    second = await agent.prompt("two")
    assert [m.text for m in provider.requests[1].messages] == ["one", "A.", "two"]
    assert second.usage.input_tokens == 9 and agent.ledger.usage.input_tokens == 14
    last_usage = [e for e in seen if e.type == "usage"][-1]
    assert last_usage.context_tokens == 12 and last_usage.context_percent == 12.0  # type: ignore[union-attr]
    assert second.cost_usd == 0.0  # "scripted" has no price


async def test_cost_follows_the_model_the_server_reports(server: LoopbackServer) -> None:
    usage = {"input_tokens": 1_000_000, "output_tokens": 0}
    server.enqueue(
        Reply(chunks=anthropic_stream([{"type": "text", "text": "a"}], model="claude-haiku-4-5", usage=usage)),
        Reply(chunks=anthropic_stream([{"type": "text", "text": "b"}], model="local-llama", usage=usage)),
    )
    provider = AnthropicProvider(api_key="x", base_url=server.url)
    # Asked for sonnet, served by haiku then by an unpriced local model: billed as what actually ran. (A million
    # tokens would fill the window: compaction is off, so the second prompt goes straight to the server.)
    agent = new_agent(provider, AgentConfig(model="claude-sonnet-4-5", options=ModelOptions(auto_compact=False)))
    assert (await agent.prompt("one")).cost_usd == 1.0
    assert (await agent.prompt("two")).cost_usd == 0.0
    assert agent.ledger.cost_usd == 1.0
    await provider.aclose()


async def test_starting_while_running_is_refused() -> None:
    agent, _, _ = make_agent([{"text": "slow", "chunk_size": 1, "delay": 0.05}])
    run = agent.start("one")
    with pytest.raises(RuntimeError, match="already running"):
        agent.start("two")
    assert (await run.result()).text == "slow"
    assert list(agent.messages[0].content) == [TextBlock(text="one")]


async def test_a_plain_no_ends_the_turn_and_the_calls_after_it_are_not_run() -> None:
    writer = WriteNote()
    calls = [tool_call("WriteNote", "w1", note="first"), tool_call("WriteNote", "w2", note="second")]
    agent, provider, seen = make_agent([{"content": calls}, {"text": "carried on"}], writer)
    run = agent.start("write two notes")
    async for event in run:
        if isinstance(event, PermissionRequest):
            run.respond_permission(event.request_id, PermissionDecision(behavior="deny", interrupt=True))
    result = await run.result()
    assert result.stop == "cancelled" and writer.written == [] and len(provider.requests) == 1
    results = results_of(agent.messages[-2])
    assert "rejected" in results["w1"].content and results["w2"].content.startswith("Not run: the user refused")
    assert agent.messages[-1].content == [TextBlock(text=INTERRUPTED_FOR_TOOL_USE)]
    ended = [e.tool_call_id for e in seen if isinstance(e, ToolEnd)]
    assert ended == ["w1", "w2"]  # (every call's block is told how it ended)
    assert_valid_history(agent.messages)
    # the next prompt goes on from there, with the refusal in the history
    assert (await agent.prompt("then do nothing")).text == "carried on"
    assert provider.requests[1].messages[-1].content == [TextBlock(text="then do nothing")]


async def test_a_plain_no_answers_the_other_questions_of_its_batch() -> None:
    class AskingRead(WriteNote):
        kind = "read"  # (read-only calls of one response run together, and so ask together)

    class AskEverything(KindGate):
        def check(self, tool: Any, args: Any, call: Any) -> Verdict:
            return Verdict("ask", "asked")

    reader = AskingRead()
    calls = [tool_call("WriteNote", f"r{n}", note=str(n)) for n in range(3)]
    provider = ScriptedProvider([{"content": calls}])
    agent = new_agent(
        provider, AgentConfig(model="scripted", system_prompt="sys"), tools=ToolRegistry([reader]), gate=AskEverything()
    )
    run = agent.start("read three")
    asked = 0
    async with asyncio.timeout(30):  # (without the answer to the others, the run would wait for them for ever)
        async for event in run:
            if isinstance(event, PermissionRequest):
                asked += 1
                if asked == 1:  # (the others are asked meanwhile; the first No answers them)
                    run.respond_permission(event.request_id, PermissionDecision(behavior="deny", interrupt=True))
        result = await run.result()
    assert result.stop == "cancelled" and reader.written == [] and len(provider.requests) == 1
    assert all(block.is_error for block in results_of(agent.messages[-2]).values())


async def test_a_bug_inside_a_run_ends_it_with_one_sentence_and_the_agent_goes_on() -> None:
    calls = 0

    def reminders() -> list[str]:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("boom\nwith a traceback's worth of lines")
        return []

    provider = ScriptedProvider([{"text": "fine"}])
    agent = new_agent(provider, AgentConfig(model="scripted", system_prompt="s"), reminders=reminders)
    seen: list[Event] = []
    agent.bus.on(seen.append)
    first = await asyncio.wait_for(agent.prompt("one"), 30)  # (a front end waiting for the run's end gets it)
    assert first.stop == "error" and first.error == "agentui failed: RuntimeError: boom (the debug log has more)."
    assert any(type(e).__name__ == "AgentEnd" for e in seen)
    assert (await agent.prompt("two")).text == "fine"
