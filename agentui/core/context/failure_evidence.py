"""Failure evidence: when an old tool result is shortened to save context, a failed one keeps its key lines (the
error lines and the last lines) until the failure is resolved, that is until the same tool on the same target (its
file, path, command or URL) later succeeds; so the model still sees why it failed."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from agentui.core.messages import Message, ToolResultBlock, ToolUseBlock, as_text

EVIDENCE_MARK = "\nIt failed, and the same call has not succeeded since; the key lines of its error:\n"
KEY_LINES = 8
KEY_CHARS = 800
LAST_LINES = 3
_ERROR_LINE = re.compile(
    r"error|fail|exception|traceback|assert|fatal|denied|not found|no such|cannot|invalid|refused|timed out", re.I
)
_TARGETS = ("file_path", "notebook_path", "path", "command", "url", "pattern")


def key_lines(text: str) -> str:
    """The lines of an error that say most: those that name a failure, then the last few; at most KEY_LINES lines
    and KEY_CHARS characters."""
    lines = [line.rstrip() for line in text.strip().splitlines() if line.strip()]
    chosen = [i for i, line in enumerate(lines) if _ERROR_LINE.search(line)][: KEY_LINES - LAST_LINES]
    chosen += [i for i in range(max(0, len(lines) - LAST_LINES), len(lines)) if i not in chosen]
    kept = "\n".join(lines[i][:300] for i in sorted(chosen)[:KEY_LINES])
    return kept if len(kept) <= KEY_CHARS else kept[: KEY_CHARS - 1] + "…"


def target(call: ToolUseBlock) -> tuple[str, str]:
    """What a call acts on, with its tool: its file, path, command, URL or pattern (else all of its input)."""
    for name in _TARGETS:
        if isinstance(value := call.input.get(name), str):
            return call.name, value
    return call.name, json.dumps(call.input, sort_keys=True, default=str)


def resolved(messages: Sequence[Message], index: int, call: ToolUseBlock) -> bool:
    """Whether a call after message `index` on the same target with the same tool succeeded."""
    aim = target(call)
    later: set[str] = set()
    for message in messages[index + 1 :]:
        if message.role == "assistant":
            later.update(block.id for block in message.tool_uses if target(block) == aim)
            continue
        for block in message.content:
            if isinstance(block, ToolResultBlock) and block.tool_use_id in later and not block.is_error:
                return True
    return False


def with_evidence(short: str, block: ToolResultBlock) -> str:
    """A shortened failed result's placeholder followed by the key lines of its error."""
    content = block.content
    text = content if isinstance(content, str) else "\n".join(as_text(part) for part in content)
    return short + EVIDENCE_MARK + key_lines(text)


def keeps_evidence(block: ToolResultBlock) -> bool:
    return isinstance(block.content, str) and EVIDENCE_MARK in block.content
