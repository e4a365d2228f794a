"""Budgets against the loopback Messages API: a run stops before the model call past a limit (tokens, money, time),
with that limit as its stop reason; a sub-agent's spending counts against its parent's limits; the model is told as
the budget passes 60% and 80%; and a sub-agent past its own time limit is asked to wrap up, then stopped."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentui.core.assembly import open_conversation
from agentui.core.conversation import Conversation, Launch
from agentui.core.events import Event, Notice, ToolEnd
from agentui.core.project import PermissionOptions
from agentui.core.providers.anthropic import AnthropicProvider
from agentui.core.run_options import RunLimits
from agentui.core.settings import Settings
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream


def conversation(
    tmp_path: Path, server: LoopbackServer, env: dict[str, str] | None = None, **launch: Any
) -> tuple[Conversation, list[Event]]:
    """A conversation on the loopback Messages API, asking nothing, with its events (`env` adds to its home's)."""
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), **(env or {})}
    opened = open_conversation(
        Launch(Settings(provider="anthropic", model="claude-sonnet-4-5", base_url=server.url, api_key="x"), cwd=root,
               permissions=PermissionOptions(mode="bypassPermissions"), **launch),
        provider=AnthropicProvider(base_url=server.url, api_key="x"), env=env,
    )  # fmt: skip
    events: list[Event] = []
    opened.on(events.append)
    return opened, events


def answering(server: LoopbackServer, answer: Callable[[dict[str, Any]], tuple[list[dict[str, Any]], int]]) -> None:
    """The model answers each request with `answer(body)`: the blocks, and the input tokens it reports reading."""

    def reply(request: RecordedRequest) -> Reply:
        blocks, read = answer(request.json())
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        usage = {"input_tokens": read, "output_tokens": 10}
        return Reply(chunks=anthropic_stream(blocks, stop_reason=stop, usage=usage, model="claude-sonnet-4-5"))

    server.responder = reply


def bash(call_id: str, command: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": command, "description": "run"}}


async def test_a_token_budget_advises_at_60_and_80_percent_then_stops_the_run(
    tmp_path: Path, server: LoopbackServer
) -> None:
    answering(server, lambda body: ([bash(f"b{len(body['messages'])}", "true")], 200))  # 210 tokens a call
    opened, events = conversation(tmp_path, server, limits=RunLimits(max_total_tokens=1000))
    try:
        result = await opened.send("keep going")
    finally:
        await opened.aclose()
    assert result.stop == "max_total_tokens" and len(server.requests) == 5  # 1,050 tokens after five calls
    said = [json.dumps(request.json()["messages"][-1]) for request in server.requests]
    assert "Budget: 63% used (630 of 1,000 tokens)" in said[3] and "Plan to wrap up soon" in said[3]
    assert "Budget: 84% used" in said[4] and "Finish the current step and wrap up" in said[4]
    assert not any("Budget:" in text for text in said[:3])
    advised = [e.message[:11] for e in events if isinstance(e, Notice) and "Budget" in e.message]
    assert advised == ["Budget: 63%", "Budget: 84%"]


async def test_a_sub_agents_spending_counts_against_the_parents_money_budget(
    tmp_path: Path, server: LoopbackServer
) -> None:
    task = {
        "type": "tool_use",
        "id": "t1",
        "name": "Agent",
        "input": {"description": "look", "prompt": "Look around.", "subagent_type": "general-purpose"},
    }

    def answer(body: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
        if any(tool["name"] == "Agent" for tool in body.get("tools", [])):
            return [task], 1_000  # (three tenths of a cent)
        done = "tool_result" in json.dumps(body["messages"][-1])
        return ([{"type": "text", "text": "Nothing here."}] if done else [bash("c1", "true")]), 60_000  # 18 cents

    answering(server, answer)
    opened, _ = conversation(tmp_path, server, limits=RunLimits(max_budget_usd=0.3))
    try:
        result = await opened.send("delegate it")
    finally:
        await opened.aclose()
    # The parent spent under a cent itself; its sub-agent 36 cents: the parent stops before its next call.
    assert result.stop == "max_budget"
    parents = [r for r in server.requests if any(t["name"] == "Agent" for t in r.json()["tools"])]
    assert len(parents) == 1 and len(server.requests) == 3
    assert 0.36 < result.cost_usd < 0.37  # (the run's cost counts its sub-agent's, as Claude Code's does)


async def test_a_time_budget_is_a_deadline_that_stops_even_a_running_command(
    tmp_path: Path, server: LoopbackServer
) -> None:
    answering(server, lambda body: ([bash(f"s{len(body['messages'])}", "sleep 60")], 10))
    # (generous: the first answer must come well inside it even on a slow, busy machine; the command never ends)
    opened, events = conversation(tmp_path, server, limits=RunLimits(max_seconds=5.0))
    try:
        result = await opened.send("wait")
    finally:
        await opened.aclose()
    assert result.stop == "max_duration" and len(server.requests) == 1
    [ended] = [e for e in events if isinstance(e, ToolEnd)]
    assert ended.is_error and "Interrupted" in str(ended.content)  # (stopped at the deadline, not after 60 s)


async def test_a_sub_agent_is_asked_to_wrap_up_then_stopped_at_its_time_limit(
    tmp_path: Path, server: LoopbackServer
) -> None:
    task = {"type": "tool_use", "id": "t1", "name": "Agent",
            "input": {"description": "wait", "prompt": "Wait.", "subagent_type": "general-purpose"}}  # fmt: skip

    def answer(body: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
        if any(tool["name"] == "Agent" for tool in body.get("tools", [])):
            said = json.dumps(body["messages"][-1])
            return ([{"type": "text", "text": "Moving on."}] if "tool_result" in said else [task]), 10
        return [bash("w1", "sleep 30.4193")], 10

    answering(server, answer)
    opened, events = conversation(tmp_path, server, limits=RunLimits(subagent_seconds=1.0))
    try:
        result = await opened.send("delegate a long wait")
    finally:
        await opened.aclose()
    assert result.stop == "end_turn" and result.text == "Moving on."
    notes = [e.message for e in events if isinstance(e, Notice)]
    assert any("near its time limit (1 s) and was asked to wrap up" in note for note in notes)
    task_result = json.dumps(server.requests[-1].json()["messages"][-1])
    assert "was stopped at its time limit (1 s)" in task_result
