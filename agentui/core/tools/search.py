"""Grep's two engines: ripgrep when it is on PATH, pure Python otherwise. Both return the same structure.

ripgrep is told to walk as `walk.py` does: hidden files searched, `.git` skipped, .gitignore honoured even outside
a git repository, no other ignore files, no symlinks, CRLF read as a line break, binary files (a NUL byte) skipped.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import shutil
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from agentui.core.errors import AgentuiError
from agentui.core.tools.files import BinaryFileError, sniff
from agentui.core.tools.globs import FileFilter
from agentui.core.tools.walk import IgnoreChecker, walk_files

Mode = Literal["content", "files_with_matches", "count"]
BINARY_WINDOW = 65536  # ripgrep checks its first buffer (64 KiB) for NUL before searching it


@dataclass(frozen=True)
class Query:
    pattern: str
    start: Path
    project_root: Path
    mode: Mode
    filter: FileFilter
    ignore_case: bool = False
    multiline: bool = False
    before: int = 0
    after: int = 0


@dataclass
class FileHits:
    path: Path
    count: int = 0
    lines: list[tuple[int, str, bool]] = field(default_factory=list)
    """(line number, text, is a match) in order; context lines have False."""


class SearchError(AgentuiError):
    """The pattern or the search failed; the message is for the model."""


# Pure Python


def python_search(query: Query) -> list[FileHits]:
    flags = re.IGNORECASE if query.ignore_case else 0
    if query.multiline:
        flags |= re.MULTILINE | re.DOTALL
    try:
        regex = re.compile(query.pattern, flags)
    except re.error as exc:
        raise SearchError(f"invalid regular expression: {exc}") from None
    results = []
    for path in _candidates(query):
        hits = _search_file(path, regex, query)
        if hits is not None:
            results.append(hits)
    return results


def _candidates(query: Query) -> Iterable[Path]:
    base = query.start if query.start.is_dir() else query.start.parent
    for path in walk_files(query.start, query.project_root):
        if query.start.is_file() or query.filter.accepts(path.relative_to(base).as_posix()):
            yield path


def _search_file(path: Path, regex: re.Pattern[str], query: Query) -> FileHits | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        codec, bom = sniff(data[:BINARY_WINDOW])
    except BinaryFileError:
        return None
    text = data[len(bom) :].decode(codec, errors="replace")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    matched: list[int] = []
    if query.multiline:
        starts = _line_starts(text)
        seen: set[int] = set()
        for match in regex.finditer(text):
            first = _line_index(starts, match.start())
            last = _line_index(starts, max(match.start(), match.end() - 1))
            for index in range(first, min(last, len(lines) - 1) + 1):
                if index not in seen:
                    seen.add(index)
                    matched.append(index)
        matched.sort()
    else:
        matched = [index for index, line in enumerate(lines) if regex.search(line)]
    if not matched:
        return None
    hits = FileHits(path, count=len(matched))
    if query.mode == "content":
        hits.lines = _with_context(lines, matched, query.before, query.after)
    return hits


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(match.end() for match in re.finditer("\n", text))
    return starts


def _line_index(starts: list[int], offset: int) -> int:
    low, high = 0, len(starts) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if starts[middle] <= offset:
            low = middle
        else:
            high = middle - 1
    return low


def _with_context(lines: list[str], matched: list[int], before: int, after: int) -> list[tuple[int, str, bool]]:
    wanted: dict[int, bool] = {}
    for index in matched:
        for near in range(max(0, index - before), min(len(lines), index + after + 1)):
            wanted.setdefault(near, False)
        wanted[index] = True
    return [(index + 1, lines[index], wanted[index]) for index in sorted(wanted)]


# ripgrep


def ripgrep_path() -> str | None:
    """rg on PATH, or installed in agentui's own environment (`pip install ripgrep`) though it is not activated."""
    found = shutil.which("rg")
    if found:
        return found
    beside = Path(sys.executable).parent / "rg"
    return str(beside) if beside.is_file() and os.access(beside, os.X_OK) else None


async def ripgrep_search(query: Query, rg: str) -> list[FileHits]:
    cwd = query.start if query.start.is_dir() else query.start.parent
    args = [
        rg,
        "--no-config",  # (RIPGREP_CONFIG_PATH could add options such as --pre, which runs a program per file)
        "--hidden",
        "--no-ignore-dot",
        "--no-ignore-global",
        "--no-ignore-exclude",
        "--no-require-git",
        "--crlf",
        "--no-messages",
        "--glob",
        "!.git",
    ]
    for glob in query.filter.globs:
        args += ["--glob", glob]
    if query.ignore_case:
        args.append("--ignore-case")
    if query.multiline:
        args += ["--multiline", "--multiline-dotall"]
    if query.mode == "files_with_matches":
        args += ["--files-with-matches", "--null"]
    else:
        args.append("--json")
        if query.mode == "content":
            args += ["--before-context", str(query.before), "--after-context", str(query.after)]
    args += ["--regexp", query.pattern]
    if query.start.is_file():
        args += ["--", query.start.name]  # (a file named `--pre=prog` is a file, not an option that runs prog)
    process = await asyncio.create_subprocess_exec(
        *args,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await process.communicate()
    except asyncio.CancelledError:
        process.kill()
        raise
    if process.returncode not in (0, 1):  # 1 means no match
        message = err.decode(errors="replace").strip().splitlines()
        raise SearchError(" ".join(message[-3:]) or f"ripgrep failed with exit code {process.returncode}")
    if query.mode == "files_with_matches":
        hits = [FileHits(cwd / name) for name in out.decode(errors="surrogateescape").split("\0") if name]
    else:
        hits = _parse_json(out, cwd, query.mode)
    if query.filter.include is not None and query.start.is_dir():
        # rg's --glob overrides .gitignore (it would search ignored files that match); the walk does not.
        checker = IgnoreChecker(query.start, query.project_root)
        hits = [hit for hit in hits if not checker.ignored(hit.path)]
    return hits


def _text(value: dict[str, str]) -> str:
    if "text" in value:
        return value["text"]
    return base64.b64decode(value.get("bytes", "")).decode("utf-8", errors="replace")


def _parse_json(out: bytes, cwd: Path, mode: Mode) -> list[FileHits]:
    results: list[FileHits] = []
    current: FileHits | None = None
    for raw in out.splitlines():
        message = json.loads(raw)
        kind, data = message["type"], message.get("data", {})
        if kind == "begin":
            current = FileHits(cwd / _text(data["path"]))
        elif kind in ("match", "context") and current is not None:
            body = _text(data["lines"])
            pieces = body.split("\n")
            if pieces and pieces[-1] == "":
                pieces.pop()
            for offset, piece in enumerate(pieces):
                number = data["line_number"] + offset
                line = piece[:-1] if piece.endswith("\r") else piece
                if current.lines and current.lines[-1][0] == number:
                    continue  # multiline matches can report a line twice
                current.lines.append((number, line, kind == "match"))
        elif kind == "end" and current is not None:
            current.count = data["stats"]["matched_lines"]
            if mode == "count":
                current.lines = []
            results.append(current)
            current = None
    return results
