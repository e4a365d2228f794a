"""Agents that coordinate and loops that notice themselves: file claims and findings on the blackboard a
conversation's agents share, doom-loop detection counted across sub-agents, and failure evidence kept past the
shortening of old tool results."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from agentui.core.assembly import open_conversation as assemble
from agentui.core.context import compaction
from agentui.core.context.window import TokenCounter
from agentui.core.conversation import Conversation, Launch
from agentui.core.events import DoomLoop, Event, FileClaim, Finding, ToolEnd
from agentui.core.loop.agent import Agent, AgentConfig
from agentui.core.loop.doom_loop import DoomLoops
from agentui.core.loop.spawn import spawn
from agentui.core.messages import Message, ToolResultBlock, ToolUseBlock
from agentui.core.parallel.attempts import AttemptConfig
from agentui.core.project import PermissionOptions
from agentui.core.providers.anthropic import AnthropicProvider
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.run_options import ModelOptions
from agentui.core.safety.permissions.gate import KindGate, Verdict
from agentui.core.session.lookup import SessionRequest
from agentui.core.settings import Settings
from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolRegistry, ToolResult
from agentui.core.tools.write import Write
from agentui.core.workspace import Workspace
from tests.conftest import assert_valid_history
from tests.core.test_subagents import open_conversation, use
from tests.support.agents import new_agent
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream
from tests.support.tools import Explode
from tests.support.waiting import eventually
from tests.support.work_tree import committed


class AllowAll(KindGate):
    def check(self, tool: Any, args: BaseModel, call: ToolUseBlock) -> Verdict:
        return Verdict("allow", "the test allows everything")


class HoldArgs(ToolArgs):
    pass


class Hold(Tool[HoldArgs]):
    """Runs until the test lets it go: an agent kept alive, holding its claims, for as long as the test needs."""

    name = "Hold"
    description = "Wait for the test."
    Args = HoldArgs
    kind = "read"

    def __init__(self) -> None:
        self.started, self.go = asyncio.Event(), asyncio.Event()

    async def run(self, args: HoldArgs, ctx: ToolContext) -> ToolResult:
        self.started.set()
        await asyncio.wait_for(self.go.wait(), timeout=60)  # only a ceiling for a broken run
        return ToolResult("held")


def tool_use(name: str, call_id: str, **arguments: Any) -> dict[str, Any]:
    return {"content": [{"type": "tool_use", "id": call_id, "name": name, "input": arguments}]}


def two_workers(tmp_path: Path) -> tuple[Agent, Agent, Agent, Hold, list[Event]]:
    """A root agent and two agents spawned from it, each with its own script: the first writes a.txt and then holds
    (alive, its claim kept) until the test lets it go; the second writes a.txt too."""
    tmp_path.mkdir(exist_ok=True)
    config = AgentConfig(model="scripted", system_prompt="sys", cwd=tmp_path)
    root = new_agent(ScriptedProvider([{"text": "root"}]), config, gate=AllowAll())
    seen: list[Event] = []
    root.bus.on(seen.append)
    hold, workspace = Hold(), Workspace(root=tmp_path)
    tools = ToolRegistry([Write(workspace), hold])
    first_script = [
        tool_use("Write", "w1", file_path=str(tmp_path / "a.txt"), content="from the first\n"),
        tool_use("Hold", "h1"),
        {"text": "first done"},
    ]
    second_script = [
        tool_use("Write", "w2", file_path=str(tmp_path / "a.txt"), content="from the second\n"),
        {"text": "second done"},
    ]
    first, second = (
        spawn(root, ScriptedProvider(script), config, tools=tools, gate=AllowAll(), hooks=None, sub_agent=True)
        for script in (first_script, second_script)
    )
    return root, first, second, hold, seen


def claims(seen: list[Event]) -> list[tuple[str, str, str | None]]:
    return [(e.agent, e.state, e.holder) for e in seen if isinstance(e, FileClaim) and e.path == "a.txt"]


async def test_a_second_agent_waits_for_the_claim_of_the_first_until_it_ends(tmp_path: Path) -> None:
    root, first, second, hold, seen = two_workers(tmp_path)
    one = asyncio.ensure_future(first.prompt("write a.txt"))
    await asyncio.wait_for(hold.started.wait(), 60)
    assert (tmp_path / "a.txt").read_text() == "from the first\n"
    two = asyncio.ensure_future(second.prompt("write a.txt"))
    await eventually(lambda: any(state == "waiting" for _, state, _ in claims(seen)))
    assert (tmp_path / "a.txt").read_text() == "from the first\n"  # (the second has not written over it)
    hold.go.set()
    results = await asyncio.gather(one, two)
    assert [r.stop for r in results] == ["end_turn", "end_turn"]
    assert (tmp_path / "a.txt").read_text() == "from the second\n"
    a, b = first.member.name, second.member.name
    assert claims(seen) == [
        (a, "claimed", None), (b, "waiting", a), (a, "released", None), (b, "claimed", None), (b, "released", None)
    ]  # fmt: skip
    assert root.member.board.claims == {}  # (both ended: nothing is held)


async def test_an_agent_is_told_who_holds_a_file_when_the_holder_outlasts_the_wait(tmp_path: Path) -> None:
    root, first, second, hold, seen = two_workers(tmp_path)
    root.member.board.claim_wait = 0.2
    one = asyncio.ensure_future(first.prompt("write a.txt"))
    await asyncio.wait_for(hold.started.wait(), 60)
    refused: list[ToolEnd] = []
    second.bus.on(lambda event: refused.append(event) if isinstance(event, ToolEnd) else None)
    result = await second.prompt("write a.txt")  # (the first holds on until the test lets it go, after this)
    hold.go.set()
    await one
    assert result.stop == "end_turn" and (tmp_path / "a.txt").read_text() == "from the first\n"
    (end,) = refused
    assert end.is_error and first.member.name in str(end.content) and "claimed by another agent" in str(end.content)
    assert (second.member.name, "refused", first.member.name) in claims(seen)


async def test_sub_agents_post_findings_and_read_each_others(tmp_path: Path) -> None:
    script = [
        use("Task", "t1", description="look", prompt="Look around.", subagent_type="general-purpose"),
        use("PostFinding", "p1", finding="The config lives in settings/app.toml."),
        {"text": "first report"},
        use("Task", "t2", description="look more", prompt="Look more.", subagent_type="general-purpose"),
        use("ReadFindings", "r1"),
        {"text": "second report"},
        {"text": "all done"},
    ]
    conversation, provider = open_conversation(tmp_path, script)
    seen: list[Event] = []
    conversation.on(seen.append)
    result = await conversation.agent.prompt("go")
    assert result.stop == "end_turn" and result.text == "all done"
    (posted,) = [e for e in seen if isinstance(e, Finding)]
    assert posted.text == "The config lives in settings/app.toml." and posted.agent.startswith("general-purpose")
    read = provider.requests[5].messages[-1].content[0]
    assert isinstance(read, ToolResultBlock) and isinstance(read.content, str)
    assert f"{posted.agent}: The config lives in settings/app.toml." in read.content
    assert {"PostFinding", "ReadFindings"}.isdisjoint(t.name for t in provider.requests[0].tools)  # (not the root's)


def explode(call_id: str) -> dict[str, Any]:
    return tool_use("Explode", call_id, text="same")


async def test_the_same_failing_call_nudges_the_model_at_the_third_and_stops_the_run_at_the_fourth() -> None:
    provider = ScriptedProvider([explode("e1"), explode("e2"), explode("e3"), explode("e4"), {"text": "never"}])
    agent = new_agent(provider, AgentConfig(model="scripted", system_prompt="sys"), tools=ToolRegistry([Explode()]))
    seen: list[Event] = []
    agent.bus.on(seen.append)
    result = await agent.prompt("go")
    loops = [(e.action, e.count, e.tool_name) for e in seen if isinstance(e, DoomLoop)]
    assert loops == [("nudge", 3, "Explode"), ("stop", 4, "Explode")]
    assert result.stop == "error" and len(provider.requests) == 4  # (the fifth answer was never asked for)
    assert result.error is not None and result.error.startswith("Stopped: the same Explode call failed 4 times")
    assert "boom: same" in result.error
    nudged = repr(provider.requests[3].messages[-1])  # (the turn after the third failure)
    assert "has now failed 3 times" in nudged and "boom: same" in nudged and '{"text": "same"}' in nudged
    assert "has now failed" not in repr(provider.requests[2].messages)
    assert_valid_history(agent.messages)


async def test_failing_calls_are_counted_across_the_agent_and_its_sub_agents(tmp_path: Path) -> None:
    missing = str(tmp_path / "project" / "missing.txt")
    script = [
        use("Task", "t1", description="read it", prompt="Read missing.txt.", subagent_type="general-purpose"),
        use("Read", "r1", file_path=missing),
        use("Read", "r2", file_path=missing),
        {"text": "it is not there"},
        use("Read", "r3", file_path=missing),  # (the third, the root's own: nudged)
        use("Read", "r4", file_path=missing),  # (the fourth: stopped)
        {"text": "never"},
    ]
    conversation, provider = open_conversation(tmp_path, script)
    seen: list[Event] = []
    conversation.on(seen.append)
    result = await conversation.agent.prompt("go")
    loops = [(e.action, e.count) for e in seen if isinstance(e, DoomLoop)]
    assert loops == [("nudge", 3), ("stop", 4)]
    assert result.stop == "error" and result.error is not None and "failed 4 times" in result.error
    assert "has now failed 3 times" in repr(provider.requests[5].messages[-1])


async def test_a_sub_agent_that_repeats_a_failing_call_a_fourth_time_stops_its_parents_run_too(tmp_path: Path) -> None:
    missing = str(tmp_path / "project" / "missing.txt")
    script = [
        use("Task", "t1", description="read it", prompt="Read missing.txt.", subagent_type="general-purpose"),
        *(use("Read", f"r{n}", file_path=missing) for n in range(4)),
        {"text": "never"},
    ]
    conversation, provider = open_conversation(tmp_path, script)
    result = await conversation.agent.prompt("go")
    assert result.stop == "error" and result.error is not None
    assert result.error.startswith("Stopped: the same Read call failed 4 times") and "missing.txt" in result.error
    assert len(provider.requests) == 5  # (neither the sub-agent nor its parent asked the model again)
    assert_valid_history(conversation.agent.messages)


# Failure evidence

COUNTER = TokenCounter.estimating()
FAILED_OUTPUT = "\n".join(
    [*(f"collecting module {n}" for n in range(40)), "FAILED tests/test_x.py::test_sum - AssertionError: 2 != 3"]
    + [f"trailing noise {n} " + "n" * 40 for n in range(20)]
    + ["=== 1 failed, 39 passed in 2.1s ==="]
)


def bash_turn(call_id: str, result: str, *, failed: bool) -> list[Message]:
    return [
        Message(role="assistant", content=[ToolUseBlock(id=call_id, name="Bash", input={"command": "pytest -q"})]),
        Message(role="user", content=[ToolResultBlock(tool_use_id=call_id, content=result, is_error=failed)]),
    ]


def echo_turn(call_id: str) -> list[Message]:
    return [
        Message(role="assistant", content=[ToolUseBlock(id=call_id, name="Echo", input={"text": call_id})]),
        Message(role="user", content=[ToolResultBlock(tool_use_id=call_id, content="r" * 2_000)]),
    ]


def first_result(messages: list[Message]) -> str:
    block = messages[2].content[0]
    assert isinstance(block, ToolResultBlock) and isinstance(block.content, str)
    return block.content


def test_a_failed_result_keeps_its_key_lines_past_shortening_until_the_same_call_succeeds() -> None:
    messages = [Message.user("fix the test"), *bash_turn("b1", FAILED_OUTPUT, failed=True)]
    for number in range(6):
        messages += echo_turn(f"e{number}")
    compaction.shorten_tool_results(messages, 300, COUNTER, before=len(messages) - 2)
    kept = first_result(messages)
    assert kept.startswith(compaction.PLACEHOLDER_PREFIX) and len(kept) < len(FAILED_OUTPUT) / 2
    assert "AssertionError: 2 != 3" in kept and "1 failed, 39 passed" in kept and "collecting module 7" not in kept
    compaction.shorten_tool_results(messages, 300, COUNTER, before=len(messages) - 2)
    assert first_result(messages) == kept  # (unresolved: kept as it is)
    messages += bash_turn("b2", "40 passed", failed=False) + echo_turn("e9")
    compaction.shorten_tool_results(messages, 300, COUNTER, before=len(messages) - 2)
    assert first_result(messages) == f'{compaction.PLACEHOLDER_PREFIX}Bash({{"command": "pytest -q"}})]'
    assert_valid_history(messages)


# Parallel attempts share the blackboard: their copies' files are claimed by the same relative path


def attempts_conversation(tmp_path: Path, server: LoopbackServer) -> Conversation:
    root = tmp_path / "project"
    committed(root, {"calc.py": "def add(a, b):\n    return a - b\n"})
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    launch = Launch(
        Settings(provider="anthropic", model="main", base_url=server.url, api_key="x"),
        cwd=root,
        permissions=PermissionOptions(mode="acceptEdits"),
        session=SessionRequest(),
    )
    return assemble(launch, provider=AnthropicProvider(base_url=server.url, api_key="x"), env=env)


async def test_parallel_attempts_never_wait_for_each_others_copies_of_a_file(
    tmp_path: Path, server: LoopbackServer
) -> None:
    """b1 writes answer.txt in its working copy and is kept alive (its next answer held); b2 then writes answer.txt
    in its own copy at once: a different file, so it does not wait for b1 (the attempts are alternatives). They can
    still tell each other what they find."""
    b1_done, b2_start = threading.Event(), threading.Event()  # (the held answers)

    def answer(request: RecordedRequest) -> Reply:
        body = request.json()
        model, answered = body["model"], "tool_result" in json.dumps(body["messages"][-1])
        if answered:
            return Reply(chunks=anthropic_stream([{"type": "text", "text": "done"}]), gate=b1_done)
        write = {"type": "tool_use", "id": f"w-{model}", "name": "Write"}
        write["input"] = {"file_path": "answer.txt", "content": f"{model}\n"}
        gate = b2_start if model == "m2" else None
        return Reply(chunks=anthropic_stream([write], stop_reason="tool_use"), gate=gate)

    server.responder = answer
    conversation = attempts_conversation(tmp_path, server)
    seen: list[Event] = []

    def watch(event: Event) -> None:
        seen.append(event)
        if isinstance(event, FileClaim) and event.agent == "attempt b1" and event.state == "claimed":
            b2_start.set()
        if isinstance(event, FileClaim) and event.agent == "attempt b2" and event.state == "claimed":
            b1_done.set()

    conversation.on(watch)
    configs = [AttemptConfig(model="m1"), AttemptConfig(model="m2")]
    try:
        attempts, _ = await conversation.attempt("Write the answer.", configs, "tokens")
        try:
            patches = {b.id: b.patch for b in attempts.branches}
            assert "+m1" in patches["b1"] and "+m2" in patches["b2"]
        finally:
            attempts.close()
    finally:
        b1_done.set()
        b2_start.set()
        await conversation.aclose()
    told = [(e.agent, e.state, e.holder) for e in seen if isinstance(e, FileClaim) and e.path == "answer.txt"]
    assert not [t for t in told if t[1] in ("waiting", "refused")], told
    assert told.index(("attempt b2", "claimed", None)) < told.index(("attempt b1", "released", None))
    offered = {tool["name"] for request in server.requests for tool in request.json().get("tools", [])}
    assert {"PostFinding", "ReadFindings"} <= offered  # (the attempts may tell each other what they find)


def test_a_failure_counts_as_the_same_whatever_time_its_error_reports() -> None:
    loops = DoomLoops()
    said = [loops.failed("Bash", {"command": "pytest"}, f"1 failed in {t}s") for t in ("0.53", "0.61", "1.2")]
    assert said[:2] == [None, None] and said[2] is not None and said[2].action == "nudge"
    assert loops.failed("Bash", {"command": "pytest"}, "2 failed in 0.5s") is None  # (another error)
    assert loops.failed("Bash", {"command": "pytest -x"}, "1 failed in 0.5s") is None  # (another input)


async def test_a_run_past_the_threshold_sends_the_model_the_key_lines_of_an_old_unresolved_failure() -> None:
    old = [Message.user("fix the test"), *bash_turn("b1", FAILED_OUTPUT, failed=True)]
    for number in range(40):
        old += echo_turn(f"e{number}")  # (about 20,000 tokens of results after it)
    provider = ScriptedProvider([{"text": "Answer."}])
    options = ModelOptions(context_window=24_000, compact_threshold=0.7)
    config = AgentConfig(model="scripted", system_prompt="sys", options=options)
    agent = new_agent(provider, config, messages=old, counter=COUNTER)
    await agent.prompt("go on")
    (only,) = provider.requests  # (shortening was enough: no summary call)
    failed = only.messages[2].content[0]
    assert isinstance(failed, ToolResultBlock) and isinstance(failed.content, str)
    assert failed.content.startswith(compaction.PLACEHOLDER_PREFIX) and "AssertionError: 2 != 3" in failed.content
    echoed = only.messages[4].content[0]
    assert isinstance(echoed, ToolResultBlock)
    assert echoed.content == f'{compaction.PLACEHOLDER_PREFIX}Echo({{"text": "e0"}})]'  # (a success: the placeholder)
