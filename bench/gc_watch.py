"""Run agentui with each garbage collection that takes over 5 ms written down as it ends, for the rows that say how
long the app's longest collection was in a whole session (issue 34: no full collection over 20 ms).

    AGENTUI_BENCH_GC=pauses.jsonl python -m bench.gc_watch [agentui's arguments]

Each line of the file: [seconds since the start, milliseconds, generation, wall-clock milliseconds]. The
milliseconds are the collecting thread's CPU time: on a busy machine the wall clock also counts the time the
process waited for a core, which is not the collector's. A line is written as each collection ends (the run may be
ended by a signal)."""

from __future__ import annotations

import gc
import json
import os
import sys
import time

from bench.common import Result

NOTED_MS = 5.0


def watch(path: str) -> None:
    out = open(path, "a", buffering=1)  # noqa: SIM115 (open while the program runs)
    began = time.perf_counter()
    started = [0.0, 0.0]

    def callback(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[:] = time.perf_counter(), time.thread_time()
        elif (took := (time.thread_time() - started[1]) * 1000) > NOTED_MS:
            wall = (time.perf_counter() - started[0]) * 1000
            at = started[0] - began
            out.write(json.dumps([round(at, 3), round(took, 1), info["generation"], round(wall, 1)]) + "\n")

    gc.callbacks.append(callback)


def pauses(path: str) -> list[tuple[float, float, int]]:
    """The collections a watched run wrote down: (seconds since the start, CPU milliseconds, generation)."""
    try:
        with open(path) as handle:
            return [tuple(json.loads(line)[:3]) for line in handle if line.strip()]  # type: ignore[misc]
    except FileNotFoundError:
        return []


def longest_full(found: list[tuple[float, float, int]]) -> float:
    """The longest full (oldest-generation) collection's milliseconds, 0 if none took over NOTED_MS."""
    return max((took for _at, took, generation in found if generation == 2), default=0.0)


def row(name: str, found: list[tuple[float, float, int]], during: str) -> Result:
    """The longest full collection in a watched run, against issue 34's target."""
    longest = longest_full(found)
    return Result(
        name,
        longest,
        "ms",
        n=len(found),
        target="no full collection over 20 ms",
        met=longest <= 20,
        note=f"the longest full collection during {during} (0: none over {NOTED_MS:.0f} ms); "
        f"{len(found)} collections of any generation over {NOTED_MS:.0f} ms",
    )


def command(out: str) -> tuple[str, dict[str, str]]:
    """The command line that runs agentui watched, and what its environment needs."""
    return f"{sys.executable} -m bench.gc_watch", {"AGENTUI_BENCH_GC": out, "PYTHONPATH": _root()}


def _root() -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


if __name__ == "__main__":
    watch(os.environ["AGENTUI_BENCH_GC"])
    from agentui.cli import main

    sys.argv[0] = "agentui"
    sys.exit(main())
