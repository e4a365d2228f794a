"""stream-json as Claude Code writes it: the same scenario (a text, a Read, its result, a final text) against the
loopback model server, run by the real Claude Code CLI and by agentui; a consumer written for Claude Code's output
counts the same messages and blocks from both, and the messages carry the fields such consumers read."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.interop.conftest import claude_env
from tests.support.loopback import LoopbackServer, RecordedRequest, Reply
from tests.support.sse import anthropic_stream

PROMPT = "read notes.txt"


def reading_model(server: LoopbackServer, notes: Path) -> None:
    """Says it will read, reads notes.txt, then answers; anything else (a title request) gets a short text."""

    def model(request: RecordedRequest) -> Reply:
        body = request.json()
        last = body["messages"][-1]["content"]
        answered = isinstance(last, list) and any(block.get("type") == "tool_result" for block in last)
        if "tools" not in body:
            return Reply(chunks=anthropic_stream([{"type": "text", "text": "Reading notes"}]))
        if answered:
            return Reply(chunks=anthropic_stream([{"type": "text", "text": "It says hello."}]))
        call = {"type": "tool_use", "id": "toolu_01", "name": "Read", "input": {"file_path": str(notes)}}
        return Reply(
            chunks=anthropic_stream([{"type": "text", "text": "Let me read it."}, call], stop_reason="tool_use")
        )

    server.responder = model


def consume(stdout: str) -> Counter[str]:
    """What a script written for `claude -p --output-format stream-json` counts."""
    counts: Counter[str] = Counter()
    for line in stdout.splitlines():
        message = json.loads(line)
        kind = message["type"]
        if kind == "assistant":
            counts.update(block["type"] for block in message["message"]["content"])
        elif kind == "user":
            counts.update(block["type"] for block in message["message"]["content"] if isinstance(block, dict))
        elif kind == "stream_event":
            counts["stream:" + message["event"]["type"]] += 1
        elif kind in ("result", "system"):
            counts[f"{kind}:{message.get('subtype')}"] += 1
    return counts


def run_both(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path, *flags: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    outputs = []
    for name, command, env in (
        ("claude", claude_bin, claude_env(tmp_path / "claude-home", server.url)),
        (
            "agentui",
            agentui_bin,
            {**claude_env(tmp_path / "agentui-home", server.url), "AGENTUI_CONFIG_DIR": str(tmp_path / "cfg")},
        ),
    ):
        project = tmp_path / name
        project.mkdir()
        (project / "notes.txt").write_text("hello\n")
        Path(env["HOME"]).mkdir()
        reading_model(server, project / "notes.txt")
        done = subprocess.run(
            [command, "-p", PROMPT, "--output-format", "stream-json", "--verbose", "--allowedTools", "Read",
             "--model", "claude-sonnet-4-5", *flags],
            env=env, cwd=project, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert done.returncode == 0, f"{name}: {done.stderr[-2000:]}"
        outputs.append([json.loads(line) for line in done.stdout.splitlines()])
    return outputs[0], outputs[1]


def test_a_stream_json_consumer_counts_the_same_on_both(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    claude, agentui = run_both(claude_bin, agentui_bin, server, tmp_path)
    as_text = ["\n".join(json.dumps(line) for line in output) for output in (claude, agentui)]
    assert (
        consume(as_text[1])
        == consume(as_text[0])
        == Counter({"system:init": 1, "text": 2, "tool_use": 1, "tool_result": 1, "result:success": 1})
    )
    init = agentui[0]
    assert init["claude_code_version"] and set(claude[0]) - set(init) <= {
        "memory_paths", "fast_mode_state", "analytics_disabled", "product_feedback_disabled",
    }  # fmt: skip
    result = agentui[-1]
    assert set(claude[-1]) - set(result) <= {"ttft_ms", "ttft_stream_ms", "time_to_request_ms", "fast_mode_state"}
    assert result["result"] == "It says hello." and result["num_turns"] == 2 and result["permission_denials"] == []
    assert result["modelUsage"]["claude-test"]["inputTokens"] == 24  # two calls of 12, as the server reported
    for ours, theirs in zip(agentui[1:-1], claude[1:-1], strict=True):
        assert ours["type"] == theirs["type"]
        assert set(theirs) - set(ours) <= {"timestamp"} and ours["session_id"] == init["session_id"]
        assert ours["message"]["content"][0]["type"] == theirs["message"]["content"][0]["type"]
    tool_result = agentui[3]
    assert tool_result["message"]["content"][0]["tool_use_id"] == "toolu_01" and "tool_use_result" in tool_result


@pytest.mark.parametrize("flag", ["--include-partial-messages"])
def test_partial_messages_are_the_same_stream_events(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path, flag: str
) -> None:
    claude, agentui = run_both(claude_bin, agentui_bin, server, tmp_path, flag)

    def kinds(output: list[dict[str, Any]]) -> list[str]:
        return [
            line["event"]["type"] if line["type"] == "stream_event" else line["type"]
            for line in output
            if line.get("subtype") != "status"  # (Claude Code's "requesting" status lines)
        ]

    assert kinds(agentui) == kinds(claude)
    events = [line["event"] for line in agentui if line["type"] == "stream_event"]
    deltas = [event["delta"] for event in events if event["type"] == "content_block_delta"]
    text = "".join(delta.get("text", "") for delta in deltas if delta["type"] == "text_delta")
    assert text == "Let me read it.It says hello."


def test_replayed_user_messages_on_stdin_are_the_same(
    claude_bin: str, agentui_bin: str, server: LoopbackServer, tmp_path: Path
) -> None:
    server.responder = lambda request: Reply(chunks=anthropic_stream([{"type": "text", "text": "hello back"}]))
    line = json.dumps({"type": "user", "message": {"role": "user", "content": "hello"}, "parent_tool_use_id": None})
    outputs = []
    for name, command in (("claude", claude_bin), ("agentui", agentui_bin)):
        home = tmp_path / f"{name}-home"
        home.mkdir()
        done = subprocess.run(
            [command, "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
             "--replay-user-messages"],
            input=line + "\n", env={**claude_env(home, server.url), "AGENTUI_CONFIG_DIR": str(home / "cfg")},
            cwd=home, capture_output=True, text=True, timeout=180,
        )  # fmt: skip
        assert done.returncode == 0, f"{name}: {done.stderr[-2000:]}"
        outputs.append([json.loads(out) for out in done.stdout.splitlines()])
    theirs, ours = ([(m["type"], m.get("isReplay", False)) for m in o if m["type"] != "system"] for o in outputs)
    assert ours == theirs == [("user", True), ("assistant", False), ("result", False)]
    replayed = next(m for m in outputs[1] if m.get("isReplay"))
    assert replayed["message"] == {"role": "user", "content": "hello"} and "timestamp" in replayed
