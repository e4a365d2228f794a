"""A Gemini conversation in a Claude Code session file: the thought signatures stay out of the content blocks (the
Messages API rejects a field it does not know when Claude Code resumes the session), kept unchanged beside them, and
put back on the blocks when agentui resumes, so that the next request to Gemini sends them again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agentui.core.loop.agent import AgentConfig
from agentui.core.providers.gemini import GeminiProvider
from agentui.core.session.lookup import SessionRequest
from agentui.core.session.store import open_session
from tests.support.agents import new_agent
from tests.support.gemini_server import KEY, GeminiServer, chunk, stream, text_reply
from tests.support.sessions import claude_code_log_reads, lines

# Opaque model state that happens to hold an AWS access key's shape: it must be kept as it is, not redacted.
SIGNATURE = "Cq8B/AKIAABCDEFGHIJKLMNOP/Zm9vYmFy"
THOUGHT = "CiQB/AKIAQRSTUVWXYZ234567/YmF6cXV4"


@pytest.fixture
def gemini() -> Iterator[GeminiServer]:
    server = GeminiServer()
    try:
        yield server
    finally:
        server.close()


async def test_thought_signatures_stay_beside_the_blocks_and_come_back_on_resume(
    gemini: GeminiServer, tmp_path: Path
) -> None:
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    cwd = tmp_path / "project"
    cwd.mkdir()
    parts = [
        {"text": "Thinking it over.", "thought": True, "thoughtSignature": THOUGHT},
        {"text": "Hello there.", "thoughtSignature": SIGNATURE},
    ]
    gemini.enqueue(stream(chunk(parts, finish="STOP")), text_reply("Again.", signature=None))
    config = AgentConfig(model="gemini-3.8-flash", cwd=cwd)

    opened = open_session(SessionRequest(), cwd, env=env)
    first = GeminiProvider(api_key=KEY, base_url=gemini.url)
    agent = new_agent(first, config, session_id=opened.session_id)
    opened.writer.attach(agent.bus)
    try:
        await agent.prompt("hi")
    finally:
        opened.writer.close()
        await first.aclose()

    assistant = [line for line in lines(opened.path) if line["type"] == "assistant"]
    assert [line["agentuiThoughtSignature"] for line in assistant] == [THOUGHT, SIGNATURE]
    assert all("thought_signature" not in block for line in assistant for block in line["message"]["content"])
    claude_code_log_reads(opened.path)

    resumed = open_session(SessionRequest(resume=opened.session_id), cwd, env=env)
    second = GeminiProvider(api_key=KEY, base_url=gemini.url)
    again = new_agent(second, config, session_id=resumed.session_id, messages=resumed.messages)
    try:
        await again.prompt("and again")
    finally:
        resumed.writer.close()
        await second.aclose()
    model_turn = gemini.requests[-1].json()["contents"][1]
    assert model_turn["role"] == "model"
    assert [part.get("thoughtSignature") for part in model_turn["parts"]] == [THOUGHT, SIGNATURE]
