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
import threading
import time
from pathlib import Path

from bench.common import Result

NOTED_MS = 5.0
KINDS = bool(os.environ.get("BENCH_GC_KINDS"))
"""With BENCH_GC_KINDS=1, after each full collection over 20 ms a line that begins with "#": the generations' sizes
before it, the objects it freed, and the kinds of object left in the oldest generation (what it scans each time)."""


def watch(path: str) -> None:
    out = open(path, "a", buffering=1)  # noqa: SIM115 (open while the program runs)
    began = time.perf_counter()
    started = [0.0, 0.0]
    sizes: list[int] = []

    def callback(phase: str, info: dict[str, int]) -> None:
        asked = asking[0] and info["generation"] == 2
        if phase == "start":
            if KINDS and info["generation"] == 2:
                sizes[:] = [len(gc.get_objects(generation)) for generation in range(3)]
            started[:] = time.perf_counter(), time.thread_time()
        elif (took := (time.thread_time() - started[1]) * 1000) > NOTED_MS or asked:
            wall = (time.perf_counter() - started[0]) * 1000
            at = started[0] - began
            noted = [round(at, 3), round(took, 1), info["generation"], round(wall, 1)]
            out.write(json.dumps([*noted, "asked"] if asked else noted) + "\n")
            asking[0] = asking[0] and not asked
            if KINDS and info["generation"] == 2 and took > 20:
                from collections import Counter

                kinds = Counter(type(found).__qualname__ for found in gc.get_objects(2)).most_common(20)
                out.write("# " + json.dumps([sizes, info["collected"], kinds]) + "\n")

    gc.callbacks.append(callback)
    asking[0] = False
    threading.Thread(target=_collect_when_asked, args=(path,), daemon=True).start()


def _collect_when_asked(path: str) -> None:
    """When the bench asks (`ask_full`), a full collection now, noted as any other: what the run's garbage would cost
    the next one that CPython starts, however far off that is."""
    asked = path + ".collect"
    while not os.path.exists(asked):
        time.sleep(0.1)
    os.remove(asked)
    asking[0] = True
    gc.collect()


def ask_full(path: str, timeout: float = 30) -> float | None:
    """Ask a watched run for a full collection now: its CPU milliseconds once noted (None if it never was)."""
    open(path + ".collect", "w").close()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open(path) as handle:
            for line in handle:
                if line.startswith("[") and len(found := json.loads(line)) > 4:
                    return float(found[1])
        time.sleep(0.05)
    return None


asking = [False]
"""A full collection the bench asked for is under way (it is noted whatever it takes)."""


def pauses(path: str) -> list[tuple[float, float, int]]:
    """The collections a watched run wrote down: (seconds since the start, CPU milliseconds, generation)."""
    try:
        with open(path) as handle:
            found = [json.loads(line) for line in handle if line.startswith("[")]
            return [tuple(noted[:3]) for noted in found if len(noted) == 4]
    except FileNotFoundError:
        return []


def longest_full(found: list[tuple[float, float, int]]) -> float:
    """The longest full (oldest-generation) collection's milliseconds, 0 if none took over NOTED_MS."""
    return max((took for _at, took, generation in found if generation == 2), default=0.0)


def row(name: str, found: list[tuple[float, float, int]], during: str, asked: float | None) -> Result:
    """The longest full collection in a watched run, and the one asked for at its end, against issue 34's target."""
    longest = max(longest_full(found), asked or 0.0)
    young = max((took for _at, took, generation in found if generation < 2), default=0.0)
    return Result(
        name,
        longest,
        "ms",
        n=len(found),
        target="no full collection over 20 ms",
        met=longest <= 20 and asked is not None,
        note=f"the longest full collection during {during} ({longest_full(found):.0f} ms; 0: none over "
        f"{NOTED_MS:.0f} ms) or at its end, asked for by the bench ({asked if asked is not None else '?'} ms: what "
        f"the garbage left would cost the next one); {len(found)} collections over {NOTED_MS:.0f} ms, the longest "
        f"of a younger generation {young:.0f} ms (CPU time of the collecting thread)",
    )


class Watched:
    """A run of agentui with its collections noted in `scratch`, and a full collection asked for at its end."""

    def __init__(self, scratch: Path, env: dict[str, str]) -> None:
        self.path = str(scratch / "gc.jsonl")
        self.command = f"{sys.executable} -m bench.gc_watch"
        """Runs agentui watched (its arguments follow)."""
        self.env = {**env, "AGENTUI_BENCH_GC": self.path, "PYTHONPATH": _root()}
        self.asked: float | None = None

    def ask(self) -> None:
        """At the end of the run, before the program ends: the full collection its garbage would cost."""
        self.asked = ask_full(self.path)

    def row(self, name: str, during: str) -> Result:
        return row(name, pauses(self.path), during, self.asked)


def _root() -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


if __name__ == "__main__":
    watch(os.environ["AGENTUI_BENCH_GC"])
    from agentui.cli import main

    sys.argv[0] = "agentui"
    sys.exit(main())
