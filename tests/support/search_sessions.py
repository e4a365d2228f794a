"""Session transcripts written line by line as Claude Code writes them, for the search index's tests."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any


def line(
    kind: str, content: Any, *, session: str, cwd: str, stamp: str = "2026-01-01T10:00:00.000Z", **extra: Any
) -> str:
    """One transcript line: a user or assistant message with `content` (a string or content blocks)."""
    entry = {
        "parentUuid": None,
        "isSidechain": False,
        "cwd": cwd,
        "sessionId": session,
        "type": kind,
        "message": {"role": kind, "content": content},
        "uuid": str(uuid.uuid4()),
        "timestamp": stamp,
        **extra,
    }
    return json.dumps(entry, separators=(",", ":")) + "\n"


def prompt(text: str, *, session: str, cwd: str, stamp: str = "2026-01-01T10:00:00.000Z") -> str:
    return line("user", text, session=session, cwd=cwd, stamp=stamp)


def answer(text: str, *, session: str, cwd: str, stamp: str = "2026-01-01T10:00:01.000Z") -> str:
    return line("assistant", [{"type": "text", "text": text}], session=session, cwd=cwd, stamp=stamp)


def tool_call(name: str, arguments: dict[str, Any], *, session: str, cwd: str) -> str:
    block = {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": name, "input": arguments}
    return line("assistant", [block], session=session, cwd=cwd)


def tool_result(text: str, *, session: str, cwd: str) -> str:
    block = {"type": "tool_result", "tool_use_id": "toolu_x", "content": text}
    return line("user", [block], session=session, cwd=cwd)


def uuid_of(text: str) -> str:
    return str(json.loads(text)["uuid"])


def write(path: Path, *lines: str, mode: str = "a") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open(mode, encoding="utf-8") as handle:
        handle.write("".join(lines))


def linked(*lines: str) -> list[str]:
    """The lines as one conversation: each line's parentUuid the one before it."""
    out, parent = [], None
    for text in lines:
        entry = json.loads(text)
        entry["parentUuid"] = parent
        parent = entry["uuid"]
        out.append(json.dumps(entry, separators=(",", ":")) + "\n")
    return out
