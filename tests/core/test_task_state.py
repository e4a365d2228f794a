"""Tasks and background shells in a conversation: rebuilt on resume, the tool set a session's history asks for,
events for the front ends, 2.0's names under the permission rules, and no shell left when it closes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentui.core.conversation import Conversation
from agentui.core.events import BackgroundShellUpdate, Event, TaskListUpdate
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.session.lookup import SessionRequest
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
