"""Parallel attempts against the loopback server, in a real git repository: three branches with different answers
(told apart by model), each strategy's choice, the judge's request, cancelling, events told apart by branch, the
chosen branch's changes applied and its conversation continued in the session, and no worktree left behind."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentui.core.assembly import open_conversation
from agentui.core.conversation import Conversation, Launch
from agentui.core.events import AgentEnd, Event
from agentui.core.parallel.attempts import JUDGE_SYSTEM, AttemptConfig
from agentui.core.project import PermissionOptions
from agentui.core.providers.anthropic import AnthropicProvider
from agentui.core.run_options import RunLimits
from agentui.core.session.lookup import SessionRequest
from agentui.core.settings import Settings
from tests.support.agents import new_agent
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sessions import claude_code_log_reads, lines
from tests.support.sse import anthropic_stream
from tests.support.waiting import eventually
from tests.support.work_tree import committed, git

CONFIGS = [AttemptConfig(model="m1"), AttemptConfig(model="m2"), AttemptConfig(model="m3")]


def write(call_id: str, content: str) -> dict[str, Any]:
    return {
        "type": "tool_use",
        "id": call_id,
        "name": "Write",
        "input": {"file_path": "answer.txt", "content": content},
    }


# What each branch's model does: m1 writes a short answer, m2 only talks, m3 writes a long one and says more.
BRANCH_TURNS = {
    "m1": ([write("w1", "one\n")], "Wrote one.", 100),
    "m2": ([], "Two: nothing to change.", 10),
    "m3": ([write("w3", "three\n" * 20)], "Wrote three, with a long explanation of why three is right. " * 5, 400),
}


class Played:
    """The loopback model: the main conversation's model answers prompts and judges; m1-m3 are the branches."""

    def __init__(self, server: LoopbackServer) -> None:
        self.server = server
        self.judged: list[dict[str, Any]] = []
        self.held: dict[str, threading.Event] = {}
        """Models whose answers wait for their event (set by the test, or at the end)."""
        self.judge_choice = "b3"
        server.responder = self.answer

    def answer(self, request: RecordedRequest) -> Reply:
        body = request.json()
        model = body["model"]
        if JUDGE_SYSTEM.split(".")[0] in json.dumps(body.get("system")):
            self.judged.append(body)
            verdict = {"ranking": [self.judge_choice, "b1", "b2"], "choice": self.judge_choice, "reasons": "Longest."}
            return Reply(chunks=anthropic_stream([{"type": "text", "text": json.dumps(verdict)}]))
        if model not in BRANCH_TURNS:
            return Reply(chunks=anthropic_stream([{"type": "text", "text": "Noted: PINEAPPLE."}]))
        calls, said, tokens = BRANCH_TURNS[model]
        answered = any(
            isinstance(m["content"], list) and any(b.get("type") == "tool_result" for b in m["content"])
            for m in body["messages"][-1:]
        )
        usage = {"input_tokens": tokens, "output_tokens": tokens}
        blocks = calls if calls and not answered else [{"type": "text", "text": said}]
        stop = "tool_use" if blocks is calls else "end_turn"
        return Reply(chunks=anthropic_stream(blocks, stop_reason=stop, usage=usage), gate=self.held.get(model))

    def release(self) -> None:
        for gate in self.held.values():
            gate.set()


@pytest.fixture
def played(server: LoopbackServer) -> Iterator[Played]:
    model = Played(server)
    yield model
    model.release()


@pytest.fixture
def conversation(tmp_path: Path, server: LoopbackServer) -> Iterator[Conversation]:
    root = tmp_path / "project"
    committed(root, {"calc.py": "def add(a, b):\n    return a - b\n"})
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    launch = Launch(
        Settings(provider="anthropic", model="main", base_url=server.url, api_key="x"),
        cwd=root,
        permissions=PermissionOptions(mode="acceptEdits"),
        session=SessionRequest(),
    )
    yield open_conversation(launch, provider=AnthropicProvider(base_url=server.url, api_key="x"), env=env)


def worktrees(root: Path) -> int:
    return git(root, "worktree", "list").count("\n")


@pytest.mark.parametrize(("evaluate", "chosen"), [("tokens", "b2"), ("elaborate", "b3"), ("judge", "b3")])
async def test_three_branches_run_apart_and_the_strategy_chooses(
    conversation: Conversation, played: Played, evaluate: str, chosen: str
) -> None:
    events: list[Event] = []
    conversation.on(events.append)
    root = conversation.root
    try:
        await conversation.agent.prompt("Remember the word PINEAPPLE.")
        attempts, verdict = await conversation.attempt("Write the answer.", CONFIGS, evaluate)
        try:
            assert verdict.chosen == chosen and verdict.ranking[0] == chosen
            assert {b.id: b.result.stop for b in attempts.branches if b.result} == dict.fromkeys(
                ("b1", "b2", "b3"), "end_turn"
            )
            assert worktrees(root) == 4 and not (root / "answer.txt").exists()  # the person's tree untouched
            patches = {b.id: b.patch for b in attempts.branches}
            assert "+one" in patches["b1"] and patches["b2"] == "" and "+three" in patches["b3"]
            # each branch's events reach the conversation's bus, told apart by loop_id
            ended = {e.loop_id for e in events if isinstance(e, AgentEnd)}
            assert ended == {None, "b1", "b2", "b3"}
            if evaluate == "judge":
                (judged,) = played.judged
                said = json.dumps(judged["messages"])
                assert "PINEAPPLE" in said  # the conversation before the attempts
                assert all(f'<attempt id=\\"{b}\\">' in said for b in ("b1", "b2", "b3"))
                assert "Two: nothing to change." in said and "+one" in said and "+three" in said
                assert verdict.usage is not None and verdict.reasons == "Longest."
            attempts.apply(chosen)
        finally:
            attempts.close()
    finally:
        await conversation.aclose()
    assert worktrees(root) == 1 and not attempts.scratch.exists()
    expected = {"b1": "one\n", "b2": None, "b3": "three\n" * 20}[chosen]
    assert (root / "answer.txt").read_text() == expected if expected else not (root / "answer.txt").exists()
    # the chosen branch goes on as the conversation, in memory and in the session's main chain
    assert conversation.agent.messages[-1].text == BRANCH_TURNS[f"m{chosen[1]}"][1]
    written = [e for e in lines(conversation.session.path) if e.get("type") in ("user", "assistant")]
    texts = [
        e["message"]["content"] for e in written if e["type"] == "user" and isinstance(e["message"]["content"], str)
    ]
    assert texts == ["Remember the word PINEAPPLE.", "Write the answer."]  # (once: the chosen branch's prompt)
    notes = [e["content"] for e in lines(conversation.session.path) if e.get("subtype") == "notice"]
    group = f"{evaluate}: {chosen} chosen"  # (the group, recorded in the session)
    assert any(n.startswith("Parallel attempts b1 (m1: end_turn") and group in n for n in notes), notes
    assert written[-1]["message"]["content"][0]["text"] == BRANCH_TURNS[f"m{chosen[1]}"][1]
    claude_code_log_reads(conversation.session.path)
    # every branch also has its own sidechain transcript, as a sub-agent's, which Claude Code's readers load
    sidechains = sorted((conversation.session.path.parent / conversation.session_id / "subagents").glob("*.jsonl"))
    assert len(sidechains) == 3
    for path in sidechains:
        entries = [e for e in lines(path) if "uuid" in e]
        assert (
            entries
            and all(e["isSidechain"] for e in entries)
            and entries[0]["message"]["content"] == "Write the answer."
        )
        claude_code_log_reads(path)


async def test_first_takes_the_first_to_finish_and_stops_the_rest(conversation: Conversation, played: Played) -> None:
    played.held = {"m2": threading.Event(), "m3": threading.Event()}  # (they answer only once b1 has finished)
    try:
        attempts, verdict = await conversation.attempt("Write the answer.", CONFIGS, "first")
        try:
            assert verdict.chosen == "b1"
            stops = {b.id: b.result.stop for b in attempts.branches if b.result}
            assert stops == {"b1": "end_turn", "b2": "cancelled", "b3": "cancelled"}
        finally:
            attempts.close()
    finally:
        played.release()
        await conversation.aclose()


async def test_cancelling_the_attempts_cancels_every_branch(conversation: Conversation, played: Played) -> None:
    played.held = {name: threading.Event() for name in BRANCH_TURNS}  # (no branch ever gets an answer)
    events: list[Event] = []
    conversation.on(events.append)
    root = conversation.root
    task = asyncio.create_task(conversation.attempt("Write the answer.", CONFIGS, "tokens"))
    try:
        await eventually(lambda: len(played.server.requests) >= 3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await eventually(lambda: {e.loop_id for e in events if isinstance(e, AgentEnd)} == {"b1", "b2", "b3"})
        assert {e.stop for e in events if isinstance(e, AgentEnd)} == {"cancelled"}
    finally:
        played.release()
        await conversation.aclose()
    await eventually(lambda: worktrees(root) == 1)


async def test_a_branch_asks_through_the_conversation_and_says_which_it_is(
    conversation: Conversation, played: Played
) -> None:
    from agentui.core.events import PermissionDecision, PermissionRequest

    conversation.set_mode("default")  # (Write asks)
    asked: list[str | None] = []

    def answer(event: Event) -> None:
        if isinstance(event, PermissionRequest):
            asked.append(event.loop_id)
            allow = event.loop_id == "b1"
            conversation.answer(event.request_id, PermissionDecision(behavior="allow" if allow else "deny"))

    conversation.on(answer)
    try:
        attempts, _verdict = await conversation.attempt("Write the answer.", CONFIGS, "tokens")
        try:
            assert sorted(asked) == ["b1", "b3"]  # (b2 writes nothing)
            patches = {b.id: b.patch for b in attempts.branches}
            assert "+one" in patches["b1"] and patches["b3"] == ""  # the denied write was not made
        finally:
            attempts.close()
    finally:
        await conversation.aclose()


async def test_interrupting_the_conversation_stops_every_attempt_and_chooses_none(
    conversation: Conversation, played: Played
) -> None:
    played.held = {name: threading.Event() for name in BRANCH_TURNS}
    task = asyncio.create_task(conversation.attempt("Write the answer.", CONFIGS, "judge"))
    try:
        await eventually(lambda: len(played.server.requests) >= 3)
        assert conversation.running
        conversation.interrupt()
        attempts, verdict = await task
        try:
            assert verdict.chosen is None and "stopped" in verdict.reasons and played.judged == []
            assert {b.result.stop for b in attempts.branches if b.result} == {"cancelled"}
        finally:
            attempts.close()
        assert not conversation.running
    finally:
        played.release()
        await conversation.aclose()


def test_the_judge_reads_every_attempt_within_its_budget(tmp_path: Path) -> None:
    from agentui.core.context.window import TokenCounter
    from agentui.core.loop.agent import AgentConfig
    from agentui.core.messages import Message
    from agentui.core.parallel.attempts import Branch, Judge
    from agentui.core.providers.scripted import ScriptedProvider

    parent = new_agent(ScriptedProvider([]), AgentConfig(model="judge"))
    prior = [Message.user(f"old question {n} " + "words " * 400) for n in range(30)]
    branches = []
    for number in (1, 2, 3):
        agent = new_agent(ScriptedProvider([]), AgentConfig(model="m"), messages=[Message.user("try " + "x" * 50_000)])
        branches.append(Branch(f"b{number}", AttemptConfig(), agent, None, patch="+" + "y" * 80_000))  # type: ignore[arg-type]
    request = Judge(parent, budget=8_000).request(prior, branches)
    text = request.messages[0].text
    assert TokenCounter().count(text) + TokenCounter().count(request.system) <= 8_000
    assert all(f'<attempt id="b{n}">' in text for n in (1, 2, 3))
    assert "old question 29" in text and "old question 0 " not in text and "earlier messages left out" in text


async def test_the_branches_share_one_budget(tmp_path: Path, server: LoopbackServer, played: Played) -> None:
    root = tmp_path / "budgeted"
    committed(root, {"calc.py": "x = 1\n"})
    launch = Launch(
        Settings(provider="anthropic", model="main", base_url=server.url, api_key="x"),
        cwd=root, permissions=PermissionOptions(mode="acceptEdits"),
        limits=RunLimits(max_total_tokens=150),
    )  # fmt: skip
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    conversation = open_conversation(launch, provider=AnthropicProvider(base_url=server.url, api_key="x"), env=env)
    try:
        attempts, _ = await conversation.attempt("Write the answer.", CONFIGS, "tokens")
        try:
            stops = {b.id: b.result.stop for b in attempts.branches if b.result}
        finally:
            attempts.close()
    finally:
        await conversation.aclose()
    # b1 and b3 need two calls; after any first call of theirs the shared pool (150 tokens) is spent.
    assert stops["b1"] == stops["b3"] == "max_total_tokens"
    assert stops["b2"] in ("end_turn", "max_total_tokens")
    assert len(server.requests) <= 3  # (no branch made a second call)
