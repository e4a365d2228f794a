"""Diagnostics as a server publishes them, which of them an edit brought (those there before, moved with the lines
the edit moved, are not new), and how they are told: to the model as Claude Code tells its IDE's, to the screen as
data."""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass
from typing import Any

from typing_extensions import TypedDict

SEVERITIES = {1: "error", 2: "warning", 3: "info", 4: "hint"}
SYMBOLS = {"error": "\u2718", "warning": "\u26a0", "info": "\u2139", "hint": "\u2605"}
"""Claude Code's marks for each severity."""
MAX_TEXT = 4000
"""Claude Code's ceiling on the block's summary."""
MAX_DIFFED = 90_000
"""The most old-by-new line pairs of an edit's changed middle that are diffed to follow its diagnostics."""


class DiagnosticDetail(TypedDict):
    """One diagnostic in a tool's details (the session's toolUseResult and the screen): 1-based line and column."""

    line: int
    column: int
    severity: str
    message: str
    source: str
    code: str


@dataclass(frozen=True)
class Diagnostic:
    line: int
    """0-based, as LSP counts."""
    character: int
    severity: str
    message: str
    source: str = ""
    code: str = ""

    @classmethod
    def parse(cls, raw: Any) -> Diagnostic | None:
        """One of publishDiagnostics' items, or None if it is not one."""
        if not isinstance(raw, dict) or not isinstance(raw.get("range"), dict):
            return None
        start = raw["range"].get("start") or {}
        line = position(start.get("line", 0)) if isinstance(start, dict) else None
        character = position(start.get("character", 0)) if isinstance(start, dict) else None
        if line is None or character is None:
            return None
        code, severity = raw.get("code"), raw.get("severity")
        return cls(
            line=line,
            character=character,
            severity=SEVERITIES.get(severity, "error") if isinstance(severity, int) else "error",
            message=str(raw.get("message") or ""),
            source=str(raw.get("source") or ""),
            code="" if code is None else str(code),
        )

    def detail(self) -> DiagnosticDetail:
        return DiagnosticDetail(
            line=self.line + 1,
            column=self.character + 1,
            severity=self.severity,
            message=self.message,
            source=self.source,
            code=self.code,
        )


def position(value: Any) -> int | None:
    """An LSP position's line or character (a uinteger), or None for anything else a broken server sends."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 31 else None


def new_diagnostics(
    before: list[Diagnostic], after: list[Diagnostic], old_text: str, new_text: str
) -> list[Diagnostic]:
    """The diagnostics of `after` that `before` did not have: one of before's counts as still there when its message
    and code are the same and its line is where the edit moved it (or, for a line the edit rewrote, anywhere in the
    lines that replaced it)."""
    if not before:
        return list(after)
    moved = _line_map(old_text, new_text)
    exact: Counter[tuple[str, str, int]] = Counter()
    loose: Counter[tuple[str, str]] = Counter()
    for old in before:
        if (line := moved.get(old.line)) is not None:
            exact[(old.message, old.code, line)] += 1
        else:
            loose[(old.message, old.code)] += 1
    kept, fresh = set(moved.values()), []
    for diagnostic in after:
        key = (diagnostic.message, diagnostic.code)
        if exact[(*key, diagnostic.line)] > 0:
            exact[(*key, diagnostic.line)] -= 1
        elif loose[key] > 0 and diagnostic.line not in kept:
            loose[key] -= 1
        else:
            fresh.append(diagnostic)
    return fresh


def _line_map(old_text: str, new_text: str) -> dict[int, int]:
    """Each line of the old text the edit left alone, to where it is in the new one (0-based). The lines before and
    after the change are matched first, in one pass; only a changed middle small enough is diffed (difflib is
    quadratic on a long file's many alike lines, and this runs on the event loop): a longer one is left unmapped,
    its diagnostics matched loosely."""
    old_lines, new_lines = old_text.split("\n"), new_text.split("\n")
    shortest = min(len(old_lines), len(new_lines))
    head = 0
    while head < shortest and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while tail < shortest - head and old_lines[-1 - tail] == new_lines[-1 - tail]:
        tail += 1
    mapping = {line: line for line in range(head)}
    shift = len(new_lines) - len(old_lines)
    mapping.update((line, line + shift) for line in range(len(old_lines) - tail, len(old_lines)))
    old_middle, new_middle = old_lines[head : len(old_lines) - tail], new_lines[head : len(new_lines) - tail]
    if len(old_middle) * len(new_middle) <= MAX_DIFFED:
        matcher = difflib.SequenceMatcher(a=old_middle, b=new_middle, autojunk=False)
        for block in matcher.get_matching_blocks():
            for offset in range(block.size):
                mapping[head + block.a + offset] = head + block.b + offset
    return mapping


def block(shown: str, diagnostics: list[Diagnostic]) -> str:
    """Claude Code's <new-diagnostics> block for one file's new diagnostics."""
    lines = [
        f"  {SYMBOLS.get(d.severity, '•')} [Line {d.line + 1}:{d.character + 1}] {d.message}"
        + (f" [{d.code}]" if d.code else "")
        + (f" ({d.source})" if d.source else "")
        for d in diagnostics
    ]
    summary = f"{shown}:\n" + "\n".join(lines)
    if len(summary) > MAX_TEXT:
        summary = summary[: MAX_TEXT - 12] + "\u2026[truncated]"
    return f"<new-diagnostics>The following new diagnostic issues were detected:\n{summary}</new-diagnostics>"
