"""Loops you can trace: every run (the conversation's, each sub-agent's) carries its loop id and its parent's on its
events and on the session lines it writes, and `agentui trace SESSION` prints the tree from the files."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentui.core.events import AgentEnd, AgentStart, Event
from tests.core.test_file_history import open_conversation, use


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


SUB_AGENT_SCRIPT = [
    use("Task", "t1", description="look", prompt="Read notes.txt"),
    use("Read", "r1", file_path="notes.txt"),
    {"text": "The notes say hi."},
    {"text": "Done."},
    {"text": "Second answer."},
]


async def test_each_run_and_each_sub_agent_run_is_a_loop_with_its_parent(tmp_path: Path) -> None:
    conversation = open_conversation(tmp_path, SUB_AGENT_SCRIPT)
    (conversation.root / "notes.txt").write_text("hi\n")
    seen: list[Event] = []
    child: list[Event] = []
    conversation.on(seen.append)
    conversation.on_subagent(lambda call_id, event: child.append(event))
    try:
        await conversation.send("what do the notes say?")
        await conversation.send("and again?")
    finally:
        await conversation.aclose()
    starts = [event for event in seen if isinstance(event, AgentStart)]
    ends = [event for event in seen if isinstance(event, AgentEnd)]
    assert len(starts) == 2 and all(start.run_loop_id and start.parent_loop_id is None for start in starts)
    assert starts[0].run_loop_id != starts[1].run_loop_id
    assert [end.run_loop_id for end in ends] == [start.run_loop_id for start in starts]
    [child_start] = [event for event in child if isinstance(event, AgentStart)]
    assert child_start.parent_loop_id == starts[0].run_loop_id and child_start.run_loop_id

    # On the session lines, as keys of their own: the main file's by run, the sidechain's with its parent.
    written = [entry for entry in lines(conversation.session.path) if entry.get("type") in ("user", "assistant")]
    assert {entry["loopId"] for entry in written} == {start.run_loop_id for start in starts}
    assert all("parentLoopId" not in entry for entry in written)
    [sidechain] = (conversation.session.path.parent / conversation.session_id / "subagents").glob("agent-*.jsonl")
    side = [entry for entry in lines(sidechain) if entry.get("type") in ("user", "assistant")]
    assert side and all(entry["loopId"] == child_start.run_loop_id for entry in side)
    assert all(entry["parentLoopId"] == starts[0].run_loop_id for entry in side)

    # `agentui trace` draws the tree: the sub-agent's loop under the first run, with its turn and its Read.
    env = {**os.environ, "HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    traced = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "agentui", "trace", conversation.session_id],
        cwd=conversation.root, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert traced.returncode == 0, traced.stderr
    first, sub, second = traced.stdout.splitlines()
    root_id, child_id = str(starts[0].run_loop_id), str(child_start.run_loop_id)
    assert first.startswith(f"loop {root_id[:8]}:") and "2 turns" in first and "Task×1" in first
    assert sub.startswith(f"  loop {child_id[:8]} (parent {root_id[:8]}): sub-agent ") and "Read×1" in sub
    assert second.startswith(f"loop {str(starts[1].run_loop_id)[:8]}:") and "no tools" in second


def test_trace_of_no_such_session_is_one_sentence(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    traced = subprocess.run(
        [sys.executable, "-m", "agentui", "trace", str(tmp_path / "none.jsonl")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert traced.returncode == 1 and traced.stderr.startswith("agentui: There is no session file")
    assert "Traceback" not in traced.stderr


def test_a_session_without_loop_ids_is_one_loop_with_its_turns_tools_and_cost(tmp_path: Path) -> None:
    """Claude Code's own sessions (and older agentui's) have no loop ids: their lines are one loop."""
    from agentui.core.session.trace import render_trace, trace_session

    usage = {"input_tokens": 1000, "output_tokens": 100, "cache_read_input_tokens": 0}
    answer = {"id": "msg_1", "model": "claude-sonnet-4-5", "usage": usage, "role": "assistant"}
    entries = [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}},
        {"type": "assistant", "uuid": "a1", "message": {**answer, "content": [{"type": "text", "text": "Looking."}]}},
        {"type": "assistant", "uuid": "a2", "message": {**answer, "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}]}},  # (same answer)
        {"type": "summary", "summary": "hi"},
    ]  # fmt: skip
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries) + '{"cut short')
    [loop] = trace_session(path)
    assert loop.turns == 1 and loop.tools == ["Bash"] and loop.usage.input_tokens == 1000 and loop.cost > 0
    assert render_trace([loop]).startswith("loop (no loop id): 1 turns, 1 tool calls (Bash×1), 1100 tokens, $0.0")


def test_an_answer_written_a_line_per_block_costs_what_its_last_line_says(tmp_path: Path) -> None:
    """Claude Code writes an answer a line per block as each ends: the first carries the output counted so far (3),
    the last the whole answer's (190). The trace counts the answer once, at its last line's count."""
    from agentui.core.session.trace import trace_session

    def line(uuid: str, output: int, block: dict[str, Any]) -> dict[str, Any]:
        usage = {"input_tokens": 10, "output_tokens": output}
        message = {"id": "msg_1", "model": "claude-sonnet-4-5", "role": "assistant", "usage": usage, "content": [block]}
        return {"type": "assistant", "uuid": uuid, "message": message}

    entries = [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}},
        line("a1", 3, {"type": "text", "text": "Looking."}),
        line("a2", 190, {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}),
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    [loop] = trace_session(path)
    assert (loop.turns, loop.usage.output_tokens, loop.usage.input_tokens) == (1, 190, 10)
    assert loop.cost == pytest.approx((10 * 3 + 190 * 15) / 1e6)
