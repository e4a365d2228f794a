"""Context layer timings: the first token count on a machine with no encoding file and no network, counting speed
estimated and exact, the context meter over a long session, and the cost of deciding what to compact.

    python bench/bench_context.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

FIRST_COUNT = """
import socket, sys, time
socket.socket.connect = socket.create_connection = socket.getaddrinfo = lambda *a, **k: (_ for _ in ()).throw(OSError())
started = time.perf_counter()
from agentui.core import context
context._bundled_encoding = lambda: None
imported = time.perf_counter()
context.TokenCounter().count("def main():\\n    return 1\\n" * 100)
done = time.perf_counter()
print(f"{(imported - started) * 1000:.2f} {(done - imported) * 1000:.3f}")
"""


def first_count() -> None:
    with tempfile.TemporaryDirectory() as empty:
        env = {**os.environ, "AGENTUI_CACHE_DIR": empty, "TMPDIR": empty}
        env.pop("TIKTOKEN_CACHE_DIR", None)
        runs = []
        for _ in range(5):
            out = subprocess.run([sys.executable, "-c", FIRST_COUNT], env=env, capture_output=True, text=True,
                                 check=True).stdout.split()
            runs.append((float(out[0]), float(out[1])))
    print(f"offline, empty cache: import {min(r[0] for r in runs):.1f} ms, "
          f"first count {min(r[1] for r in runs):.3f} ms (best of 5)")


def counting() -> None:
    from agentui.core import context
    from agentui.core.context import ENCODINGS, TokenCounter

    text = open(__file__).read() * 20
    with tempfile.TemporaryDirectory() as empty:
        bundled, context._bundled_encoding = context._bundled_encoding, lambda: None
        estimate = TokenCounter({"AGENTUI_CACHE_DIR": empty, "TMPDIR": empty})
        estimate.count("x")
        ENCODINGS.wait()
        context._bundled_encoding = bundled
        started = time.perf_counter()
        estimated = estimate.count(text)
        print(f"estimate: {len(text):,} characters -> {estimated:,} tokens in "
              f"{(time.perf_counter() - started) * 1000:.3f} ms")
        exact = TokenCounter({"AGENTUI_CACHE_DIR": os.path.join(empty, "seeded"), "TMPDIR": empty})
        exact.count("x")
        started = time.perf_counter()
        ENCODINGS.wait()
        exact._next_look = 0.0
        if not exact.exact:
            print("exact: no encoding available (pip install bpe-openai to seed one)")
            return
        print(f"exact: encoding loaded in the background in {(time.perf_counter() - started) * 1000:.0f} ms")
        started = time.perf_counter()
        counted = exact.count(text)
        print(f"exact: {len(text):,} characters -> {counted:,} tokens in {(time.perf_counter() - started) * 1000:.2f} ms"
              f" (the estimate was {100 * (estimated - counted) / counted:+.1f}%)")


def meter_and_compaction() -> None:
    from agentui.core import compaction
    from agentui.core.context import ContextMeter, TokenCounter
    from agentui.core.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock

    counter = TokenCounter.estimating()
    messages = [Message.user("start")]
    meter = ContextMeter(counter)
    meter.recount(messages, 3000)
    started = time.perf_counter()
    for turn in range(5000):
        messages.append(Message(role="assistant", content=[TextBlock(text="reading " * 20),
                                                            ToolUseBlock(id=f"t{turn}", name="Read", input={"f": turn})]))
        messages.append(Message(role="user", content=[ToolResultBlock(tool_use_id=f"t{turn}", content="x" * 8000)]))
        meter.tokens(messages)
    per_turn = (time.perf_counter() - started) / 5000
    print(f"meter: {per_turn * 1e6:.1f} µs per turn over 5,000 turns (flat: no recounting)")
    started = time.perf_counter()
    compaction.split_index(messages, 50_000, counter)
    print(f"split of 10,000 messages: {(time.perf_counter() - started) * 1000:.2f} ms")
    started = time.perf_counter()
    compaction.shorten_tool_results(messages, 50_000, counter, before=len(messages) - 2)
    print(f"shortening 5,000 tool results: {(time.perf_counter() - started) * 1000:.1f} ms")


if __name__ == "__main__":
    first_count()
    counting()
    meter_and_compaction()
