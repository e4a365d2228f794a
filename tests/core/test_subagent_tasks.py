"""Sub-agents as Claude Code 2.1.197 has them, against the loopback Messages API: the built-in read-only Explore
(on the small, fast model) and Plan (on the parent's); `run_in_background`, whose sub-agent works on while the parent
answers, is told to the model when it ends, is read with TaskOutput, stopped with TaskStop, and dies with the
conversation; and the cap on sub-agents running at once, the others waiting their turn where they can be seen."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentui.core.background_agents import MAX_SUBAGENTS
from agentui.core.events import BackgroundAgentUpdate, ToolEnd, ToolProgress
from agentui.core.extend.agent_files import agent_types
from agentui.core.run_options import RunLimits
from agentui.core.settings import ConfigError, ConfigFile, Overrides, resolve_settings
from tests.core.test_budgets import conversation
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream
from tests.support.waiting import eventually

WRITERS = {"Agent", "Edit", "Write", "NotebookEdit", "MultiEdit", "ExitPlanMode"}


def first_text(body: dict[str, Any]) -> str:
    content = body["messages"][0]["content"]
    return content if isinstance(content, str) else " ".join(b.get("text", "") for b in content)


def last_results(body: dict[str, Any]) -> str:
    """The text of the last user message (its tool results and notes)."""
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        inner = block.get("content", block.get("text", ""))
        parts.append(inner if isinstance(inner, str) else " ".join(b.get("text", "") for b in inner))
    return "\n".join(parts)


def agent_call(call_id: str, prompt: str, **more: Any) -> dict[str, Any]:
    arguments = {"description": prompt[:20], "prompt": prompt, **more}
    return {"type": "tool_use", "id": call_id, "name": "Agent", "input": arguments}


def call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


class Model:
    """The played model: a sub-agent's request (its first message is a prompt in `children`) gets that child's
    answer, held at its gate if it has one; the parent's requests get `parent(body)` in turn."""

    def __init__(self, server: LoopbackServer, parent: list[Callable[[dict[str, Any]], list[dict[str, Any]]]]):
        self.parent = parent
        self.children: dict[str, str] = {}
        self.gates: dict[str, threading.Event] = {}
        self.requests: list[dict[str, Any]] = []
        self.parent_requests: list[dict[str, Any]] = []
        server.responder = self.reply

    def child(self, prompt: str, answer: str, held: bool = False) -> None:
        self.children[prompt] = answer
        if held:
            self.gates[prompt] = threading.Event()

    def reply(self, request: RecordedRequest) -> Reply:
        body = request.json()
        if "tools" not in body:  # (a title, or another side call)
            return Reply(chunks=anthropic_stream([text("A title")]))
        self.requests.append(body)
        prompt = first_text(body)
        if prompt in self.children:
            chunks = anthropic_stream([text(self.children[prompt])], model=body["model"])
            return Reply(chunks=chunks, gate=self.gates.get(prompt), gate_after=1)
        self.parent_requests.append(body)
        blocks = self.parent[min(len(self.parent_requests), len(self.parent)) - 1](body)
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        return Reply(chunks=anthropic_stream(blocks, stop_reason=stop, message_id=f"m{len(self.parent_requests)}"))

    def child_request(self, prompt: str) -> dict[str, Any]:
        [found] = [body for body in self.requests if first_text(body) == prompt]
        return found

    def release(self) -> None:
        for gate in self.gates.values():
            gate.set()


def tool_names(body: dict[str, Any]) -> set[str]:
    return {tool["name"] for tool in body["tools"]}


async def test_explore_is_read_only_on_the_small_model_and_plan_read_only_on_the_parents(
    tmp_path: Path, server: LoopbackServer
) -> None:
    model = Model(
        server,
        [lambda b: [agent_call("t1", "Find the notes", subagent_type="Explore"),
                    agent_call("t2", "Plan the change", subagent_type="Plan")],
         lambda b: [text("Done.")]],
    )  # fmt: skip
    model.child("Find the notes", "notes.txt")
    model.child("Plan the change", "1. Edit notes.txt")
    opened, _ = conversation(tmp_path, server)
    try:
        result = await opened.send("look around")
    finally:
        await opened.aclose()
    listed = {info.name: info.source for info in agent_types(opened)}  # (/agents shows them as built in)
    assert listed == {"general-purpose": "built-in", "Explore": "built-in", "Plan": "built-in"}
    assert result.text == "Done."
    parent, explore, plan = (
        model.parent_requests[0],
        model.child_request("Find the notes"),
        model.child_request("Plan the change"),
    )
    listing = next(tool["description"] for tool in parent["tools"] if tool["name"] == "Agent")
    assert "- Explore: Fast read-only search agent" in listing and "- Plan: Software architect agent" in listing
    assert (
        "run_in_background"
        in next(tool for tool in parent["tools"] if tool["name"] == "Agent")["input_schema"]["properties"]
    )
    for child in (explore, plan):
        assert not tool_names(child) & WRITERS
        assert {"Read", "Grep", "Glob", "Bash", "TaskCreate"} <= tool_names(child)
        # (AskUserQuestion: no sub-agent puts questions to the person)
        assert tool_names(parent) - tool_names(child) == (WRITERS | {"AskUserQuestion"}) & tool_names(parent)
    assert explore["model"] == "claude-haiku-4-5-20251001"  # (Claude Code's `haiku`: its small, fast model)
    assert plan["model"] == parent["model"] == "claude-sonnet-4-5"
    system = [explore["system"], plan["system"]]
    texts = [s if isinstance(s, str) else " ".join(b["text"] for b in s) for s in system]
    assert texts[0].startswith("You are a file search specialist for Claude Code")
    assert texts[1].startswith("You are a software architect and planning specialist for Claude Code")
    assert "READ-ONLY MODE" in texts[0] and "READ-ONLY MODE" in texts[1]


async def test_explores_small_model_follows_claude_codes_haiku_variable(tmp_path: Path, server: LoopbackServer) -> None:
    model = Model(server, [lambda b: [agent_call("t1", "Find it", subagent_type="Explore")], lambda b: [text("Ok.")]])
    model.child("Find it", "here")
    opened, _ = conversation(tmp_path, server, {"ANTHROPIC_DEFAULT_HAIKU_MODEL": "my-haiku"})
    try:
        await opened.send("go")
    finally:
        await opened.aclose()
    assert model.child_request("Find it")["model"] == "my-haiku"


def launched_id(body: dict[str, Any]) -> str:
    found = re.search(r"agentId: (\w+)", last_results(body))
    assert found, last_results(body)
    return found.group(1)


async def test_a_background_agent_works_on_while_the_parent_answers_and_its_end_is_told(
    tmp_path: Path, server: LoopbackServer
) -> None:
    model = Model(
        server,
        [lambda b: [agent_call("t1", "Survey the code", run_in_background=True)],
         lambda b: [text("It is running.")],
         lambda b: [text("It said: three modules.")]],
    )  # fmt: skip
    model.child("Survey the code", "There are three modules.", held=True)
    opened, events = conversation(tmp_path, server)
    try:
        first = await opened.send("survey it in the background")
        assert first.text == "It is running."  # the parent answered while its sub-agent still works
        launch = last_results(model.parent_requests[1])
        assert launch.startswith("Async agent launched successfully.\nagentId: ")
        task_id = launched_id(model.parent_requests[1])
        [task] = opened.project.workspace.agents.running()
        assert task.id == task_id and task.status == "running"
        [ended] = [e for e in events if isinstance(e, ToolEnd) and e.tool_call_id == "t1"]
        assert ended.details["status"] == "async_launched" and ended.details["agentId"] == task_id
        model.release()
        await eventually(lambda: any(isinstance(e, BackgroundAgentUpdate) and e.status == "completed" for e in events))
        second = await opened.send("what did it find?")
    finally:
        model.release()
        await opened.aclose()
    assert second.text == "It said: three modules."
    # (as Claude Code's: a background sub-agent gets no task-list tools; the list is the parent's)
    assert "TaskCreate" in tool_names(model.parent_requests[0])
    assert not tool_names(model.child_request("Survey the code")) & {"TaskCreate", "TaskUpdate", "TaskList", "TaskGet"}
    told = last_results(model.parent_requests[2])
    assert f"<task-id>{task_id}</task-id>\n<tool-use-id>t1</tool-use-id>" in told
    assert "<status>completed</status>" in told and '<summary>Agent "Survey the code" finished</summary>' in told
    assert "<result>There are three modules.</result>" in told and "<usage><subagent_tokens>" in told


async def test_task_output_reads_a_background_agent_and_task_stop_ends_it_and_a_second_waits_its_turn(
    tmp_path: Path, server: LoopbackServer
) -> None:
    ids: list[str] = []

    def read_both(body: dict[str, Any]) -> list[dict[str, Any]]:
        ids.extend(re.findall(r"agentId: (\w+)", last_results(body)))
        return [call("o1", "TaskOutput", task_id=ids[0], block=False, timeout=0),
                call("o2", "TaskOutput", task_id=ids[1], block=False, timeout=0)]  # fmt: skip

    model = Model(
        server,
        [lambda b: [agent_call("t1", "First job", run_in_background=True),
                    agent_call("t2", "Second job", run_in_background=True)],
         read_both,
         lambda b: [call("s1", "TaskStop", task_id=ids[0])],
         lambda b: [text("Stopped it.")]],
    )  # fmt: skip
    model.child("First job", "first", held=True)
    model.child("Second job", "second", held=True)
    opened, events = conversation(tmp_path, server, limits=RunLimits(max_subagents=1))
    try:
        result = await opened.send("start two")
        outputs = last_results(model.parent_requests[2])
        stopped = last_results(model.parent_requests[3])
        assert result.text == "Stopped it."
        # the first runs, the second waits for its slot: Claude Code's "pending"; neither has answered yet
        assert f"<retrieval_status>not_ready</retrieval_status>\n<task_id>{ids[0]}</task_id>" in outputs
        assert "<task_type>local_agent</task_type>\n<status>running</status>" in outputs
        assert f"<task_id>{ids[1]}</task_id>\n<task_type>local_agent</task_type>\n<status>pending</status>" in outputs
        assert stopped.startswith(f'{{"message":"Successfully stopped task: {ids[0]} (First job)"')
        updates = [(e.task_id, e.status) for e in events if isinstance(e, BackgroundAgentUpdate)]
        assert (ids[0], "killed") in updates and (ids[1], "pending") in updates
        # the slot the first held passes to the second, which now runs and answers
        model.release()
        await eventually(lambda: (ids[1], "completed") in [(e.task_id, e.status) for e in events
                                                            if isinstance(e, BackgroundAgentUpdate)])  # fmt: skip
        assert [first_text(b) for b in model.requests if first_text(b) in model.children] == ["First job", "Second job"]
    finally:
        model.release()
        await opened.aclose()


async def test_a_background_agent_dies_with_the_conversation(tmp_path: Path, server: LoopbackServer) -> None:
    model = Model(server, [lambda b: [agent_call("t1", "Long job", run_in_background=True)], lambda b: [text("Ok.")]])
    model.child("Long job", "never told", held=True)
    opened, events = conversation(tmp_path, server)
    try:
        await opened.send("start it")
        [task] = opened.project.workspace.agents.running()
        await eventually(lambda: len(model.requests) == 3)  # (its request is in, held at the gate)
    finally:
        await opened.aclose()
        model.release()
    assert task.status == "killed" and task.done.is_set() and task.runner is not None and task.runner.done()
    assert (task.id, "killed") in [(e.task_id, e.status) for e in events if isinstance(e, BackgroundAgentUpdate)]


async def test_the_stop_hook_lists_a_background_agent_still_running(tmp_path: Path, server: LoopbackServer) -> None:
    """As Claude Code's Stop hook input: `background_tasks` names each sub-agent in flight, as a `subagent`."""
    claude = tmp_path / "claude"
    claude.mkdir()
    kept = tmp_path / "stop.json"
    stop = {"hooks": [{"type": "command", "command": f"cat > {kept}"}]}
    (claude / "settings.json").write_text(json.dumps({"hooks": {"Stop": [stop]}}))
    model = Model(server, [lambda b: [agent_call("t1", "Long job", subagent_type="Explore", run_in_background=True)],
                           lambda b: [text("Ok.")]])  # fmt: skip
    model.child("Long job", "later", held=True)
    opened, _ = conversation(tmp_path, server)
    try:
        await opened.send("start it")
        [task] = opened.project.workspace.agents.running()
        await eventually(lambda: kept.exists() and kept.read_text().endswith("}"))
    finally:
        model.release()
        await opened.aclose()
    listed = json.loads(kept.read_text())["background_tasks"]
    assert listed == [
        {"id": task.id, "type": "subagent", "status": "running", "description": "Long job", "agent_type": "Explore"}
    ]


async def test_a_front_end_stops_a_background_agent_as_it_stops_a_shell(tmp_path: Path, server: LoopbackServer) -> None:
    """What an SDK program's stopTask and the app use: Conversation.stop_background, by the task's id."""
    model = Model(server, [lambda b: [agent_call("t1", "Long job", run_in_background=True)], lambda b: [text("Ok.")]])
    model.child("Long job", "never told", held=True)
    opened, events = conversation(tmp_path, server)
    try:
        await opened.send("start it")
        [task] = opened.project.workspace.agents.running()
        assert await opened.stop_background(task.id) is True
        assert task.status == "killed" and not await opened.stop_background(task.id)
        assert not await opened.stop_background("no-such-task")
    finally:
        model.release()
        await opened.aclose()
    assert (task.id, "killed") in [(e.task_id, e.status) for e in events if isinstance(e, BackgroundAgentUpdate)]


async def test_sub_agents_beyond_the_cap_wait_their_turn_and_say_so(tmp_path: Path, server: LoopbackServer) -> None:
    model = Model(
        server,
        [lambda b: [agent_call("t1", "Job one"), agent_call("t2", "Job two")], lambda b: [text("Both done.")]],
    )
    model.child("Job one", "one", held=True)
    model.child("Job two", "two", held=True)
    opened, events = conversation(tmp_path, server, limits=RunLimits(max_subagents=1))
    try:
        sent = asyncio.ensure_future(opened.send("do both"))
        await eventually(lambda: any(isinstance(e, ToolProgress) and e.text.startswith("Queued:") for e in events))
        queued = [e for e in events if isinstance(e, ToolProgress) and e.text.startswith("Queued:")]
        assert queued[0].text == "Queued: 1 sub-agents are running, at most 1 at once.\n"
        await eventually(lambda: len(model.requests) == 2)  # the parent's, and one child's: the other waits
        children = [first_text(b) for b in model.requests[1:]]
        model.release()
        result = await sent
    finally:
        model.release()
        await opened.aclose()
    assert result.text == "Both done."
    assert len(children) == 1 and queued[0].tool_call_id in {"t1", "t2"}
    assert sorted(first_text(b) for b in model.requests if first_text(b) in model.children) == ["Job one", "Job two"]


def test_the_cap_is_ten_by_default_and_set_by_the_config_file_or_agentui_max_subagents(tmp_path: Path) -> None:
    env = {"ANTHROPIC_API_KEY": "x", "AGENTUI_CONFIG_DIR": str(tmp_path)}
    assert MAX_SUBAGENTS == 10 and resolve_settings(Overrides(), env, ConfigFile()).limits.max_subagents is None
    assert resolve_settings(Overrides(), env, ConfigFile(max_subagents=3)).limits.max_subagents == 3
    chosen = resolve_settings(Overrides(), {**env, "AGENTUI_MAX_SUBAGENTS": "2"}, ConfigFile(max_subagents=3))
    assert chosen.limits.max_subagents == 2
    with pytest.raises(ConfigError, match="AGENTUI_MAX_SUBAGENTS must be a whole number of sub-agents"):
        resolve_settings(Overrides(), {**env, "AGENTUI_MAX_SUBAGENTS": "many"}, ConfigFile())
