"""AskUserQuestion with `question_timeout`, against the loopback Messages API: a question nobody answers is resolved
with each question's first option when the time is up, and the model is told the person did not answer; an answer
that comes in time is the answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentui.core.assembly import open_conversation
from agentui.core.conversation import Conversation, Launch
from agentui.core.events import Event, PermissionDecision, PermissionRequest, PermissionResolved
from agentui.core.providers.anthropic import AnthropicProvider
from agentui.core.settings import Settings
from tests.core.test_budgets import answering
from tests.support.loopback import LoopbackServer

ASK = {
    "type": "tool_use",
    "id": "q1",
    "name": "AskUserQuestion",
    "input": {
        "questions": [
            {
                "question": "Which database?",
                "header": "Database",
                "options": [{"label": "SQLite (Recommended)"}, {"label": "Postgres"}],
                "multiSelect": False,
            }
        ]
    },
}


def opened(tmp_path: Path, server: LoopbackServer, timeout: float | None) -> tuple[Conversation, list[Event]]:
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    settings = Settings(provider="anthropic", model="claude-sonnet-4-5", base_url=server.url, api_key="x",
                        question_timeout=timeout)  # fmt: skip
    conversation = open_conversation(
        Launch(settings, cwd=root), provider=AnthropicProvider(base_url=server.url, api_key="x")
    )
    events: list[Event] = []
    conversation.on(events.append)
    return conversation, events


def model(server: LoopbackServer) -> None:
    def answer(body: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
        asked = "tool_result" in json.dumps(body["messages"][-1])
        return ([{"type": "text", "text": "Going on."}] if asked else [ASK]), 100

    answering(server, answer)


def result_text(server: LoopbackServer) -> str:
    return json.dumps(server.requests[1].json()["messages"][-1]["content"][0])


async def test_an_unanswered_question_goes_on_with_the_first_option_and_says_so(
    tmp_path: Path, server: LoopbackServer
) -> None:
    model(server)
    conversation, events = opened(tmp_path, server, timeout=0.5)
    try:
        result = await conversation.send("set up storage")
    finally:
        await conversation.aclose()
    assert result.stop == "end_turn" and len(server.requests) == 2
    said = result_text(server)
    assert "did not answer within 0.5 seconds, so the stated defaults were taken" in said
    assert '\\"Which database?\\"=\\"SQLite (Recommended)\\"' in said and '"is_error": true' not in said
    [resolved] = [event for event in events if isinstance(event, PermissionResolved)]
    assert resolved.decision.behavior == "allow"


async def test_an_answer_in_time_is_the_answer(tmp_path: Path, server: LoopbackServer) -> None:
    model(server)
    conversation, _ = opened(tmp_path, server, timeout=600)

    def answer(event: Event) -> None:
        if isinstance(event, PermissionRequest):
            answers = {"Which database?": "Postgres"}
            decision = PermissionDecision(behavior="allow", updated_input={**event.input, "answers": answers})
            conversation.answer(event.request_id, decision)

    conversation.on(answer)
    try:
        await conversation.send("set up storage")
    finally:
        await conversation.aclose()
    said = result_text(server)
    assert "User has answered your questions" in said and "Postgres" in said and "did not answer" not in said
