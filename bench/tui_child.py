"""Run agentui's app in the terminal this process has, timing what the streaming benchmark needs from inside:
when each delta left the (scripted) model, when each frame was written, when the answer's last text was in place,
and the process's CPU time. Writes them as JSON to the file named by AGENTUI_BENCH_OUT, then exits.

    python -m bench.tui_child --provider scripted --script answer.json "prompt"
"""

from __future__ import annotations

import cProfile
import json
import os
import resource
import sys
import threading
import time

OUT = os.environ["AGENTUI_BENCH_OUT"]
SETTLE = 5.0
"""Seconds after the answer is complete before the numbers are written and the program ends."""

deltas: list[float] = []
frames: list[float] = []
written: list[tuple[float, int]] = []
"""(when, bytes) of each write to the terminal."""
frame_cpu: list[float] = []
marks: dict[str, float] = {}


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def finish_later() -> None:
    import gc

    time.sleep(SETTLE)
    marks["tracked_objects"] = len(gc.get_objects())
    if os.environ.get("BENCH_SAVEALL"):
        gc.collect()
        from collections import Counter

        marks["garbage"] = Counter(type(o).__qualname__ for o in gc.garbage).most_common(25)
    marks["frozen_objects"] = gc.get_freeze_count()
    if os.environ.get("BENCH_PROFILE_WINDOW"):
        PROFILE.dump_stats(OUT + ".prof")
    with open(OUT + ".part", "w") as handle:
        json.dump(
            {
                "deltas": deltas,
                "frames": frames,
                "frame_cpu": frame_cpu,
                "marks": marks,
                "gc_pauses": gc_pauses,
                "written": written,
                "slow": slow,
            },
            handle,
        )
    os.replace(OUT + ".part", OUT)
    os._exit(0)


PROFILE = cProfile.Profile()
slow: list[tuple[float, float, str]] = []
"""(start, seconds, what) of anything measured that took over 30 ms."""
gc_pauses: list[tuple[float, float, int]] = []
"""(start, seconds, generation) of each collection that took over 10 ms."""


def watch_gc() -> None:
    import gc

    started: list[float] = [0.0]

    def callback(phase: str, info: dict) -> None:  # type: ignore[type-arg]
        if phase == "start":
            started[0] = time.perf_counter()
        elif (took := time.perf_counter() - started[0]) > 0.01:
            gc_pauses.append((started[0], took, info["generation"], info["collected"], len(gc.get_objects(2))))

    gc.callbacks.append(callback)
    if os.environ.get("BENCH_SAVEALL"):
        gc.set_debug(gc.DEBUG_SAVEALL)


def patch() -> None:
    from textual.app import App

    from agentui.core.providers import scripted
    from agentui.core.providers.stream import BlockDelta, StreamEnd

    display = App._display

    def timed_display(self, screen, renderable):  # type: ignore[no-untyped-def]
        began = time.perf_counter()
        display(self, screen, renderable)
        if (took := time.perf_counter() - began) > 0.03:
            slow.append((began, took, "display"))
        if renderable is not None and not self._batch_count:
            frames.append(time.perf_counter())
            frame_cpu.append(cpu())

    App._display = timed_display  # type: ignore[method-assign]

    from textual.drivers.linux_driver import LinuxDriver

    write = LinuxDriver.write

    def counted_write(self, data):  # type: ignore[no-untyped-def]
        written.append((time.perf_counter(), len(data.encode("utf-8", "replace"))))
        write(self, data)

    LinuxDriver.write = counted_write  # type: ignore[method-assign]

    play = scripted._play

    async def timed_play(response, model):  # type: ignore[no-untyped-def]
        async for event in play(response, model):
            if isinstance(event, BlockDelta):
                if not deltas:
                    marks["cpu_first_delta"] = cpu()
                deltas.append(time.perf_counter())
            elif isinstance(event, StreamEnd):
                marks["stream_end"] = time.perf_counter()
            yield event

    scripted._play = timed_play

    from agentui.frontends.tui.widgets.markdown_lines import MarkdownLines

    append = MarkdownLines.append

    def timed_append(self, text):  # type: ignore[no-untyped-def]
        began = time.perf_counter()
        append(self, text)
        if (took := time.perf_counter() - began) > 0.03:
            slow.append((began, took, "append"))
        now = time.perf_counter()
        marks.setdefault("first_appended", now)
        marks["appended"] = now  # the last one: the whole answer is in the widget

    MarkdownLines.append = timed_append  # type: ignore[method-assign]

    from textual.screen import Screen

    for method in ("_refresh_layout", "_on_timer_update", "_compositor_refresh"):
        if hasattr(Screen, method):
            original = getattr(Screen, method)

            def timed(self, *args, _original=original, _name=method, **kwargs):  # type: ignore[no-untyped-def]
                began = time.perf_counter()
                window = os.environ.get("BENCH_PROFILE_WINDOW")
                profiling = False
                if window and deltas and _name == "_on_timer_update":
                    low, high = map(float, window.split(","))
                    profiling = low <= began - deltas[0] <= high
                if profiling:
                    PROFILE.enable()
                result = _original(self, *args, **kwargs)
                if profiling:
                    PROFILE.disable()
                if (took := time.perf_counter() - began) > 0.03:
                    slow.append((began, took, _name))
                return result

            setattr(Screen, method, timed)

    from agentui.frontends.tui.widgets import answer

    finish = answer.AssistantText.finish

    async def timed_finish(self):  # type: ignore[no-untyped-def]
        await finish(self)
        if "text_complete" not in marks:
            marks["text_complete"] = time.perf_counter()
            threading.Thread(target=finish_later, daemon=True).start()

    answer.AssistantText.finish = timed_finish  # type: ignore[method-assign]


if __name__ == "__main__":
    watch_gc()
    patch()
    from agentui.cli import main

    sys.exit(main(sys.argv[1:]))
