"""What a compaction says about itself: why it runs (before), and what it summarised, took out and carried (after)."""

from __future__ import annotations

from collections.abc import Sequence

from agentui.core.context.instructions import said_by_person
from agentui.core.events import CompactedResult, CompactionReport
from agentui.core.messages import Message, ToolResultBlock, ToolUseBlock

TARGET_KEYS = ("file_path", "notebook_path", "command", "path", "pattern", "url", "query", "description")
TARGET_CHARS = 80
PLACEHOLDER_MARK = "[Earlier tool result omitted to save context: "
CLIP_MARK = "characters clipped to fit the context window]"


def reason(trigger: str, tokens: int, window: int, messages: int, instructions: str | None) -> str:
    """Why a compaction runs, in a few words."""
    what = f"compacting {messages:,} older message{'s' if messages != 1 else ''}"
    if trigger == "auto":
        return f"context at {round(100 * tokens / window)}% of {window:,} tokens; {what}"
    return f"/compact{' ' + instructions if instructions else ''}: {what}"


def target(call: ToolUseBlock | None) -> str:
    """What a call was about: its file, command or pattern, in one short line."""
    if call is None:
        return ""
    value = next((call.input[key] for key in TARGET_KEYS if isinstance(call.input.get(key), str)), "")
    line = " ".join(str(value).split())
    return line if len(line) <= TARGET_CHARS else line[: TARGET_CHARS - 1] + "…"


def report(older: Sequence[Message], now: Sequence[Message], instructions: list[str], pinned: int) -> CompactionReport:
    """`older` were summarised; `now` is the history after (the summary first): its results that are placeholders
    or were clipped are named too."""
    calls = {block.id: block for message in [*older, *now] for block in message.tool_uses}
    results = [_result(calls.get(block.tool_use_id), "dropped") for block in _results(older)]
    for block in _results(now[1:]):
        if _shortened(block):
            results.append(_result(calls.get(block.tool_use_id), "shortened"))
        elif isinstance(block.content, str) and CLIP_MARK in block.content:
            results.append(_result(calls.get(block.tool_use_id), "clipped"))
    turns = sum(said_by_person(message) is not None for message in older)
    return CompactionReport(messages=len(older), turns=turns, results=results, instructions=instructions, pinned=pinned)


def _results(messages: Sequence[Message]) -> list[ToolResultBlock]:
    return [block for message in messages for block in message.content if isinstance(block, ToolResultBlock)]


def _shortened(block: ToolResultBlock) -> bool:
    return isinstance(block.content, str) and block.content.startswith(PLACEHOLDER_MARK)


def _result(call: ToolUseBlock | None, fate: str) -> CompactedResult:
    return CompactedResult.model_validate(
        {"tool": call.name if call else "a tool", "target": target(call), "fate": fate}
    )
