"""--idle-rotate: a prompt after an idle gap longer than the limit goes on in a new session, a summary of the old
one carried over (made by the compaction summary call), and a SessionRotated event says so."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from agentui.core.assembly import open_conversation
from agentui.core.conversation import Launch
from agentui.core.events import Event, SessionRotated
from agentui.core.idle_rotation import rotate_if_idle
from agentui.core.messages import SUMMARY_PREFIX
from agentui.core.project import PermissionOptions
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.settings import Settings


async def test_a_prompt_after_a_long_idle_gap_goes_on_in_a_new_session_with_a_summary(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (tmp_path / "next.json").write_text(json.dumps([{"text": "A2."}]))  # (the new session's own provider)
    settings = Settings(provider="scripted", model="scripted", script=tmp_path / "next.json")
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    launch = Launch(settings, cwd=root, permissions=PermissionOptions(mode="acceptEdits"), idle_rotate=30)
    provider = ScriptedProvider([{"text": "A1."}, {"text": "We named the cat Tom."}])
    conversation = open_conversation(launch, provider=provider, env=env)
    seen: list[Event] = []
    conversation.on(seen.append)
    try:
        assert await rotate_if_idle(conversation) is None  # (nothing said yet)
        await conversation.send("the cat is called Tom")
        assert await rotate_if_idle(conversation) is None  # (not idle long enough)
        an_hour_ago = time.time() - 3600
        os.utime(conversation.session.path, (an_hour_ago, an_hour_ago))
        fresh = await rotate_if_idle(conversation)
    finally:
        await conversation.aclose()
    assert fresh is not None
    try:
        result = await fresh.send("what is the cat called?")
        [rotated] = [event for event in seen if isinstance(event, SessionRotated)]
        assert rotated.session_id == conversation.session_id and rotated.new_session_id == fresh.session_id
        assert 59 < rotated.idle_minutes < 61 and fresh.session_id != conversation.session_id
        assert "the cat is called Tom" in str(provider.requests[-1].messages)  # (the summary call read the old one)
        texts = [message.text for message in fresh.messages]
        assert texts[0].startswith(SUMMARY_PREFIX) and "We named the cat Tom." in texts[0]
        assert result.text == "A2." and not any(text == "the cat is called Tom" for text in texts)
        assert fresh.session.path.exists() and fresh.session.path != conversation.session.path
    finally:
        await fresh.aclose()


async def test_the_persons_instructions_go_with_the_summary_into_the_new_session(tmp_path: Path) -> None:
    """The summary a rotation carries over is a compaction's: the person's instructions are appended verbatim, though
    the model's summary left them out."""
    root = tmp_path / "project"
    root.mkdir()
    (tmp_path / "next.json").write_text(json.dumps([{"text": "A2."}]))
    settings = Settings(provider="scripted", model="scripted", script=tmp_path / "next.json")
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    launch = Launch(settings, cwd=root, permissions=PermissionOptions(mode="acceptEdits"), idle_rotate=30)
    provider = ScriptedProvider([{"text": "A1."}, {"text": "They talked about a cat."}])
    conversation = open_conversation(launch, provider=provider, env=env)
    try:
        await conversation.send("The cat is called Tom. From now on, call it Thomas in answers.")
        an_hour_ago = time.time() - 3600
        os.utime(conversation.session.path, (an_hour_ago, an_hour_ago))
        fresh = await rotate_if_idle(conversation)
    finally:
        await conversation.aclose()
    assert fresh is not None
    try:
        first = fresh.messages[0].text
        assert first.startswith(SUMMARY_PREFIX) and "They talked about a cat." in first
        assert "- From now on, call it Thomas in answers." in first
    finally:
        await fresh.aclose()
