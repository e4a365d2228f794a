"""Keystroke to screen late in a long agent run, in a pseudo-terminal read by a terminal emulator (pyte): a model
played on loopback reads a small file a turn for 600 turns; at turns 1, 300 and 600 its answer streams at 100
tokens/s before the call, and keys are typed into the prompt meanwhile, each timed until it is on screen. Claude Code
runs the same session beside agentui when installed (`python -m bench.peers --install`).

    python -m bench.keys_late
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from bench import gc_watch
from bench.common import Result, emit, home_and_project, run_alone
from bench.keys import aside_reply, key_row, type_and_time
from bench.pty_terminal import PtyTerminal

TURNS = 600
MARKS = (1, 300, 600)
"""The turns at which keys are timed."""
RATE = 100
"""Tokens a second the answer at a mark streams at (a token: four characters, one delta each)."""
MARK_TOKENS = 1200
KEYS = 36
"""Keys timed at each mark (all three marks' keys stay on the prompt's first line at 120 columns)."""
READY = {"agentui": "Ask for something", "claude": "for shortcuts"}
DONE = "All the files are read"
FILES = 20


def _mark(turn: int) -> str:
    return f"Mark-{turn}-paragraph"


def _mark_text(turn: int) -> str:
    words = [f"{_mark(turn)} {n}: the handler reads the request, checks it and answers." for n in range(200)]
    return "\n\n".join(" ".join(words[n : n + 4]) for n in range(0, len(words), 4))[: MARK_TOKENS * 4]


class PlayedRun:
    """Each request of the agent's loop (one offering Read) is the next turn: a Read of one of the files until
    TURNS, then DONE. (Counted as they come: a peer may send the history in another shape.)"""

    def __init__(self, project: Path) -> None:
        self.project = project
        self.turn = 0

    def __call__(self, request: Any) -> Any:
        from tests.support.loopback import Reply
        from tests.support.sse import anthropic_stream

        body = request.json() if request.body else {}
        if (aside := aside_reply(request, body)) is not None:
            return aside
        tools = {tool.get("name") for tool in body.get("tools", [])}
        usage = {"input_tokens": 20, "output_tokens": 10, "cache_read_input_tokens": 2_000}
        if "Read" not in tools:  # a side question streamed: a short answer
            return Reply(chunks=anthropic_stream([{"type": "text", "text": "Bench"}], usage=usage))
        self.turn += 1
        turn = self.turn
        if turn > TURNS:
            return Reply(chunks=anthropic_stream([{"type": "text", "text": f"{DONE}."}], usage=usage))
        path = str(self.project / "data" / f"f{turn % FILES:02}.txt")
        call: dict[str, Any] = {"type": "tool_use", "id": f"toolu_{turn}", "name": "Read", "input": {"file_path": path}}
        blocks: list[dict[str, Any]]
        if turn in MARKS:
            text = _mark_text(turn)
            blocks = [{"type": "text", "text": text}, call]
            chunks = anthropic_stream(blocks, stop_reason="tool_use", usage=usage, pieces=len(text) // 4)
            return Reply(chunks=chunks, delay=1 / RATE)
        blocks = [{"type": "text", "text": f"Reading file {turn}."}, call]
        return Reply(chunks=anthropic_stream(blocks, stop_reason="tool_use", usage=usage))


def measure(
    name: str, command: str, env: dict[str, str], project: Path, at_end: Callable[[], object] | None = None
) -> dict[int, list[float]]:
    """Keys timed at each mark of the run; `at_end` is called once the run is done, before the program ends."""
    terminal = PtyTerminal(command, env, project, width=120, height=40)
    by_mark: dict[int, list[float]] = {}
    try:
        terminal.wait_for(READY[name], timeout=60)
        time.sleep(1)
        terminal.type("Read the data files one by one")
        terminal.keys("Enter")
        typed = "x"
        terminal.wait_for(_mark(MARKS[0]), timeout=120)
        terminal.type(typed)  # a prefix the typed keys follow, so that they cannot match anything else on screen
        terminal.wait_for(typed, timeout=10)
        for mark in MARKS:
            terminal.wait_for(_mark(mark), timeout=900)
            by_mark[mark] = type_and_time(terminal, KEYS, typed)
            typed += "".join("qz"[n % 2] for n in range(KEYS))
        terminal.wait_for(DONE, timeout=300)
        if at_end is not None:
            at_end()
        return by_mark
    finally:
        terminal.close()


def _project(root: Path) -> None:
    data = root / "data"
    data.mkdir()
    for n in range(FILES):
        (data / f"f{n:02}.txt").write_text("".join(f"line {k} of file {n}\n" for k in range(8)))


def benchmarks() -> Iterator[Result]:
    from bench.peers import claude_at_its_prompt, installed
    from tests.support.loopback import LoopbackServer

    server = LoopbackServer()
    results: dict[str, dict[int, list[float]]] = {}
    try:
        with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as scratch:
            home, project = home_and_project(Path(scratch))
            _project(project)
            env = claude_at_its_prompt(home, project, server.url)  # (agentui reads the same key and server)
            server.responder = PlayedRun(project)
            watched = gc_watch.Watched(Path(scratch), env)
            results["agentui"] = measure("agentui", watched.command, watched.env, project, watched.ask)
            gc_row = watched.row("app.gc_full_600_turns", f"a {TURNS}-turn agent run in the app")
            claude = installed().get("claude")
            if claude:
                server.responder = PlayedRun(project)
                results["claude"] = measure("claude", claude, env, project)
    finally:
        server.close()
    yield from _rows(results)
    yield emit(gc_row)


def _rows(results: dict[str, dict[int, list[float]]]) -> Iterator[Result]:
    for mark in MARKS:
        ours = results["agentui"][mark]
        yield emit(
            key_row(
                f"app.keystroke_turn_{mark}",
                ours,
                results["claude"][mark] if "claude" in results else None,
                f"key to screen at turn {mark} of a {TURNS}-turn agent run (a Read a turn), while that turn's answer "
                f"streams at {RATE} tokens/s; slowest {max(ours) * 1000:.0f} ms",
            )
        )


if __name__ == "__main__":
    run_alone(benchmarks)
