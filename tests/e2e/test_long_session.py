"""A 500-turn session with large tool outputs, against a model the loopback server plays: it reads real files turn
after turn, answers summary requests, reports usage as it counts each request, and refuses (as a real server does)
any request larger than its context window. The conversation must never send one, must compact as it goes, and
must resume from its session file to the compacted state."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from agentui.core.assembly import open_conversation
from agentui.core.context.compaction import PLACEHOLDER_PREFIX, SUMMARY_PREFIX, SUMMARY_SYSTEM
from agentui.core.conversation import Launch
from agentui.core.messages import Message, ToolUseBlock
from agentui.core.run_options import ModelOptions
from agentui.core.session.lookup import SessionRequest
from agentui.core.settings import Settings
from tests.conftest import assert_valid_history
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sessions import claude_code_log_reads, lines
from tests.support.sse import anthropic_stream

WINDOW = 20_000
PROMPTS = 5
TURNS_PER_PROMPT = 100
FILES = 25


def request_tokens(body: dict[str, Any]) -> int:
    """How the played server counts a request: every character of what the model would read, four to a token."""
    return len(json.dumps([body.get("system"), body.get("tools"), body["messages"]], ensure_ascii=False)) // 4


class PlayedModel:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.calls = 0
        self.summaries: list[str] = []
        self.sizes: list[int] = []
        self.refused: list[int] = []
        self.kinds: list[str] = []
        """"turn" or "summary", per request, in order."""

    def __call__(self, request: RecordedRequest) -> Reply:
        body = request.json()
        tokens = request_tokens(body)
        with self.lock:
            self.sizes.append(tokens)
            if tokens > WINDOW:
                self.refused.append(tokens)
                return Reply.error(
                    400,
                    {
                        "type": "error",
                        "error": {
                            "type": "invalid_request_error",
                            "message": f"prompt is too long: {tokens} tokens > {WINDOW} maximum",
                        },
                    },
                )
            usage = {"input_tokens": tokens, "output_tokens": 60}
            if body["system"][0]["text"] == SUMMARY_SYSTEM:
                self.kinds.append("summary")
                summary = f"SUMMARY-{len(self.summaries) + 1}: the user has me read the data files one by one."
                self.summaries.append(summary)
                return Reply(
                    chunks=anthropic_stream(
                        [{"type": "text", "text": summary}],
                        usage=usage,
                        message_id=f"msg_summary_{len(self.summaries)}",
                    )
                )
            self.kinds.append("turn")
            self.calls += 1
            number = self.calls
        message_id = f"msg_{number:04d}"
        if number % TURNS_PER_PROMPT == 0:
            return Reply(
                chunks=anthropic_stream(
                    [{"type": "text", "text": f"Read them all ({number})."}], usage=usage, message_id=message_id
                )
            )
        thought = f"Turn {number}: next I read file {number % FILES}, to compare it with the ones before. " * 3
        read = {
            "type": "tool_use",
            "id": f"toolu_{number:04d}",
            "name": "Read",
            "input": {"file_path": f"data/file_{number % FILES:02d}.txt"},
        }
        return Reply(
            chunks=anthropic_stream(
                [{"type": "text", "text": thought}, read], stop_reason="tool_use", usage=usage, message_id=message_id
            )
        )


def make_project(root: Path) -> None:
    (root / "data").mkdir(parents=True)
    for number in range(FILES):
        text = "".join(
            f"file {number:02d} line {line:03d}: " + "lorem ipsum dolor sit amet " * 2 + "\n" for line in range(100)
        )
        (root / "data" / f"file_{number:02d}.txt").write_text(text)  # about 2,000 tokens as Read shows it


def launch(root: Path, server: LoopbackServer, session: SessionRequest = SessionRequest()) -> Launch:
    settings = Settings(
        provider="anthropic",
        model="claude-test",
        base_url=server.url,
        api_key="x",
        options=ModelOptions(context_window=WINDOW),
        max_attempts=1,
    )
    return Launch(settings=settings, cwd=root, session=session)


def shape(messages: list[Message]) -> list[tuple[str, list[str]]]:
    """Roles and tool call ids: what must survive a save and a resume (tool results may differ: the file keeps the
    originals of results the live history shortened)."""
    return [(m.role, [b.id for b in m.content if isinstance(b, ToolUseBlock)]) for m in messages]


async def test_500_turns_with_large_tool_outputs_never_exceed_the_window_and_resume_compacted(
    tmp_path: Path, server: LoopbackServer
) -> None:
    root = tmp_path / "project"
    make_project(root)
    model = PlayedModel()
    server.responder = model

    conversation = open_conversation(launch(root, server))
    try:
        for prompt in range(PROMPTS):
            result = await conversation.agent.prompt(f"Read the data files, round {prompt + 1}.")
            assert result.stop == "end_turn", result.error
        live = list(conversation.agent.messages)
    finally:
        await conversation.aclose()
    path = conversation.session.path

    # Never more than the window, and compaction did its work: placeholders first, summaries when needed.
    assert model.calls == PROMPTS * TURNS_PER_PROMPT
    assert model.refused == [] and max(model.sizes) <= WINDOW
    assert len(model.summaries) >= 2
    bodies = [r.json() for r in server.requests]
    assert any(PLACEHOLDER_PREFIX in json.dumps(b["messages"]) for b in bodies)
    start, made, compactions = 0, 0, 0
    while start < len(model.kinds):  # (each compaction: its summary requests, one per piece of work, sent at once)
        if model.kinds[start] != "summary":
            start += 1
            continue
        end = start
        while end < len(model.kinds) and model.kinds[end] == "summary":
            end += 1
        before, after = bodies[start - 1], bodies[end]
        first = after["messages"][0]["content"][0]["text"]
        assert first.startswith(SUMMARY_PREFIX)
        assert all(summary in first for summary in model.summaries[made : made + end - start])
        assert len(after["messages"]) < len(before["messages"]) / 2  # the old turns are gone, not just shortened
        start, made, compactions = end, made + end - start, compactions + 1
    assert "toolu_0001" not in json.dumps(bodies[-1])

    # The file: one boundary and summary per compaction, and it resumes to the compacted history.
    entries = [e for e in lines(path) if "uuid" in e]
    boundaries = [i for i, e in enumerate(entries) if e.get("subtype") == "compact_boundary"]
    assert len(boundaries) == compactions
    for index in boundaries:
        boundary, summary = entries[index], entries[index + 1]
        assert boundary["parentUuid"] is None and boundary["logicalParentUuid"] == entries[index - 1]["uuid"]
        assert boundary["compactMetadata"]["trigger"] == "auto" and boundary["compactMetadata"]["preTokens"] > 0
        assert summary["isCompactSummary"] is True and summary["parentUuid"] == boundary["uuid"]
    claude_code_log_reads(path)

    server.requests.clear()
    resumed = open_conversation(launch(root, server, SessionRequest(resume=conversation.session_id)))
    try:
        history = resumed.agent.messages
        assert shape(history) == shape(live) and history[0].text.startswith(SUMMARY_PREFIX)
        assert_valid_history(history)
        result = await resumed.agent.prompt("One more round.")
        assert result.stop == "end_turn", result.error
    finally:
        await resumed.aclose()
    first_request = server.requests[0].json()
    assert first_request["messages"][0]["content"][0]["text"].startswith(SUMMARY_PREFIX)
    assert model.refused == []
