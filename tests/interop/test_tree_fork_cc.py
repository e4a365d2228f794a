"""/tree's fork from a sub-agent's branch: the new session is a conversation of its own, which Claude Code (the
pinned release) resumes as agentui does, the sub-agent's prompt and answer included."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from agentui.core.assembly import open_conversation
from agentui.core.conversation import Launch
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.session.lookup import SessionRequest
from agentui.core.session.tree import build_tree
from agentui.core.settings import Settings
from tests.interop.test_round_trips import Turn, World, results_seen, text, tool

TASK = "Read notes.txt and say what it holds."


def model(body: dict[str, Any]) -> Turn:
    if "and now?" in json.dumps(body["messages"][-1]):
        return [text("Resumed.")]
    if TASK in json.dumps(body["messages"][0]):  # (the sub-agent's own conversation)
        return [text("It holds hello and world.")]
    if results_seen(body):
        return [text("The agent says it holds hello and world.")]
    call = tool("a1", "Task", description="Read", prompt=TASK, subagent_type="general-purpose")
    return [text("Asking an agent."), call]


async def forked_from_sub_agent(world: World, session_id: str) -> str:
    """The fork /tree's f makes from the sub-agent's branch: its id."""
    [path] = (world.home / ".claude" / "projects").glob(f"*/{session_id}.jsonl")
    [agent] = [node for _, node in build_tree(path).walk() if node.kind == "subagent"]
    request = SessionRequest(resume=agent.file, resume_at=agent.leaf_uuid, fork=True)
    launch = Launch(Settings(provider="scripted", model="claude-sonnet-4-5"), cwd=world.project, session=request)
    conversation = open_conversation(launch, provider=ScriptedProvider([]), env=world.env)
    await conversation.aclose()
    return conversation.session_id


def test_a_fork_from_a_sub_agent_resumes_alike_in_both(world: World) -> None:
    world.play(model)
    made = world.run("agentui", "delegate it", "--allowedTools", "Task,Agent,Read")
    forked = asyncio.run(forked_from_sub_agent(world, json.loads(made.stdout)["session_id"]))
    ours = world.resumed_messages("agentui", forked)
    theirs = world.resumed_messages("claude", forked)
    assert [block[2]["text"] for block in ours] == [TASK, "It holds hello and world.", "and now?"]
    assert ours == theirs
