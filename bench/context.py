"""Context layer timings: the first token count on a machine with no encoding file and no network, counting speed
estimated and exact, the context meter over a long session, and the cost of deciding what to compact.

    python -m bench.context
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench.common import Result, emit_all, run_alone

FIRST_COUNT = """
import socket, sys, time
socket.socket.connect = socket.create_connection = socket.getaddrinfo = lambda *a, **k: (_ for _ in ()).throw(OSError())
started = time.perf_counter()
from agentui.core.context import window as context
context._bundled_encoding = lambda: None
imported = time.perf_counter()
context.TokenCounter().count("def main():\\n    return 1\\n" * 100)
done = time.perf_counter()
print(f"{(imported - started) * 1000:.2f} {(done - imported) * 1000:.3f}")
"""


def first_count() -> Result:
    with tempfile.TemporaryDirectory() as empty:
        env = {**os.environ, "AGENTUI_CACHE_DIR": empty, "TMPDIR": empty}
        env.pop("TIKTOKEN_CACHE_DIR", None)
        runs = []
        for _ in range(5):
            out = subprocess.run(
                [sys.executable, "-c", FIRST_COUNT], env=env, capture_output=True, text=True, check=True
            ).stdout.split()
            runs.append((float(out[0]), float(out[1])))
    return Result(
        "context.first_count_offline",
        round(min(r[1] for r in runs), 3),
        "ms",
        n=len(runs),
        note=f"no encoding file, no network: the estimate answers at once (import "
        f"{min(r[0] for r in runs):.1f} ms); best of 5",
    )


def counting() -> Iterator[Result]:
    from agentui.core.context import window as context
    from agentui.core.context.window import ENCODINGS, TokenCounter

    text = Path(__file__).read_text() * 20
    with tempfile.TemporaryDirectory() as empty:
        bundled, context._bundled_encoding = context._bundled_encoding, lambda: None
        estimate = TokenCounter({"AGENTUI_CACHE_DIR": empty, "TMPDIR": empty})
        estimate.count("x")
        ENCODINGS.wait()
        context._bundled_encoding = bundled
        started = time.perf_counter()
        estimated = estimate.count(text)
        took = (time.perf_counter() - started) * 1000
        yield Result("context.count_estimate", round(took, 3), "ms", note=f"{len(text):,} characters")
        exact = TokenCounter({"AGENTUI_CACHE_DIR": os.path.join(empty, "seeded"), "TMPDIR": empty})
        exact.count("x")
        started = time.perf_counter()
        ENCODINGS.wait()
        exact._next_look = 0.0
        if not exact.exact:
            yield Result("context.count_exact", float("nan"), "ms", note="no encoding (pip install bpe-openai)")
            return
        loaded = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        counted = exact.count(text)
        took = (time.perf_counter() - started) * 1000
        yield Result(
            "context.count_exact",
            round(took, 2),
            "ms",
            note=f"{len(text):,} characters; encoding loaded in the background in {loaded:.0f} ms; the "
            f"estimate was {100 * (estimated - counted) / counted:+.1f}%",
        )


def meter_and_compaction() -> Iterator[Result]:
    from agentui.core.context import compaction
    from agentui.core.context.window import ContextMeter, TokenCounter
    from agentui.core.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock

    counter = TokenCounter.estimating()
    messages = [Message.user("start")]
    meter = ContextMeter(counter)
    meter.recount(messages, 3000)
    started = time.perf_counter()
    for turn in range(5000):
        messages.append(
            Message(
                role="assistant",
                content=[TextBlock(text="reading " * 20), ToolUseBlock(id=f"t{turn}", name="Read", input={"f": turn})],
            )
        )
        messages.append(Message(role="user", content=[ToolResultBlock(tool_use_id=f"t{turn}", content="x" * 8000)]))
        meter.tokens(messages)
    per_turn = (time.perf_counter() - started) / 5000
    yield Result(
        "context.meter_per_turn",
        round(per_turn * 1e6, 1),
        "µs",
        n=5000,
        note="the context meter after each of 5,000 turns (flat: no recounting)",
    )
    started = time.perf_counter()
    compaction.split_index(messages, 50_000, counter)
    yield Result(
        "context.split_10k_messages",
        round((time.perf_counter() - started) * 1000, 2),
        "ms",
        note="choosing what compaction keeps of 10,000 messages",
    )
    started = time.perf_counter()
    compaction.shorten_tool_results(messages, 50_000, counter, before=len(messages) - 2)
    yield Result(
        "context.shorten_5k_results",
        round((time.perf_counter() - started) * 1000, 1),
        "ms",
        note="shortening 5,000 old tool results",
    )


def benchmarks() -> Iterator[Result]:
    return emit_all(first_count, counting, meter_and_compaction)


if __name__ == "__main__":
    run_alone(benchmarks)
