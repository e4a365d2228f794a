"""Tasks and background shells in a conversation: rebuilt on resume, the tool set a session's history asks for,
events for the front ends, 2.0's names under the permission rules, and no shell left when it closes."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from agentui.core.conversation import Conversation
from agentui.core.events import (
    BackgroundShellUpdate,
    Event,
    PermissionDecision,
    PermissionRequest,
    TaskListUpdate,
    ToolEnd,
)
from agentui.core.messages import TextBlock, ToolResultBlock
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.session.lookup import SessionRequest
from agentui.core.task_notifications import NOT_THE_USER, task_notices
from tests.core.test_subagents import open_conversation as opened
from tests.core.tools.test_bash import processes_with
from tests.support.waiting import eventually


def use(name: str, call_id: str, **arguments: Any) -> dict[str, Any]:
    return {"content": [{"type": "tool_use", "id": call_id, "name": name, "input": arguments}]}


def say(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}]}


def open_conversation(
    tmp_path: Path, script: list[dict[str, Any]], resume: str | None = None, **permissions: Any
) -> tuple[Conversation, ScriptedProvider, list[Event]]:
    """A conversation as test_subagents opens one, with its events collected."""
    conversation, provider = opened(tmp_path, script, SessionRequest(resume=resume), **permissions)
    events: list[Event] = []
    conversation.on(events.append)
    return conversation, provider, events


async def test_a_resumed_session_has_its_task_list_and_the_tools_it_used(tmp_path: Path) -> None:
    script = [
        use("TaskCreate", "c1", subject="Write the parser", description="", activeForm="Writing the parser"),
        use("TaskCreate", "c2", subject="Test it", description=""),
        use("TaskUpdate", "u1", taskId="1", status="in_progress"),
        say("Started."),
    ]
    first, provider, events = open_conversation(tmp_path, script)
    await first.send("plan it")
    await first.aclose()
    assert [t.name for t in provider.requests[0].tools if t.name.startswith("Task")] == [
        "TaskCreate", "TaskGet", "TaskUpdate", "TaskList", "TaskOutput", "TaskStop",
    ]  # fmt: skip
    assert "TodoWrite" not in [t.name for t in provider.requests[0].tools]
    updates = [e for e in events if isinstance(e, TaskListUpdate)]
    assert [(t.subject, t.status) for t in updates[-1].tasks] == [
        ("Write the parser", "in_progress"),
        ("Test it", "pending"),
    ]

    again, provider, _ = open_conversation(tmp_path, [use("TaskList", "l1"), say("Listed.")], resume=first.session_id)
    assert [(t.id, t.status, t.active_form) for t in again.tasks] == [
        ("1", "in_progress", "Writing the parser"),
        ("2", "pending", None),
    ]
    await again.send("where are we?")
    await again.aclose()
    listed = provider.requests[1].messages[-1].content[0]
    assert getattr(listed, "content", None) == "#1 [in_progress] Write the parser\n#2 [pending] Test it"


async def test_a_session_that_kept_its_list_with_todo_write_goes_on_with_it(tmp_path: Path) -> None:
    todos = [{"content": "Fix it", "status": "in_progress", "activeForm": "Fixing it"}]
    first, _, _ = open_conversation(tmp_path, [use("TodoWrite", "t1", todos=todos), say("On it.")])
    await first.send("fix it")
    await first.aclose()
    again, provider, _ = open_conversation(tmp_path, [say("Still on it.")], resume=first.session_id)
    await again.send("and?")
    await again.aclose()
    offered = [t.name for t in provider.requests[0].tools]
    assert "TodoWrite" in offered and "TaskCreate" not in offered and "TaskOutput" in offered
    assert [(t.subject, t.status) for t in again.tasks] == [("Fix it", "in_progress")]


async def test_background_shells_are_announced_and_stopped_when_the_conversation_closes(tmp_path: Path) -> None:
    script = [
        use("Bash", "b1", command="echo serving; sleep 34.7105", run_in_background=True, description="serve"),
        say("It runs."),
    ]
    conversation, _, events = open_conversation(tmp_path, script, mode="bypassPermissions")
    await conversation.send("start the server")
    [shell] = conversation.background_shells()
    assert shell.status == "running" and shell.description == "serve"
    await eventually(lambda: "serving" in conversation.background_output(shell.id))
    await eventually(lambda: processes_with("34.7105"))
    await conversation.aclose()
    assert processes_with("34.7105") == []
    updates = [(e.shell_id, e.status) for e in events if isinstance(e, BackgroundShellUpdate)]
    assert updates == [(shell.id, "running"), (shell.id, "killed")]


async def test_rules_for_2_0_names_cover_the_2_1_tools(tmp_path: Path) -> None:
    script = [
        use("Agent", "a1", description="look", prompt="Look around."),
        use("TaskOutput", "o1", task_id="b000000", block=False, timeout=0),
        say("Done."),
    ]
    conversation, provider, _ = open_conversation(tmp_path, script, disallowed_tools=("Task", "BashOutput"))
    await conversation.send("go")
    await conversation.aclose()
    agent, output = (provider.requests[i].messages[-1].content[0] for i in (1, 2))
    assert "Permission to use Agent was denied" in str(getattr(agent, "content", ""))
    assert "Permission to use TaskOutput was denied" in str(getattr(output, "content", ""))


async def test_a_background_end_is_told_with_the_next_tool_result_once(tmp_path: Path) -> None:
    """As Claude Code: a background command that ends while the run goes on is told to the model in the next tool
    result (not as the person's words), once; the session records it with that result."""
    script = [
        use("Bash", "b1", command="echo from-the-background", run_in_background=True, description="quick"),
        use("Bash", "w1", command="touch made.txt", description="asks first"),
        say("Done."),
        say("Again."),
    ]
    conversation, provider, events = open_conversation(tmp_path, script)
    ended = asyncio.Event()

    def watch(event: Event) -> None:
        if isinstance(event, BackgroundShellUpdate) and event.status == "completed":
            ended.set()
        if isinstance(event, PermissionRequest):  # (answered once the background command has ended)

            async def answer() -> None:
                await asyncio.wait_for(ended.wait(), 60)
                conversation.answer(event.request_id, PermissionDecision(behavior="allow"))

            asyncio.get_running_loop().create_task(answer())

    conversation.on(watch)
    result = await conversation.send("go")
    assert result.text == "Done."
    told = provider.requests[2].messages[-1].content[0]
    assert isinstance(told, ToolResultBlock) and told.tool_use_id == "w1" and isinstance(told.content, str)
    assert told.content.startswith("<system-reminder>") is False  # (after the call's own output)
    assert f"\n\n<system-reminder>\n{NOT_THE_USER}\n\n<task-notification>" in told.content
    assert "<tool-use-id>b1</tool-use-id>" in told.content and "<status>completed</status>" in told.content
    [end] = [e for e in events if isinstance(e, ToolEnd) and e.tool_call_id == "w1"]
    assert end.content == told.content  # (what the session records, and Claude Code resuming it reads)
    assert task_notices(conversation).ended == []  # (told: print mode has nothing left to tell after the run)
    await conversation.send("and?")
    assert "<task-notification>" not in json.dumps([m.model_dump() for m in provider.requests[3].messages[-1:]])
    await conversation.aclose()


async def test_a_background_end_between_prompts_is_told_with_the_next_prompt(tmp_path: Path) -> None:
    script = [
        use("Bash", "b1", command="echo from-the-background", run_in_background=True, description="quick"),
        say("Started."),
        say("Noted."),
    ]
    conversation, provider, events = open_conversation(tmp_path, script, mode="bypassPermissions")
    await conversation.send("start it")
    await eventually(lambda: any(isinstance(e, BackgroundShellUpdate) and e.status == "completed" for e in events))
    await conversation.send("what now?")
    prompt = provider.requests[2].messages[-1]
    texts = [block.text for block in prompt.content if isinstance(block, TextBlock)]
    assert texts[0] == "what now?"  # (the person's words first; the notice after them, as a reminder)
    assert NOT_THE_USER in texts[-1] and "<tool-use-id>b1</tool-use-id>" in texts[-1], texts
    await conversation.aclose()
