"""Keystroke to screen in a pseudo-terminal read by a terminal emulator (pyte, `bench/pty_terminal.py`): each key typed
with nothing going on, then while an answer streams at 100 tokens/s from a model server on loopback. Claude Code
runs beside agentui in the same run when installed (`python -m bench.peers --install`), against the same server."""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.common import Result, agentui_bin, emit, home_and_project, percentile, run_alone
from bench.pty_terminal import PtyTerminal

RATE = 100
"""Tokens per second the answer streams at (a token: four characters, one delta each)."""
ANSWER_TOKENS = 4000
KEYS = 60
READY = {"agentui": "Ask for something", "claude": "for shortcuts"}
ANSWERING = "Streaming-paragraph"


def _answer() -> str:
    words = [f"{ANSWERING} {n}: the handler reads the request, checks it and answers." for n in range(400)]
    return "\n\n".join(" ".join(words[n : n + 4]) for n in range(0, len(words), 4))


def aside_reply(request: Any, body: dict[str, Any]) -> Any:
    """The answer to what is not the agent's streamed turn (a token count, a title, a check): at once, short; None
    for a streamed turn."""
    from tests.support.loopback import Reply

    if "count_tokens" in request.path:
        return Reply(chunks=[b'{"input_tokens": 100}'], content_type="application/json")
    if body.get("stream"):
        return None
    message = {
        "id": "msg_bench",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "claude-bench"),
        "content": [{"type": "text", "text": "Bench"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    return Reply(chunks=[json.dumps(message).encode()], content_type="application/json")


def _responder(request: Any) -> Any:
    from tests.support.loopback import Reply
    from tests.support.sse import anthropic_stream

    body = request.json() if request.body else {}
    if (aside := aside_reply(request, body)) is not None:
        return aside
    text = _answer()[: ANSWER_TOKENS * 4]
    return Reply(chunks=anthropic_stream([{"type": "text", "text": text}], pieces=len(text) // 4), delay=1 / RATE)


def type_and_time(terminal: PtyTerminal, count: int, prefix: str) -> list[float]:
    """Type `count` keys, one at a time, each timed from its write to the read that put the text typed so far on the
    screen."""
    typed, latencies = "", []
    for n in range(count):
        key = "qz"[n % 2]
        typed += key
        latencies.append(terminal.type_and_wait(key, prefix + typed))
        time.sleep(0.02)  # (a person's keys come apart; the next key is not typed into the frame of the last)
    return latencies


def measure(name: str, command: str, env: dict[str, str], project: Path) -> tuple[list[float], list[float]]:
    """Latencies idle, then while the answer streams."""
    terminal = PtyTerminal(command, env, project, width=120, height=40)
    try:
        terminal.wait_for(READY[name], timeout=60)
        time.sleep(1)  # (whatever either does just after its first screen is not what is measured)
        terminal.type("x")  # a prefix the typed keys follow, so that they cannot match anything else on screen
        terminal.wait_for("x", timeout=10)
        idle = type_and_time(terminal, KEYS // 2, "x")
        terminal.keys("Enter")
        terminal.wait_for(ANSWERING, timeout=60)
        terminal.type("y")
        busy = type_and_time(terminal, KEYS, "y")
        return idle, busy
    finally:
        terminal.close()


def benchmarks() -> Iterator[Result]:
    from bench.peers import claude_at_its_prompt, installed
    from tests.support.loopback import LoopbackServer

    server = LoopbackServer()
    server.responder = _responder
    try:
        with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as scratch:
            home, project = home_and_project(Path(scratch))
            env = claude_at_its_prompt(home, project, server.url)  # (agentui reads the same key and server)
            results = {"agentui": measure("agentui", agentui_bin(), env, project)}
            claude = installed().get("claude")
            if claude:
                results["claude"] = measure("claude", claude, env, project)
    finally:
        server.close()
    busy = f"while an answer streams at {RATE} tokens/s"
    for when, index in (("streaming", 1), ("idle", 0)):
        yield emit(
            key_row(
                f"app.keystroke_{when}",
                results["agentui"][index],
                results["claude"][index] if "claude" in results else None,
                f"key to screen in a pseudo-terminal read by pyte; "
                f"{busy if when == 'streaming' else 'nothing running'}",
            )
        )


def key_row(name: str, ours: list[float], theirs: list[float] | None, note: str) -> Result:
    """A row of key latencies (seconds) against Claude Code's in the same run, when it ran."""
    median, p95 = percentile(ours, 0.5) * 1000, percentile(ours, 0.95) * 1000
    peer, met = "", p95 <= 50
    if theirs is not None:
        peer_median = percentile(theirs, 0.5) * 1000
        peer = f"Claude Code median {peer_median:.1f} ms, p95 {percentile(theirs, 0.95) * 1000:.1f} ms"
        met = met and median <= 0.7 * peer_median
    return Result(
        name,
        median,
        "ms",
        n=len(ours),
        p95=p95,
        target="median ≤ 0.7× Claude Code's, p95 ≤ 50 ms",
        met=met,
        peer=peer,
        note=note,
    )


if __name__ == "__main__":
    run_alone(benchmarks)
