"""Distilling learnings from one run's tool calls, without the model: a call that failed and a later one like it that
succeeded (the same test command, an edit of the same file) become one sentence each: what failed (its key error
line), what worked, and the files changed in between."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentui.core.context.learnings import Learning, now
from agentui.core.session.redact import redact_text

FILE_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})
"""The calls about one file; where they succeed is where a fix was made."""
ALIKE = 0.5
"""Word overlap past which two commands are the same command run again (`pytest -x` after `pytest`)."""
CLIP = 160
RAN = 2
"""The commands run between a failure and what worked that a learning names (the last ones)."""
_KEY_LINE = re.compile(r"error|fail|exception|assert|not found|traceback|denied|cannot|no such", re.IGNORECASE)
_NOT_KEY = re.compile(r"^(exit code \d+|command timed out.*)$", re.IGNORECASE)


@dataclass(frozen=True)
class Call:
    """One finished tool call of the run: its tool, input and, when it failed, what it said."""

    name: str
    input: dict[str, Any]
    error: str | None = None


def key_of(call: Call) -> str:
    """What a call is about: a command's text, a file tool's path ("" for other calls)."""
    if call.name == "Bash":
        return " ".join(str(call.input.get("command", "")).split())
    if call.name in FILE_TOOLS:
        return str(call.input.get("file_path") or call.input.get("notebook_path") or "")
    return ""


def _clip(text: str) -> str:
    """Secrets redacted first (a cut secret no longer has the shape that finds it), on one line (a name with line
    breaks in it must not end the learning's line in the prompt), then cut."""
    text = " ".join(redact_text(text).split())
    return text if len(text) <= CLIP else text[: CLIP - 1] + "…"


def key_line(text: str) -> str:
    """The line of a failure's output that says most: the last that names an error, else the last one."""
    every = [line.strip() for line in text.splitlines() if line.strip()]
    lines = [line for line in every if not _NOT_KEY.match(line)] or every  # (an exit code alone, when nothing else)
    named = [line for line in lines if _KEY_LINE.search(line)]
    return _clip((named or lines or [""])[-1])


def _similar(name: str, a: str, b: str) -> bool:
    """The same file; or the same command, or one much like it (`pytest -x` after `pytest`)."""
    if a == b or name != "Bash":
        return a == b and bool(a)
    wa, wb = set(a.split()), set(b.split())
    return a.split()[:1] == b.split()[:1] and len(wa & wb) / len(wa | wb) >= ALIKE


def _overcomes(later: Call, failed: Call) -> bool:
    return later.name == failed.name and later.error is None and _similar(failed.name, key_of(failed), key_of(later))


def _shown(path: str, root: Path) -> str:
    try:
        return os.path.relpath(path, root) if Path(path).is_absolute() and Path(path).is_relative_to(root) else path
    except ValueError:
        return path


def distill(calls: Sequence[Call], root: Path) -> list[Learning]:
    """The learnings of a run's `calls`, in order: one for each failure a later alike call overcame (a failure
    repeated before that success is the same learning)."""
    found: list[Learning] = []
    overcome: set[int] = set()
    for index, call in enumerate(calls):
        if call.error is None or not key_of(call) or index in overcome:
            continue
        later = next((j for j in range(index + 1, len(calls)) if _overcomes(calls[j], call)), None)
        if later is None:
            continue
        overcome.update(
            j
            for j in range(index, later)
            if calls[j].error is not None
            and calls[j].name == call.name
            and _similar(call.name, key_of(call), key_of(calls[j]))
        )
        between = calls[index + 1 : later]
        if calls[later].input == call.input and all(other.error is not None for other in between):
            continue  # (the same call again, nothing done in between: a flake, nothing learned)
        found.append(_learning(call, calls[later], between, root))
    return found


def _learning(failed: Call, worked: Call, between: Sequence[Call], root: Path) -> Learning:
    """One sentence of it, secrets in it redacted as the session file's are (it is kept, and goes into prompts)."""
    error = key_line(failed.error or "")
    done = [c for c in between if c.error is None]
    files = tuple(dict.fromkeys(_clip(_shown(key_of(c), root)) for c in done if c.name in FILE_TOOLS))
    ran = list(dict.fromkeys(key_of(c) for c in done if c.name == "Bash" and key_of(c) != key_of(failed)))[-RAN:]
    steps = [f"changing {', '.join(files)}"] if files else []
    steps += [f"running {', '.join(f'`{_clip(command)}`' for command in ran)}"] if ran else []
    where = f"after {' and '.join(steps)}, " if steps else ""
    key = redact_text(key_of(failed))
    if failed.name == "Bash":
        then = redact_text(key_of(worked))
        how = "it succeeded" if then == key else f"`{_clip(then)}` succeeded"
        text = f"`{_clip(key)}` failed ({error}); {where}{how}."
    else:
        read = any(c.name == "Read" and c.input.get("file_path") == key_of(failed) for c in between)
        again = "re-reading it and retrying worked" if read else f"a later {worked.name} of it worked"
        text = f"{failed.name} of {_clip(_shown(key, root))} failed ({error}); {where}{again}."
    stamp = now()
    return Learning(
        text=" ".join(redact_text(text).split()), tool=failed.name, key=key, files=files, created=stamp, updated=stamp
    )
