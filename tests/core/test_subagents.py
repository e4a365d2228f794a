"""Sub-agents: a scripted Task call runs a child loop with its own context and tools, under the parent's rules and
answers, writes a sidechain transcript Claude Code's tools read, and stops when the parent is cancelled."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from agentui.core.assembly import open_conversation as assemble
from agentui.core.conversation import Conversation, Launch
from agentui.core.events import Notice, PermissionDecision, PermissionRequest
from agentui.core.extend.subagents import load_agent_types
from agentui.core.messages import ToolResultBlock
from agentui.core.project import PermissionOptions
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.session.lookup import SessionRequest
from agentui.core.settings import Settings
from tests.support.sessions import claude_code_log_reads, lines
from tests.support.waiting import eventually


def use(name: str, call_id: str, **arguments: Any) -> dict[str, Any]:
    return {"content": [{"type": "tool_use", "id": call_id, "name": name, "input": arguments}]}


def open_conversation(
    tmp_path: Path, script: list[dict[str, Any]], session: SessionRequest | None = None, **permissions: Any
) -> tuple[Conversation, ScriptedProvider]:
    root = tmp_path / "project"
    root.mkdir(parents=True, exist_ok=True)
    env = {
        "HOME": str(tmp_path / "home"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "AGENTUI_DATA_DIR": str(tmp_path / "data"),
    }
    provider = ScriptedProvider(script)
    launch = Launch(
        Settings(provider="scripted", model="scripted"),
        cwd=root,
        permissions=PermissionOptions(**permissions),
        session=session or SessionRequest(),
    )
    return assemble(launch, provider=provider, env=env), provider


def test_agent_types_come_from_agents_directories(tmp_path: Path) -> None:
    root, claude = tmp_path / "project", tmp_path / "claude"
    (claude / "agents").mkdir(parents=True)
    (root / ".claude" / "agents").mkdir(parents=True)
    (claude / "agents" / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews code.\nmodel: opus\n---\nReview.\n"
    )
    (root / ".claude" / "agents" / "reader.md").write_text(
        "---\nname: reader\ndescription: Reads files.\ntools: Read, Grep\nmodel: claude-haiku-4-5\n---\nYou read.\n"
    )
    types = load_agent_types(root, {"CLAUDE_CONFIG_DIR": str(claude)})
    assert set(types) == {"general-purpose", "Explore", "Plan", "reviewer", "reader"}
    assert types["reader"].tools == ("Read", "Grep") and types["reader"].model == "claude-haiku-4-5"
    assert types["reviewer"].tools is None and types["reviewer"].model is None  # an alias: the parent's model
    assert types["reader"].instructions == "You read."


async def test_a_task_runs_a_child_with_its_own_tools_under_the_parents_rules(tmp_path: Path) -> None:
    agents = tmp_path / "project" / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "reader.md").write_text(
        "---\nname: reader\ndescription: Reads files.\ntools: Read, Grep\n---\nYou read.\n"
    )
    (tmp_path / "project" / "notes.txt").write_text("the notes say hi\n")
    (tmp_path / "project" / "secret.txt").write_text("hunter2\n")
    script = [
        use("Task", "t1", description="read notes", prompt="Read notes.txt and secret.txt", subagent_type="reader"),
        {
            "content": [
                {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": "notes.txt"}},
                {"type": "tool_use", "id": "r2", "name": "Read", "input": {"file_path": "secret.txt"}},
            ]
        },
        {"text": "The notes say hi; the secret was refused."},
        {"text": "Done."},
    ]
    conversation, provider = open_conversation(tmp_path, script, disallowed_tools=("Read(secret.txt)",))
    try:
        result = await conversation.agent.prompt("what do the files say?")
    finally:
        await conversation.aclose()
    assert result.text == "Done."
    parent_first, child_first, child_second, parent_second = provider.requests
    names = [t.name for t in parent_first.tools]
    assert "Agent" in names and "Task" not in names  # (2.1 names offered; the call above used 2.0's "Task")
    assert [t.name for t in child_first.tools] == ["Read", "Grep"] and child_first.system == "You read."
    assert child_first.messages[0].text == "Read notes.txt and secret.txt"  # its own context, not the parent's
    notes, secret = child_second.messages[-1].content
    assert isinstance(notes, ToolResultBlock) and "the notes say hi" in str(notes.content)
    assert isinstance(secret, ToolResultBlock) and secret.is_error and "denied" in str(secret.content)
    [task_result] = parent_second.messages[-1].content
    assert (
        isinstance(task_result, ToolResultBlock) and task_result.content == "The notes say hi; the secret was refused."
    )

    [transcript] = (conversation.session.path.parent / conversation.session_id / "subagents").glob("agent-*.jsonl")
    written = [entry for entry in lines(transcript) if "uuid" in entry]
    assert written and all(entry["isSidechain"] is True for entry in written)
    assert {entry["agentId"] for entry in written} == {transcript.stem.removeprefix("agent-")}
    assert written[0]["message"]["content"] == "Read notes.txt and secret.txt" and written[0]["parentUuid"] is None
    assert all(entry["sessionId"] == conversation.session_id for entry in written)
    claude_code_log_reads(transcript)
    # As Claude Code 2.1: every user line of the prompt's run carries its promptId, the sub-agent's lines included.
    parent_lines = [entry for entry in lines(conversation.session.path) if entry.get("type") in ("user", "assistant")]
    users = [entry for entry in parent_lines + written if entry["type"] == "user"]
    assert len(users) == 5 and len({entry.get("promptId") for entry in users}) == 1 and users[0]["promptId"]
    assert not [entry for entry in parent_lines + written if entry["type"] == "assistant" and "promptId" in entry]
    assert list(users[0])[:3] == ["parentUuid", "isSidechain", "promptId"]


async def test_a_childs_question_is_answered_through_the_parent_and_cancel_reaches_the_child(tmp_path: Path) -> None:
    script = [
        use("Task", "t1", description="write", prompt="Write a.txt"),
        use("Write", "w1", file_path="a.txt", content="from the child\n"),
        {"text": "Wrote it."},
        {"text": "Done."},
        use("Task", "t2", description="write again", prompt="Write b.txt"),
        use("Write", "w2", file_path="b.txt", content="never\n"),
    ]
    conversation, _ = open_conversation(tmp_path, script)
    agent = conversation.agent
    asked: list[PermissionRequest] = []

    def answer(event: Any) -> None:
        if isinstance(event, PermissionRequest):
            asked.append(event)
            if len(asked) == 1:  # the first question is answered yes; the second is left waiting
                agent.respond_permission(event.request_id, PermissionDecision(behavior="allow"))

    agent.bus.on(answer)
    try:
        result = await agent.prompt("write a file")
        assert result.text == "Done." and (tmp_path / "project" / "a.txt").read_text() == "from the child\n"
        assert asked[0].tool_name == "Write"

        run = asyncio.ensure_future(agent.prompt("write another"))
        await eventually(lambda: len(asked) == 2)
        assert len(asked) == 2 and len(agent.children) == 1
        child = agent.children[0]
        agent.cancel()
        result = await asyncio.wait_for(run, 30)
        assert result.stop == "cancelled" and not child.running and agent.children == []
        assert not (tmp_path / "project" / "b.txt").exists()
    finally:
        await conversation.aclose()


async def test_the_parents_hooks_guard_the_childs_tool_calls(tmp_path: Path) -> None:
    import json

    claude = tmp_path / "claude"
    claude.mkdir()
    (claude / "settings.json").write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {
                            "matcher": "Write",
                            "hooks": [{"type": "command", "command": "echo no writes here >&2; exit 2"}],
                        }
                    ]
                }
            }
        )
    )
    script = [
        use("Task", "t1", description="write", prompt="Write a.txt"),
        use("Write", "w1", file_path="a.txt", content="x\n"),
        {"text": "Blocked."},
        {"text": "Done."},
    ]
    conversation, provider = open_conversation(tmp_path, script, mode="bypassPermissions")
    try:
        assert (await conversation.agent.prompt("write")).text == "Done."
    finally:
        await conversation.aclose()
    [blocked] = provider.requests[2].messages[-1].content
    assert isinstance(blocked, ToolResultBlock) and blocked.is_error and "no writes here" in str(blocked.content)
    assert not (tmp_path / "project" / "a.txt").exists()


async def test_the_childs_tool_calls_are_the_task_calls_live_output(tmp_path: Path) -> None:
    from agentui.core.events import ToolProgress

    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "notes.txt").write_text("hi\n")
    script = [
        use("Task", "t1", description="read", prompt="Read notes.txt"),
        use("Read", "r1", file_path="notes.txt"),
        use("Read", "r2", file_path="missing.txt"),
        {"text": "Read it."},
        {"text": "Done."},
    ]
    conversation, _ = open_conversation(tmp_path, script)
    progress: list[ToolProgress] = []
    conversation.agent.bus.on(lambda event: progress.append(event) if isinstance(event, ToolProgress) else None)
    try:
        await conversation.agent.prompt("read")
    finally:
        await conversation.aclose()
    assert {event.tool_call_id for event in progress} == {"t1"}
    text = "".join(event.text for event in progress)
    assert text.startswith("Read notes.txt\nRead missing.txt\n  ✗ File does not exist: missing.txt.")


async def test_with_hooks_a_task_completes_and_hook_warnings_return_to_the_parent(tmp_path: Path) -> None:
    # The child shares the parent's hooks; while it runs their warnings are its own, and afterwards the parent's.
    (tmp_path / "claude").mkdir()
    failing = {"type": "command", "command": "echo noted >&2; exit 1"}
    hooks = {"hooks": {"PostToolUse": [{"matcher": "Read", "hooks": [failing]}]}}
    (tmp_path / "claude" / "settings.json").write_text(json.dumps(hooks))
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "notes.txt").write_text("the notes say hi\n")
    script = [
        use("Task", "t1", description="read notes", prompt="Read notes.txt", subagent_type="general-purpose"),
        use("Read", "r1", file_path="notes.txt"),
        {"text": "The notes say hi."},
        use("Read", "r2", file_path="notes.txt"),
        {"text": "Done."},
    ]
    conversation, provider = open_conversation(tmp_path, script)
    parent_notices: list[str] = []
    conversation.agent.bus.on(lambda event: parent_notices.append(event.message) if isinstance(event, Notice) else None)
    try:
        result = await conversation.agent.prompt("what do the notes say?")
    finally:
        await conversation.aclose()
    assert result.text == "Done."
    [task_result] = provider.requests[3].messages[-1].content
    assert isinstance(task_result, ToolResultBlock) and task_result.content == "The notes say hi."
    assert parent_notices == [
        "The PostToolUse hook `echo noted >&2; exit 1` failed with exit code 1 (noted); continuing."
    ]


async def test_subagent_start_and_stop_hooks_fire_with_the_agents_id_type_and_last_words(tmp_path: Path) -> None:
    (tmp_path / "claude").mkdir()
    told = tmp_path / "told.jsonl"
    record = {"type": "command", "command": f"cat >> {told}; echo >> {told}"}
    hooks = {"hooks": {event: [{"hooks": [record]}] for event in ("SubagentStart", "SubagentStop")}}
    (tmp_path / "claude" / "settings.json").write_text(json.dumps(hooks))
    script = [
        use("Task", "t1", description="say hi", prompt="Say hi", subagent_type="general-purpose"),
        {"text": "Hi from the child."},
        {"text": "Done."},
    ]
    conversation, _provider = open_conversation(tmp_path, script)
    try:
        await conversation.agent.prompt("delegate")
    finally:
        await conversation.aclose()
    start, stop = [json.loads(line) for line in told.read_text().splitlines() if line.strip()]
    assert start["hook_event_name"] == "SubagentStart" and start["agent_type"] == "general-purpose"
    assert stop["hook_event_name"] == "SubagentStop" and stop["agent_id"] == start["agent_id"]
    assert stop["last_assistant_message"] == "Hi from the child." and stop["agent_transcript_path"].endswith(".jsonl")
