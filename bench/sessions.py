"""Sessions: appending lines as a run writes them, loading and rebuilding a 50 MB / 20 000-entry session, and
listing 500 sessions for the picker.

    python -m bench.sessions
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from bench.common import Result, emit_all, run_alone, summary

APPEND_LINES = 10_000
LOAD_ENTRIES = 20_000
LOAD_MB = 50
LISTED = 500


def write_session(path: Path, lines: int, *, result_bytes: int, sync: bool = False) -> list[float]:
    """A session as a run writes it, through the writer and the events a run emits: per turn an assistant message
    (text and a tool call, two lines) and the tool's result (one line). Returns the seconds each turn's lines took."""
    from agentui.core.events import (
        MessageEnd,
        MessageStart,
        ToolEnd,
        TurnEnd,
        UserMessage,
    )
    from agentui.core.messages import Message, TextBlock, ToolUseBlock, Usage
    from agentui.core.session.writer import SessionWriter

    session_id = str(uuid.uuid4())
    writer = SessionWriter(path, session_id, path.parent)
    output = ("def handler(request):\n    return render(request, 'page.html', {'items': items})\n" * 200)[:result_bytes]
    writer.handle(UserMessage(session_id=session_id, message=Message.user("Refactor the handlers"), source="prompt"))
    samples = []
    for turn in range((lines - 1) // 3):
        call_id = f"toolu_{turn:08d}"
        message = Message(
            role="assistant",
            id=f"msg_{turn:08d}",
            model="claude-sonnet-4-5",
            stop_reason="tool_use",
            usage=Usage(input_tokens=1200 + turn, output_tokens=80),
            content=[
                TextBlock(text="I'll read the next handler to see how it renders its page."),
                ToolUseBlock(id=call_id, name="Read", input={"file_path": f"src/h{turn}.py"}),
            ],
        )
        events = [
            MessageStart(session_id=session_id, message_id=message.id or "", model="m", request_id=f"req_{turn}"),
            MessageEnd(session_id=session_id, message=message),
            ToolEnd(
                session_id=session_id,
                tool_call_id=call_id,
                name="Read",
                content=output,
                details={"filePath": f"src/h{turn}.py", "numLines": 200},
            ),
        ]
        if sync:
            events.append(TurnEnd(session_id=session_id, turn=turn, stop_reason="tool_use"))
        started = time.perf_counter()
        for event in events:
            writer.handle(event)
        samples.append(time.perf_counter() - started)
    writer.close()
    return samples


def append() -> Iterator[Result]:
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "append.jsonl"
        samples = write_session(path, APPEND_LINES, result_bytes=2000)
        per_line = [sample / 3 for sample in samples]
        result = summary(
            "sessions.append_line",
            per_line,
            "ms",
            scale=1000,
            note=f"{APPEND_LINES:,} lines through the writer (2 KB tool results), no fsync",
        )
        result.extra = {"total_s": round(sum(samples), 3)}
        yield result
        synced = write_session(Path(scratch) / "synced.jsonl", 600, result_bytes=2000, sync=True)
        yield summary(
            "sessions.append_turn_fsync",
            synced,
            "ms",
            scale=1000,
            note="one turn's three lines and the fsync at its end, as a run writes them",
        )


def load() -> Iterator[Result]:
    from agentui.core.session.reader import load_session

    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "big.jsonl"
        result_bytes = (
            LOAD_MB * 1024 * 1024 * 3 // LOAD_ENTRIES
        ) - 2100  # the rest of a turn: two assistant lines, the envelope, escaping
        write_session(path, LOAD_ENTRIES, result_bytes=result_bytes)
        size = path.stat().st_size
        samples = []
        for _ in range(5):
            started = time.perf_counter()
            loaded = load_session(path)
            samples.append(time.perf_counter() - started)
        result = summary(
            "sessions.load_50mb",
            samples,
            "s",
            target=1.0,
            target_text="< 1 s",
            note=f"{size / 1e6:.0f} MB, {loaded.lines:,} lines, {len(loaded.messages):,} messages rebuilt",
        )
        yield result


def listing() -> Iterator[Result]:
    from agentui.core.session.listing import list_sessions

    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch) / "project"
        directory.mkdir()
        small, large = Path(scratch) / "small.jsonl", Path(scratch) / "large.jsonl"
        write_session(small, 61, result_bytes=1500)
        write_session(large, 1501, result_bytes=1500)  # ~2.5 MB: listing reads only its head and tail
        for n in range(LISTED):
            shutil.copyfile(large if n % 10 == 0 else small, directory / f"{uuid.uuid4()}.jsonl")
        os.sync()
        samples = []
        for _ in range(10):
            started = time.perf_counter()
            found = list_sessions(directory)
            samples.append(time.perf_counter() - started)
        assert len(found) == LISTED, len(found)
        yield summary(
            "sessions.list_500",
            samples,
            "s",
            target=0.2,
            target_text="< 0.2 s",
            note="450 sessions of 60 lines and 50 of 1 500 lines (2.5 MB)",
        )


def benchmarks() -> Iterator[Result]:
    return emit_all(append, load, listing)


if __name__ == "__main__":
    run_alone(benchmarks)
