"""A session survives being killed at any moment: it loads, and nothing before the last complete line is lost."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from agentui.core.messages import ToolUseBlock
from agentui.core.session.reader import load_session, read_lines

WRITER = r"""
import sys, uuid
from pathlib import Path
from agentui.core.events import MessageEnd, ToolEnd, UserMessage
from agentui.core.messages import Message, TextBlock, ToolUseBlock, Usage
from agentui.core.session.writer import SessionWriter

path, run = Path(sys.argv[1]), sys.argv[2]
writer = SessionWriter(path, "5e55e55e-0000-4000-8000-000000000000", Path("/tmp"),
                       parent_uuid=sys.argv[3] if len(sys.argv) > 3 else None)
print("ready", flush=True)
i = 0
while True:
    sid = writer.session_id
    writer.handle(UserMessage(session_id=sid, message=Message.user(f"{run}-{i}"), source="prompt"))
    call = f"toolu_{run}_{i}"
    body = "x" * (1000 + (i * 7919) % 300_000)  # lines from 1 KB to 300 KB, so kills land mid-write
    writer.handle(MessageEnd(session_id=sid, message=Message(role="assistant", id=f"msg_{run}_{i}", usage=Usage(),
        content=[TextBlock(text=body), ToolUseBlock(id=call, name="Echo", input={"text": "a"})])))
    writer.handle(ToolEnd(session_id=sid, tool_call_id=call, name="Echo", content="a", details={}))
    i += 1
"""


def test_sigkill_at_random_points_never_loses_a_completed_line(tmp_path: Path) -> None:
    path = tmp_path / "5e55e55e-0000-4000-8000-000000000000.jsonl"
    chance = random.Random(20261122)
    leaf = None
    torn = 0
    for run in range(20):
        args = [sys.executable, "-c", WRITER, str(path), f"r{run}"] + ([leaf] if leaf else [])
        before = path.stat().st_size if path.exists() else 0
        process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert process.stdout is not None and process.stdout.readline() == b"ready\n", (
            process.stderr.read() if process.stderr else ""
        )
        deadline = time.monotonic() + 60  # the kill lands while this run writes, however slow the machine
        while path.stat().st_size <= before if path.exists() else True:
            assert time.monotonic() < deadline and process.poll() is None, "the writer never wrote"
            time.sleep(0.005)
        time.sleep(chance.uniform(0.0, 0.25))
        process.send_signal(signal.SIGKILL)
        process.wait(10)
        if run % 2:  # a power cut or a full disk can also leave half a line: cut the file inside its last line
            data = path.read_bytes()
            start = data.rstrip(b"\n").rfind(b"\n") + 1
            cut = chance.randint(start + 1, len(data) - 2)
            path.write_bytes(data[:cut])
            torn += 1

        session = load_session(path)  # never raises
        entries, lines, skipped = read_lines(path)
        assert torn <= skipped <= torn + run + 1  # the cut lines, and at most one line torn by each kill
        assert lines - skipped == len(entries)
        # Each run's prompts are an unbroken prefix of what it wrote: nothing before the last complete line is lost.
        for earlier in range(run + 1):
            numbers = [
                int(e["message"]["content"].split("-")[1])
                for e in entries
                if e.get("type") == "user"
                and isinstance(e["message"]["content"], str)
                and e["message"]["content"].startswith(f"r{earlier}-")
            ]
            assert numbers == list(range(len(numbers))), (earlier, numbers[:5])
        # The rebuilt history is valid: a call whose result was lost is dropped, never sent dangling.
        for position, message in enumerate(session.messages):
            if message.role == "assistant" and message.tool_uses:
                answered = {b.tool_use_id for b in session.messages[position + 1].content if hasattr(b, "tool_use_id")}
                assert {c.id for c in message.tool_uses} <= answered
        leaf = session.leaf_uuid
    assert sum(1 for m in load_session(path).messages for b in m.content if isinstance(b, ToolUseBlock)) > 20
    assert torn == 10 and 10 <= read_lines(path)[2] <= 30  # each cut line skipped, each kill at most one more
