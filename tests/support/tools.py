"""Small tools for driving the loop in tests: each does one observable thing."""

from __future__ import annotations

import asyncio

from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolResult


class EchoArgs(ToolArgs):
    text: str


class Echo(Tool[EchoArgs]):
    name = "Echo"
    description = "Return the text."
    Args = EchoArgs
    kind = "read"

    async def run(self, args: EchoArgs, ctx: ToolContext) -> ToolResult:
        ctx.progress(f"echoing {len(args.text)} characters")
        return ToolResult(content=args.text, details={"length": len(args.text)})


class WriteNoteArgs(ToolArgs):
    note: str


class WriteNote(Tool[WriteNoteArgs]):
    """A tool that 'writes': it needs permission, and records what it was allowed to do."""

    name = "WriteNote"
    description = "Write a note."
    Args = WriteNoteArgs
    kind = "write"

    def __init__(self) -> None:
        self.written: list[str] = []

    async def run(self, args: WriteNoteArgs, ctx: ToolContext) -> ToolResult:
        self.written.append(args.note)
        return ToolResult(content=f"wrote {args.note!r}")


class SleepArgs(ToolArgs):
    seconds: float


class Sleep(Tool[SleepArgs]):
    """Executes for a while; records whether it was cancelled, as a real process would be killed."""

    name = "Sleep"
    description = "Sleep."
    Args = SleepArgs
    kind = "execute"

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.cancelled = False

    async def run(self, args: SleepArgs, ctx: ToolContext) -> ToolResult:
        self.started.set()
        try:
            await asyncio.sleep(args.seconds)
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        return ToolResult(content="slept")


class MeetArgs(ToolArgs):
    who: str


class Meet(Tool[MeetArgs]):
    """A read-only tool that finishes only when `parties` calls are running at once: proof of concurrency."""

    name = "Meet"
    description = "Wait for the others."
    Args = MeetArgs
    kind = "read"

    def __init__(self, parties: int) -> None:
        self.barrier = asyncio.Barrier(parties)

    async def run(self, args: MeetArgs, ctx: ToolContext) -> ToolResult:
        await asyncio.wait_for(self.barrier.wait(), timeout=30)  # only a ceiling for a broken run
        return ToolResult(content=f"{args.who} met the others")


class Explode(Tool[EchoArgs]):
    name = "Explode"
    description = "Always fails."
    Args = EchoArgs
    kind = "read"

    async def run(self, args: EchoArgs, ctx: ToolContext) -> ToolResult:
        raise RuntimeError(f"boom: {args.text}")
