"""--idle-rotate in the app: a prompt after a longer idle gap goes on in a new session that carries a summary of the
last one; the transcript above stays, the old session stays saved, and a prompt within the gap stays where it is."""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path

from agentui.api import Settings
from agentui.frontends.tui.widgets.transcript import Notice, UserPrompt
from tests.frontends.tui.test_app import Harness, idle, ready, texts, type_and_send, until
from tests.support.loopback import LoopbackServer, Reply
from tests.support.sse import anthropic_stream


async def test_a_prompt_after_the_idle_gap_goes_on_in_a_new_session_with_a_summary(
    tmp_path: Path, server: LoopbackServer
) -> None:
    server.responder = lambda request: Reply(chunks=anthropic_stream([{"type": "text", "text": "In the new one."}]))
    harness = Harness(tmp_path, [{"text": "First."}, {"text": "Still here."}, {"text": "SUMMARY: we said hello."}])
    settings = Settings(provider="anthropic", model="claude-sonnet-4-5", base_url=server.url, api_key="x")
    harness.launch = dataclasses.replace(harness.launch, settings=settings, idle_rotate=5)
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "hello")
        await until(pilot, lambda: idle(app) and len(app.conversation.messages) == 2)
        first = app.conversation
        await type_and_send(pilot, "within the gap")  # (the session file was written a moment ago)
        await until(pilot, lambda: idle(app) and len(app.conversation.messages) == 4)
        assert app.conversation is first

        old = first.session.path
        stale = time.time() - 10 * 60
        os.utime(old, (stale, stale))  # ten minutes idle
        await type_and_send(pilot, "after the gap")
        await until(pilot, lambda: app.conversation is not first and idle(app) and server.requests)
        assert old.exists() and app.conversation.session_id != first.session_id
        sent = server.requests[0].json()["messages"]
        assert "SUMMARY: we said hello." in str(sent) and sent[-1]["content"][-1]["text"] == "after the gap"
        assert "In the new one." in app.conversation.messages[-1].text
        said = [notice.message for notice in texts(app, Notice)]
        assert any("Idle longer than --idle-rotate: a new session" in message for message in said)
        assert "hello" in [prompt.text for prompt in texts(app, UserPrompt)]  # (the transcript above stays)
