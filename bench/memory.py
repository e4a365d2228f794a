"""Memory over a long session: 1 000 turns, each reading a 50 KB file (50 MB of tool output in all), against a model
the loopback server plays with a 200 000-token window (it answers the summary requests compaction sends, and refuses
what is too long, as a real server does). Resident memory is sampled as the turns go by, in print mode and in the
app in a real terminal; print mode's time per turn, late in the run against early, is taken in a run of its own.

    python -m bench.memory
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.common import (
    Result,
    agentui_bin,
    clean_env,
    emit,
    home_and_project,
    run_alone,
    tree_rss_mb,
    warm_bytecode,
)
from bench.terminal import Terminal

TURNS = 1_000
FILES = 25
FILE_LINES = 500
WINDOW = 200_000
MODEL = "claude-sonnet-4-5"
SAMPLE_AT = (100, 250, 500, 750, 1000)
DONE = "All 1000 files read"


class PlayedModel:
    """Reads a file per turn until TURNS, then says DONE; answers summary requests; samples the client's memory."""

    def __init__(self, server) -> None:  # type: ignore[no-untyped-def]
        self.server = server
        self.lock = threading.Lock()
        self.turns = 0
        self.summaries = 0
        self.largest = 0
        self.pid: int | None = None
        self.samples: dict[int, float] = {}
        self.arrived: dict[int, float] = {}
        """When each turn's request came (the client's time per turn, with the tool it ran)."""

    def __call__(self, request) -> Any:  # type: ignore[no-untyped-def]
        from agentui.core.context.compaction import SUMMARY_SYSTEM
        from tests.support.loopback import Reply
        from tests.support.sse import anthropic_stream

        self.server.requests.clear()  # the server keeps every request; 1 000 of them would be this process's memory
        tokens = len(request.body) // 4  # (roughly what the model reads; cheaper than counting the parsed body)
        with self.lock:
            self.largest = max(self.largest, tokens)
            if tokens > WINDOW:
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
            usage = {"input_tokens": tokens, "output_tokens": 50}
            if json.dumps(SUMMARY_SYSTEM, ensure_ascii=False)[1:-1].encode() in request.body:  # (no parse: ~5 ms)
                self.summaries += 1
                return Reply(
                    chunks=anthropic_stream(
                        [{"type": "text", "text": f"Summary {self.summaries}: the user has me read the data files."}],
                        usage=usage,
                    )
                )
            self.turns += 1
            number = self.turns
            self.arrived[number] = time.perf_counter()
            if number in SAMPLE_AT and self.pid is not None:
                self.samples[number] = tree_rss_mb(self.pid)
        if number > TURNS:
            return Reply(chunks=anthropic_stream([{"type": "text", "text": f"{DONE}."}], usage=usage))
        read = {
            "type": "tool_use",
            "id": f"toolu_{number:05d}",
            "name": "Read",
            "input": {"file_path": f"data/file_{number % FILES:02d}.txt"},
        }
        return Reply(
            chunks=anthropic_stream(
                [{"type": "text", "text": f"Reading file {number % FILES}."}, read], stop_reason="tool_use", usage=usage
            )
        )


def make_project(root: Path) -> None:
    (root / "data").mkdir(parents=True)
    for number in range(FILES):
        text = "".join(
            f"file {number:02d} line {line:03d}: " + "lorem ipsum dolor sit amet consectetur " * 2 + "\n"
            for line in range(FILE_LINES)
        )
        (root / "data" / f"file_{number:02d}.txt").write_text(text)  # 50 KB; Read shows it in full


def _result(name: str, model: PlayedModel, final: float, seconds: float, note: str) -> Result:
    samples = dict(sorted(model.samples.items()))
    samples[TURNS] = round(final, 1)
    peak = max(samples.values())
    middle = samples.get(500, final)
    flat = final <= middle * 1.1
    return Result(
        name,
        round(final, 1),
        "MB",
        n=TURNS,
        target="≤ 250 MB and flat",
        met=peak <= 250 and flat,
        note=f"{note}; RSS by turn {', '.join(f'{t}: {v:.0f}' for t, v in samples.items())}; "
        f"{model.summaries} compactions; largest request {model.largest:,} tokens; {seconds:.0f} s",
        extra={"by_turn": samples, "compactions": model.summaries},
    )


@contextlib.contextmanager
def _played() -> Iterator[tuple[PlayedModel, Path, dict[str, str]]]:
    """The played model on a loopback server, a project with the data files, and the environment to run in."""
    from tests.support.loopback import LoopbackServer

    server = LoopbackServer()
    model = PlayedModel(server)
    server.responder = model
    try:
        with tempfile.TemporaryDirectory() as scratch:
            home, project = home_and_project(Path(scratch))
            make_project(project)
            yield (
                model,
                project,
                clean_env(
                    home,
                    ANTHROPIC_BASE_URL=server.url,
                    ANTHROPIC_API_KEY="x",
                    AGENTUI_MODEL=MODEL,
                    AGENTUI_MAX_ATTEMPTS="1",
                ),
            )
    finally:
        server.close()


def print_mode(*, timed: bool = False) -> list[Result]:
    """`timed`: the time per turn instead of memory (alone, so that the app's run beside it does not count)."""
    with _played() as (model, project, env):
        started = time.perf_counter()
        process = subprocess.Popen(
            [agentui_bin(), "-p", "Read the data files one by one"],
            env=env,
            cwd=project,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
        model.pid = process.pid
        out, err = process.communicate(timeout=900)
        seconds = time.perf_counter() - started
        if DONE.encode() not in out:
            raise RuntimeError(f"the run did not finish: {err.decode()[-500:]}")
        final = model.samples.get(TURNS, float("nan"))
    if timed:
        return [_turn_time(model)]
    return [_result("memory.print_1000_turns", model, final, seconds, "agentui -p")]


def _turn_time(model: PlayedModel) -> Result:
    """How much longer a turn takes at the end of the run than at its start, by the requests' arrivals."""
    gaps = {n: (model.arrived[n] - model.arrived[n - 1]) * 1000 for n in model.arrived if n - 1 in model.arrived}
    early = sorted(gaps[n] for n in range(2, 22))[10]
    late = sorted(gaps[n] for n in range(TURNS - 19, TURNS + 1))[10]
    return Result(
        "print.turn_ms_late",
        round(late / early, 2),
        "× early",
        n=20,
        target="≤ 2× (turns 981-1000 against 2-21)",
        met=late <= 2 * early,
        note=f"agentui -p, the same run: median {early:.1f} ms a turn at turns 2-21, {late:.1f} ms at 981-1000 "
        "(a 50 KB Read each; from one request's arrival to the next; run alone)",
    )


def app() -> Result:
    with _played() as (model, project, env):
        started = time.perf_counter()
        terminal = Terminal(f"{agentui_bin()} 'Read the data files one by one'", env, project)
        try:
            model.pid = terminal.pid
            terminal.wait_for(DONE, timeout=900)
            seconds = time.perf_counter() - started
            time.sleep(1.0)
            final = tree_rss_mb(terminal.pid)
        finally:
            terminal.close()
    return [_result("memory.app_1000_turns", model, final, seconds, "the app in a real terminal (tmux)")]


def benchmarks() -> Iterator[Result]:
    """Both at once: they measure memory, not time, and each alone takes over a minute; then print mode alone for its
    time per turn."""
    from concurrent.futures import ThreadPoolExecutor

    warm_bytecode()
    with ThreadPoolExecutor(2) as pool:
        runs = [pool.submit(print_mode), pool.submit(app)]
        for run in runs:
            for result in run.result():
                yield emit(result)
    yield emit(print_mode(timed=True)[0])


if __name__ == "__main__":
    run_alone(benchmarks)
