"""Continuation kinds: a default continuation is a new prompt, a rerun sends the last prompt again without its
answer, a branch starts a new session forked at any earlier message; each run says why it started (its trigger)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentui.core.assembly import open_conversation
from agentui.core.continuation import Branched, ContinueError
from agentui.core.control import CommandError, parse_command
from agentui.core.conversation import Conversation, Launch
from agentui.core.events import AgentStart, Event
from agentui.core.messages import Message, TextBlock
from agentui.core.project import PermissionOptions
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.settings import Settings
from tests.core.test_file_history import use


def opened(tmp_path: Path, script: list[dict[str, Any]], branch_script: list[dict[str, Any]]) -> Conversation:
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    (tmp_path / "branch.json").write_text(json.dumps(branch_script))  # (a branch opens its own provider)
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    settings = Settings(provider="scripted", model="scripted", script=tmp_path / "branch.json")
    launch = Launch(settings, cwd=root, permissions=PermissionOptions(mode="acceptEdits"))
    return open_conversation(launch, provider=ScriptedProvider(script), env=env)


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def said(messages: list[Message]) -> list[str]:
    """The prompts and answers (not the reminders and listings sent with them)."""
    texts = [block.text for message in messages for block in message.content if isinstance(block, TextBlock)]
    return [text for text in texts if not text.startswith("<")]


async def test_a_rerun_sends_the_last_prompt_again_without_its_answer_or_tool_calls(tmp_path: Path) -> None:
    script = [{"text": "First."}, use("Read", "r1", file_path="notes.txt"), {"text": "Wrong."}, {"text": "Right."}]
    conversation = opened(tmp_path, script, [])
    (conversation.root / "notes.txt").write_text("hi\n")
    provider = conversation.provider
    assert isinstance(provider, ScriptedProvider)
    starts: list[Event] = []
    conversation.on(lambda event: starts.append(event) if isinstance(event, AgentStart) else None)
    try:
        await conversation.handle(parse_command('{"type": "continue", "text": "one"}'))
        await conversation.send("two")
        result = await conversation.handle(parse_command('{"type": "continue", "kind": "rerun"}'))
    finally:
        await conversation.aclose()
    assert getattr(result, "text", None) == "Right."
    assert said(provider.requests[-1].messages) == ["one", "First.", "two"]  # the Read and "Wrong." are gone
    assert said(conversation.messages) == ["one", "First.", "two", "Right."]
    assert [start.trigger for start in starts if isinstance(start, AgentStart)] == ["default", "default", "rerun"]


async def test_a_branch_forks_a_new_session_at_an_earlier_message(tmp_path: Path) -> None:
    conversation = opened(tmp_path, [{"text": "A1."}, {"text": "A2."}], [{"text": "A3."}])
    try:
        await conversation.send("one")
        await conversation.send("two")
        [first_answer] = [
            entry["uuid"]
            for entry in lines(conversation.session.path)
            if entry.get("type") == "assistant" and entry["message"]["content"][0].get("text") == "A1."
        ]
        before = conversation.session.path.read_text()
        seen: list[Event] = []
        conversation.on(seen.append)
        with pytest.raises(ContinueError, match="no message"):
            await conversation.continue_("branch", "three", "not-a-message")
        branched = await conversation.handle(
            parse_command(json.dumps({"type": "continue", "kind": "branch", "text": "three", "at": first_answer}))
        )
    finally:
        await conversation.aclose()
    assert isinstance(branched, Branched) and branched.session_id != conversation.session_id
    fork = branched.conversation
    try:
        assert said(fork.messages) == ["one", "A1.", "three", "A3."]
        assert fork.session.path.parent == conversation.session.path.parent != fork.session.path
        written = [entry for entry in lines(fork.session.path) if entry.get("type") in ("user", "assistant")]
        assert all(entry["sessionId"] == fork.session_id for entry in written)
        assert conversation.session.path.read_text() == before  # (the session branched from is left as it was)
        branch_start = [event for event in seen if isinstance(event, AgentStart)]
        assert [(event.trigger, event.session_id) for event in branch_start] == [("branch", fork.session_id)]
    finally:
        await fork.aclose()
    starts = [entry for entry in written if entry.get("loopId")]
    assert starts  # the branch's run wrote its loop id


async def test_continuations_that_cannot_be_made_say_so_in_one_sentence(tmp_path: Path) -> None:
    conversation = opened(tmp_path, [], [])
    try:
        with pytest.raises(ContinueError, match="no prompt"):
            await conversation.continue_("rerun")
        with pytest.raises(ContinueError, match="needs a prompt"):
            await conversation.continue_("default", "  ")
        with pytest.raises(ContinueError, match="needs the message"):
            await conversation.continue_("branch", "three")
    finally:
        await conversation.aclose()
    with pytest.raises(CommandError):
        parse_command('{"type": "continue", "kind": "sideways"}')
