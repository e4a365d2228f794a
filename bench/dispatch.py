"""Tool dispatch: the whole pipeline a Read of a 1 KB file goes through (validate, permission check against 50 rules,
run, events, session line), timed per call over 10 000 calls, and each stage on its own.

    python -m bench.dispatch
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from bench.common import Result, emit_all, run_alone, summary

CALLS = 10_000
RULE_COUNT = 50


def _rules() -> dict[str, list[str]]:
    """50 rules of the kinds a real settings file holds; none of them decides a Read inside the project."""
    deny = [f"Read(./secrets/{n}/**)" for n in range(8)] + [
        "Read(.env)",
        "Read(**/*.pem)",
        "Bash(rm -rf:*)",
        "Bash(curl:*)",
        "WebFetch",
    ]
    ask = [f"Bash(git push {n}:*)" for n in range(5)] + ["Edit(./migrations/**)", "Bash(docker:*)"]
    allow = (
        [f"Bash(npm run {n}:*)" for n in range(12)]
        + [f"Edit(./src/pkg{n}/**)" for n in range(10)]
        + [
            "Bash(pytest:*)",
            "Bash(make:*)",
            "Bash(git status)",
            "Bash(git diff:*)",
            "Bash(ls:*)",
            "Read(~/notes/**)",
            "Glob",
            "Grep",
        ]
    )
    assert len(deny) + len(ask) + len(allow) == RULE_COUNT
    return {"deny": deny, "ask": ask, "allow": allow}


class Pipeline:
    """A project with 50 rules, a bus with a session writer on it, and a dispatcher, as an agent run has them."""

    def __init__(self, scratch: Path) -> None:
        from agentui.core.events import EventBus
        from agentui.core.loop.dispatch import ToolDispatcher
        from agentui.core.project import open_project
        from agentui.core.session.writer import SessionWriter

        self.root = scratch / "project"
        (self.root / ".claude").mkdir(parents=True)
        (self.root / ".claude" / "settings.json").write_text(json.dumps({"permissions": _rules()}))
        self.file = self.root / "notes.txt"
        self.file.write_text("".join(f"line {n:03d} of a small file that the model reads\n" for n in range(20))[:1024])
        env = {
            "HOME": str(scratch / "home"),
            "XDG_CONFIG_HOME": str(scratch / "config"),
            "CLAUDE_CONFIG_DIR": str(scratch / "claude"),
        }
        self.project = open_project(self.root, env=env, trusted=True)
        assert len(self.project.engine.rules) == RULE_COUNT, self.project.engine.rules
        self.bus = EventBus()
        session_id = str(uuid.uuid4())
        self.writer = SessionWriter(scratch / "session.jsonl", session_id, self.root)
        self.writer.attach(self.bus)
        self.dispatcher = ToolDispatcher(
            self.project.tools, self.project.engine, self.bus.emit, session_id=session_id, cwd=self.root
        )

    def call(self, n: int):
        from agentui.core.messages import ToolUseBlock

        return ToolUseBlock(id=f"toolu_{n:08d}", name="Read", input={"file_path": str(self.file)})


def pipeline() -> Iterator[Result]:
    with tempfile.TemporaryDirectory() as scratch:
        bench = Pipeline(Path(scratch))
        calls = [bench.call(n) for n in range(CALLS)]
        loop = asyncio.new_event_loop()
        run = bench.dispatcher.run

        async def each() -> list[float]:
            samples = []
            for call in calls[:200]:  # warm up: imports, caches
                await run(call)
            for call in calls:
                started = time.perf_counter()
                await run(call)
                samples.append(time.perf_counter() - started)
            return samples

        samples = loop.run_until_complete(each())
        result = summary(
            "dispatch.read_1kb",
            samples,
            "ms",
            target=0.09,
            target_text="p50 ≤ 0.09 ms",
            scale=1000,
            note=f"validate + {RULE_COUNT} rules + run + events + session line",
        )
        result.extra = breakdown(bench, calls, loop)
        result.note += "; alone (µs): " + ", ".join(
            f"{key.removesuffix('_us')} {value:.1f}" for key, value in result.extra.items()
        )
        loop.close()
        bench.writer.close()
        yield result


def breakdown(bench: Pipeline, calls, loop: asyncio.AbstractEventLoop) -> dict[str, float]:
    """Median µs of each stage alone, on the same call."""
    from agentui.core.events import ToolEnd, ToolStart
    from agentui.core.tools.base import ToolContext

    tool = bench.project.tools.get("Read")
    assert tool is not None
    call = calls[0]
    args = tool.Args.model_validate(call.input)
    verdict = bench.project.engine.check(tool, args, call)
    assert verdict.behavior == "allow", verdict
    ctx = ToolContext(cwd=bench.root, session_id="s", tool_call_id=call.id, checked_path=verdict.path)
    result = loop.run_until_complete(tool.run(args, ctx))
    end = ToolEnd(session_id="s", tool_call_id=call.id, name="Read", content=result.content, details=result.details)

    def median_us(function, repeat: int = 2000) -> float:
        samples = []
        for _ in range(repeat):
            started = time.perf_counter()
            function()
            samples.append(time.perf_counter() - started)
        samples.sort()
        return round(samples[len(samples) // 2] * 1e6, 1)

    async def run_tool() -> None:
        await tool.run(args, ctx)

    return {
        "validate_us": median_us(lambda: tool.Args.model_validate(call.input)),
        "permission_us": median_us(lambda: bench.project.engine.check(tool, args, call)),
        "run_us": median_us(lambda: loop.run_until_complete(run_tool()))
        - median_us(lambda: loop.run_until_complete(asyncio.sleep(0))),
        "events_us": median_us(
            lambda: (
                ToolStart(session_id="s", tool_call_id=call.id, name="Read", input=call.input),
                ToolEnd(
                    session_id="s", tool_call_id=call.id, name="Read", content=result.content, details=result.details
                ),
            )
        ),
        "session_line_us": median_us(lambda: bench.writer.handle(end)),
    }


def benchmarks() -> Iterator[Result]:
    return emit_all(pipeline)


if __name__ == "__main__":
    run_alone(benchmarks)
