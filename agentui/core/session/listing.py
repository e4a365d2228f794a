"""Listing a project's sessions for a picker, from each file's first and last 64 KiB only: instant for hundreds of
sessions however long they are."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentui.core.session.paths import is_session_id

WINDOW = 64 * 1024


@dataclass(frozen=True)
class SessionInfo:
    session_id: str
    path: Path
    title: str
    last_prompt: str
    messages: int
    """User and assistant lines; an estimate (`approximate`) for files larger than the two windows."""
    approximate: bool
    modified: float
    git_branch: str
    size: int


_KINDS = re.compile(rb'"type":\s*"(user|assistant|progress|summary|custom-title|ai-title|last-prompt)"')
"""The line types a listing looks for; quotes inside strings are escaped, so these are keys of real objects."""
_TITLES = {b"summary", b"custom-title", b"ai-title", b"last-prompt"}
_BRANCH = re.compile(rb'"gitBranch":\s*("(?:[^"\\]|\\.)*")')


@dataclass
class _Scan:
    entries: list[dict[str, Any]]
    messages: int
    """User and assistant lines."""
    branch: str | None


def _load(raw: bytes) -> dict[str, Any] | None:
    raw = raw.strip(b"\x00 \r")
    if not raw:
        return None
    try:
        entry = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return entry if isinstance(entry, dict) else None


def _scan(chunk: bytes, *, drop_first: bool) -> _Scan:
    """The entries a listing needs and the count of messages. Only lines that may hold a title or a prompt are
    parsed, and messages are counted by their markers: a session's bulk (answers and tool output) is never parsed,
    which makes listing hundreds of sessions several times faster. (On the 13 Claude Code transcripts in the
    fixtures this gives exactly what parsing every line gives.)"""
    lines = chunk.split(b"\n")
    if drop_first:
        lines = lines[1:]  # begins mid-line
    scan = _Scan([], 0, None)
    branch_line = None
    for raw in lines:
        if b'"gitBranch"' in raw:
            branch_line = raw
        kinds = set(_KINDS.findall(raw))
        if not kinds or b"progress" in kinds:
            continue  # (progress lines carry whole nested messages)
        if b"assistant" in kinds:
            scan.messages += 1
            continue
        if b"user" in kinds:
            scan.messages += 1
            if b'"tool_result"' in raw:
                continue
        elif not kinds & _TITLES:
            continue
        if (entry := _load(raw)) is not None:
            scan.entries.append(entry)
    if branch_line is not None and (found := _BRANCH.search(branch_line)):
        try:
            value = json.loads(found.group(1))
        except (ValueError, RecursionError):
            value = None
        scan.branch = value if isinstance(value, str) else None
    return scan


def prompt_text(entry: dict[str, Any]) -> str | None:
    """The text a person typed, or None for tool results, meta lines and slash-command records."""
    if entry.get("type") != "user" or entry.get("isMeta") or entry.get("isCompactSummary"):
        return None
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return None
        from agentui.core.messages import is_reminder  # (here: the listing itself loads no pydantic)

        texts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        # (what was typed, not the notes for the model beside it: plan mode's reminder, a hook's context)
        content = next((t for t in texts if isinstance(t, str) and not is_reminder(t)), "")
    if (
        not isinstance(content, str)
        or not content.strip()
        or content.lstrip().startswith(("<command-", "<local-command"))
    ):
        return None
    return " ".join(content.split())


def describe(path: Path) -> SessionInfo:
    stat = path.stat()
    with path.open("rb") as handle:
        if stat.st_size <= 2 * WINDOW:
            head, tail, whole = handle.read(), b"", True
        else:
            head = handle.read(WINDOW)
            handle.seek(stat.st_size - WINDOW)
            tail, whole = handle.read(WINDOW), False
    head_scan = _scan(head.rsplit(b"\n", 1)[0] if not whole else head, drop_first=False)
    tail_scan = _scan(tail, drop_first=True) if not whole else head_scan
    first, last = head_scan.entries, tail_scan.entries
    seen = first if whole else first + last

    custom = [
        e["customTitle"] for e in seen if e.get("type") == "custom-title" and isinstance(e.get("customTitle"), str)
    ]
    named = [e["aiTitle"] for e in seen if e.get("type") == "ai-title" and isinstance(e.get("aiTitle"), str)]
    summaries = [e["summary"] for e in seen if e.get("type") == "summary" and isinstance(e.get("summary"), str)]
    prompts = [text for e in first if (text := prompt_text(e))]
    recent = [e["lastPrompt"] for e in last if e.get("type") == "last-prompt" and isinstance(e.get("lastPrompt"), str)]
    recent = recent or [text for e in last if (text := prompt_text(e))]
    branch = tail_scan.branch or (head_scan.branch if whole else None)
    counted = head_scan.messages if whole else head_scan.messages + tail_scan.messages
    if not whole:
        read = len(head) + len(tail)
        counted = round(counted * stat.st_size / max(1, read))
    titles = [*summaries[-1:], *named[-1:], *custom[-1:]]  # (the person's name, the model's, the summary)
    title = titles[-1] if titles else prompts[0] if prompts else "(no prompt)"
    return SessionInfo(
        session_id=path.stem,
        path=path,
        title=title,
        last_prompt=recent[-1] if recent else "",
        messages=counted,
        approximate=not whole,
        modified=stat.st_mtime,
        git_branch=branch or "",
        size=stat.st_size,
    )


def session_files(directory: Path) -> list[Path]:
    """The session files of a project directory (sub-agent files and others are not sessions)."""
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    files = [directory / name for name in names if name.endswith(".jsonl") and is_session_id(name[:-6])]
    return [path for path in files if _non_empty(path)]


def _non_empty(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def list_sessions(directory: Path) -> list[SessionInfo]:
    infos = []
    for path in session_files(directory):
        try:
            infos.append(describe(path))
        except OSError:
            continue
    return sorted(infos, key=lambda info: info.modified, reverse=True)
