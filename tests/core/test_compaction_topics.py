"""Compaction by topic: older turns grouped into pieces of work (files touched, kinds of tool, time gaps), a summary
section per piece, and the measurement that it keeps more of what later turns ask about than one summary, with a
summarising model on 127.0.0.1 that keeps the same budget of its input for both."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agentui.core.context.topics import MAX_TOPICS, group_by_topic
from agentui.core.context.window import TokenCounter
from agentui.core.events import CompactionEnd, Event
from agentui.core.loop.agent_config import AgentConfig
from agentui.core.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock, is_summary
from agentui.core.providers.anthropic import AnthropicProvider
from agentui.core.session.lookup import SessionRequest
from agentui.core.session.reader import load_session
from agentui.core.session.store import open_session
from agentui.core.settings import ConfigFile, Overrides, resolve_settings
from tests.support.agents import new_agent
from tests.support.loopback import LoopbackServer
from tests.support.sessions import claude_code_log_reads, lines
from tests.support.topic_session import (
    ANSWER_BUDGET,
    WORKS,
    compacted_summary,
    first_words,
    long_session,
    retained,
)

COUNTER = TokenCounter.estimating()


@pytest.fixture
def summariser() -> Iterator[LoopbackServer]:
    server = LoopbackServer()
    server.responder = first_words(ANSWER_BUDGET)
    try:
        yield server
    finally:
        server.close()


def step(call_id: str, name: str, given: dict[str, str], result: str = "r " * 400) -> list[Message]:
    return [
        Message(role="assistant", content=[ToolUseBlock(id=call_id, name=name, input=given)]),
        Message(role="user", content=[ToolResultBlock(tool_use_id=call_id, content=result)]),
    ]


def test_a_piece_of_work_ends_where_the_files_change_and_a_test_goes_with_its_module() -> None:
    messages = [
        Message.user("fix tests/test_parser.py::test_nested please"),
        *step("a", "Read", {"file_path": "src/parser.py"}),
        *step("b", "Bash", {"command": "pytest tests/test_parser.py -x"}),
        *step("c", "Edit", {"file_path": "src/parser.py", "old_string": "x", "new_string": "y"}),
        Message.user("now the login page"),
        *step("d", "Read", {"file_path": "web/login.html"}),
        *step("e", "Grep", {"pattern": "csrf", "path": "web/login.html"}),
        *step("f", "WebFetch", {"url": "https://example.com/csrf"}),
        *step("g", "WebSearch", {"query": "csrf tokens"}),
    ]
    topics = group_by_topic(messages, COUNTER)
    assert [(t.start, t.end) for t in topics] == [(0, 7), (7, 12), (12, 16)]
    assert topics[0].heading() == "tests/test_parser.py, src/parser.py"
    assert topics[1].heading().startswith("web/login.html")
    assert topics[2].heading() == "Work with web"  # (no files: the kind of tool changed)


def test_a_time_gap_starts_a_new_piece_and_tiny_pieces_join_a_neighbour() -> None:
    messages = [*step("a", "Read", {"file_path": "a.py"}), *step("b", "Read", {"file_path": "a.py"})]
    messages += step("c", "Read", {"file_path": "b.py"}, result="tiny")
    times = [0.0, 1.0, 3600.0, 3601.0, 3602.0, 3603.0]
    topics = group_by_topic(messages, COUNTER, times)
    assert [(t.start, t.end) for t in topics] == [(0, 2), (2, 6)]  # b.py's stray call is too small to stand alone
    assert group_by_topic(messages, COUNTER, [0.0] * 6)[0].end == 6  # without the gap, one piece


def test_many_pieces_of_work_share_a_bounded_number_of_sections() -> None:
    messages = [m for n in range(20) for m in step(f"c{n}", "Edit", {"file_path": f"module{n}.py"})]
    topics = group_by_topic(messages, COUNTER)
    assert len(topics) == MAX_TOPICS
    assert [t.start for t in topics[1:]] == [t.end for t in topics[:-1]] and topics[-1].end == len(messages)


def test_compaction_by_topic_keeps_more_of_what_later_turns_ask_about_than_one_summary(
    summariser: LoopbackServer,
) -> None:
    """The same model and the same answer budget in all: grouping is what differs."""
    for rounds in (1, 3):
        single = retained(compacted_summary(summariser, by_topic=False, rounds=rounds))
        by_topic = retained(compacted_summary(summariser, by_topic=True, rounds=rounds))
        assert len(by_topic) >= len(single) > 0, rounds
    assert len(by_topic) > len(single)  # (the longer session: a piece's request survives for every piece)
    assert all(work.failing_test in by_topic for work in WORKS)


def test_the_topic_summary_is_one_summary_message_with_a_section_per_piece(summariser: LoopbackServer) -> None:
    summary = compacted_summary(summariser, by_topic=True)
    headings = [line for line in summary.splitlines() if line.startswith("## ")]
    assert headings == [f"## tests/test_{work.module}.py, src/{work.module}.py" for work in WORKS]
    calls = [request.json() for request in summariser.requests]
    assert len(calls) == len(WORKS)
    assert sum(call["max_tokens"] for call in calls) <= ANSWER_BUDGET  # (the sections share one summary's budget)
    assert "piece 2 of 5, the work on tests/test_auth.py" in str(calls[1]["messages"])


def test_compact_by_topic_is_on_by_default_and_a_setting_turns_it_off() -> None:
    env = {"ANTHROPIC_API_KEY": "k"}
    assert resolve_settings(Overrides(), env=env, config=ConfigFile()).options.compact_by_topic
    off = ConfigFile(compact_by_topic=False)
    assert not resolve_settings(Overrides(), env=env, config=off).options.compact_by_topic


async def test_a_short_history_of_one_piece_is_summarised_with_one_call(summariser: LoopbackServer) -> None:
    messages = [Message.user("hello"), *step("a", "Read", {"file_path": "a.py"})]
    messages += [Message(role="assistant", content=[TextBlock(text="done")])]
    agent = new_agent(
        AnthropicProvider(base_url=summariser.url, api_key="x"),
        AgentConfig(model="claude-sonnet-4-5"),
        messages=messages,
        counter=COUNTER,
    )
    seen: list[Event] = []
    agent.bus.on(seen.append)
    assert await agent.compactor.compact("manual", window=10_000)
    assert len(summariser.requests) == 1 and is_summary(agent.history.messages[0])
    assert "## " not in agent.history.messages[0].text
    assert [type(event) for event in seen if isinstance(event, CompactionEnd)] == [CompactionEnd]


async def test_a_pause_between_runs_on_the_same_file_starts_a_new_section(summariser: LoopbackServer) -> None:
    agent = new_agent(
        AnthropicProvider(base_url=summariser.url, api_key="x"), AgentConfig(model="claude-sonnet-4-5"), counter=COUNTER
    )
    history, now = agent.history, [0.0]
    history.clock = lambda: now[0]
    for number, said in enumerate(["look at a.py", "look at a.py again", "thanks"]):
        now[0] = number * 3600.0  # (an hour between the runs)
        history.messages.append(Message.user(said))
        if number < 2:
            history.messages += step(f"r{number}", "Read", {"file_path": "a.py"}, result="r " * 2000)
        history.answered(Message(role="assistant", content=[TextBlock(text=f"done {number}")]))
    assert await agent.compactor.compact("manual", window=10_000)
    assert agent.history.messages[0].text.count("## a.py") == 2
    assert len(summariser.requests) == 2


async def test_a_topic_summary_is_written_as_claude_codes_compact_boundary_and_resumes(
    summariser: LoopbackServer, tmp_path: Path
) -> None:
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    opened = open_session(SessionRequest(), tmp_path, env=env)
    agent = new_agent(
        AnthropicProvider(base_url=summariser.url, api_key="x"),
        AgentConfig(model="claude-sonnet-4-5", cwd=tmp_path),
        messages=long_session(),
        counter=COUNTER,
        session_id=opened.session_id,
    )
    opened.writer.attach(agent.bus)
    await agent.compact()
    opened.writer.close()
    boundary = next(e for e in lines(opened.path) if e.get("subtype") == "compact_boundary")
    assert boundary["compactMetadata"]["trigger"] == "manual"
    resumed = load_session(opened.path).messages
    assert resumed[0].text == agent.history.messages[0].text and resumed[0].text.count("\n## ") >= 2
    assert [(m.role, m.content) for m in resumed] == [(m.role, m.content) for m in agent.history.messages]
    claude_code_log_reads(opened.path)
