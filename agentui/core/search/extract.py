"""What of a transcript line is searchable: the person's prompts, the model's answers, tool inputs and the files
tools named, each as one row of text with its kind, after the same redaction exports use."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from agentui.core.session.listing import prompt_text
from agentui.core.session.redact import redact_text

FILE_KEYS = ("file_path", "notebook_path", "path")
"""Tool arguments that name a file (or a directory): kind `file`."""
INPUT_KEYS = ("command", "pattern", "query", "url", "glob", "description", "prompt", "skill")
"""Tool arguments worth finding again: what was run or looked for (kind `tool`)."""
_TITLES = {"custom-title": "customTitle", "ai-title": "aiTitle", "summary": "summary"}


@dataclass(frozen=True)
class Row:
    kind: str
    """prompt, answer, tool or file."""
    text: str
    uuid: str
    timestamp: str


@dataclass
class LineFacts:
    """What one line says besides its rows: the session's working directory and a title, when it names them."""

    cwd: str | None = None
    title: str | None = None
    first_prompt: str | None = None
    session: str | None = None
    """The session a sidechain's lines belong to (an older sub-agent file's name does not say)."""


def wanted(raw: bytes) -> bool:
    """Whether a line may hold something searchable, decided on its bytes: tool results (most of a transcript's
    bytes) and progress lines are never parsed. A `"type":"tool_result"` token is always a block's type, since
    quotes inside strings are escaped; a user line with one is never a prompt (`prompt_text`)."""
    if b'"type":"tool_result"' in raw or b'"type":"progress"' in raw[:400]:
        return False
    return b'"type":"user"' in raw or b'"type":"assistant"' in raw or b'-title"' in raw or b'"summary"' in raw


def rows_of(raw: bytes, facts: LineFacts) -> list[Row]:
    """The rows of one complete line; nothing for a line that is not a JSON object (a corrupt or too deeply nested
    line is skipped, as loading a session skips it)."""
    try:
        entry = json.loads(raw)
    except (ValueError, RecursionError):  # (nesting deeper than Python's parser goes: one bad line, not the index)
        return []
    if not isinstance(entry, dict):
        return []
    if _SURROGATE.search(raw):  # (an emoji cut in half, which SQLite cannot store: the half becomes "?")
        entry = _whole(entry)
    kind = entry.get("type")
    if kind in _TITLES:
        if isinstance(title := entry.get(_TITLES[kind]), str):
            facts.title = redact_text(" ".join(title.split()))
        return []
    if isinstance(cwd := entry.get("cwd"), str):
        facts.cwd = cwd
    if facts.session is None and isinstance(session := entry.get("sessionId"), str):
        facts.session = session
    uuid = entry["uuid"] if isinstance(entry.get("uuid"), str) else ""
    stamp = entry["timestamp"] if isinstance(entry.get("timestamp"), str) else ""
    return [Row(kind, redact_text(text), uuid, stamp) for kind, text in _texts(entry, facts) if text.strip()]


_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
"""A JSON escape of a UTF-16 surrogate; json.loads joins a pair into one character and leaves a lone one as is."""


def _whole(value: Any) -> Any:
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {key: _whole(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_whole(item) for item in value]
    return value


def _texts(entry: dict[str, Any], facts: LineFacts) -> Iterator[tuple[str, str]]:
    if entry.get("type") == "user":
        if (prompt := prompt_text(entry)) is not None:
            if facts.first_prompt is None:
                facts.first_prompt = redact_text(prompt)[:200]  # (redacted whole: a cut key no longer looks like one)
            yield "prompt", prompt
        return
    if entry.get("type") != "assistant":
        return
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        yield "answer", content
        return
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            yield "answer", block["text"]
        elif block.get("type") == "tool_use" and isinstance(block.get("input"), dict):
            yield from _tool_input(block["input"])


def _tool_input(arguments: dict[str, Any]) -> Iterator[tuple[str, str]]:
    for key in FILE_KEYS:
        if isinstance(value := arguments.get(key), str):
            yield "file", value
    for key in INPUT_KEYS:
        if isinstance(value := arguments.get(key), str):
            yield "tool", value
