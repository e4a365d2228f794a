"""What a front end draws for a tool call and its result (`CallView`, `ResultView`): the shapes each tool fills in
from its own hints (`Tool.title`, `Tool.result_line`, …), so that no front end branches on a tool's name."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

Shown = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"]
"""What sort of call it is, to pick an icon or a group by (the Agent Client Protocol's tool kinds)."""
Asks = Literal["permission", "questions", "plan"]
"""What putting the call to the person means: a permission question, the model's own questions, or its plan."""
Hunk = dict[str, Any]
"""One hunk of a structured patch, as Claude Code records it: oldStart, oldLines, newStart, newLines, lines."""


@dataclass(frozen=True, slots=True)
class CallView:
    """A call as it is shown, before it has a result."""

    name: str
    title: str
    """The one line that says what it does: the command, the file, the pattern."""
    shown: Shown = "other"
    locations: tuple[str, ...] = ()
    """The files it reads or changes, as given."""
    asks: Asks = "permission"
    opens: bool = False
    """Its result is worth seeing without asking (a change, a command's output, the task list)."""
    tail: bool = False
    """The end of its output matters most (a command's: the test summary, the error)."""
    command: str | None = None
    """The exact text it runs, shown whole when it asks."""
    purpose: str = ""
    """What the model says it is for."""


@dataclass(frozen=True, slots=True)
class ResultView:
    """A result as it is shown: its one line, and what to draw under it."""

    summary: str
    patch: list[Hunk] = field(default_factory=list)
    """The change it made, to draw as a diff (empty for none)."""
    todos: list[dict[str, Any]] | None = None
    """The task list it set, to draw as a list."""
    diagnostics: list[str] = field(default_factory=list)
    """The errors a language server found that the change brought, one line each, to draw under the change."""


def shown_path(value: Any, cwd: Path | None) -> str:
    """A path as a call's title shows it: relative to `cwd` when it lies under it."""
    text = str(value or "")
    if cwd is not None and text.startswith(str(cwd) + "/"):
        return text[len(str(cwd)) + 1 :]
    return text


def compact(arguments: Mapping[str, Any], width: int = 100) -> str:
    """Arguments on one line, cut to `width`: the title of a call no tool describes."""
    text = json.dumps(arguments, ensure_ascii=False, default=str)
    return text if len(text) <= width else text[: width - 3] + "…"


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def change_patch(details: Mapping[str, Any]) -> list[Hunk]:
    """The change a Write or Edit made, to show: its structured patch, or for a new file (which Claude Code 2.1
    records with an empty patch) all of its content as added lines."""
    patch = details.get("structuredPatch") or []
    if patch or details.get("type") != "create":
        return list(patch)
    lines = str(details.get("content") or "").splitlines()
    return [{"oldStart": 0, "oldLines": 0, "newStart": 1, "newLines": len(lines), "lines": [f"+{x}" for x in lines]}]


def changed_lines(patch: list[Hunk]) -> tuple[int, int]:
    """(lines added, lines removed) in a structured patch."""
    added = removed = 0
    for hunk in patch:
        for line in hunk.get("lines", []):
            added += line.startswith("+")
            removed += line.startswith("-")
    return added, removed


def change_result(details: Mapping[str, Any]) -> ResultView:
    """A Write's or an Edit's result: what it did to the file, in lines, and the change to draw."""
    patch = change_patch(details)
    if "structuredPatch" not in details:  # (a record without one: its change is drawn, not counted)
        return ResultView("done", patch=patch)
    added, removed = changed_lines(patch)
    verb = "created" if details.get("type") == "create" else "changed"
    return ResultView(f"{verb}: +{added} −{removed}", patch=patch, diagnostics=diagnostic_lines(details))


def diagnostic_lines(details: Mapping[str, Any]) -> list[str]:
    """An edit's new diagnostics (`details["diagnostics"]`, agentui.core.lsp), one line each."""
    found = details.get("diagnostics")
    lines = []
    for item in found if isinstance(found, list) else []:
        if isinstance(item, dict):
            source = f" ({item['source']})" if item.get("source") else ""
            where = f"line {item.get('line', '?')}:{item.get('column', '?')}"
            mark = {"error": "✘", "warning": "⚠"}.get(str(item.get("severity")), "•")
            lines.append(f"{mark} {where}: {item.get('message', '')}{source}")
    return lines


class ChangesAFile:
    """How a call that changes one file's text is shown (Write, Edit, Claude Code's MultiEdit): by the file, opened
    on the change it made."""

    shown: ClassVar[Shown] = "edit"
    opens: ClassVar[bool] = True

    @classmethod
    def title(cls, arguments: Mapping[str, Any], cwd: Path | None) -> str:
        return shown_path(arguments.get("file_path"), cwd)

    @classmethod
    def result(cls, text: str, details: Mapping[str, Any]) -> ResultView:
        return change_result(details)


class SearchesFiles:
    """How a search of the files is shown (Grep, Glob): the pattern and where, and how many files it found (in
    Grep's content mode, which records no files, how many lines)."""

    shown: ClassVar[Shown] = "search"

    @classmethod
    def title(cls, arguments: Mapping[str, Any], cwd: Path | None) -> str:
        where = f" in {shown_path(arguments['path'], cwd)}" if arguments.get("path") else ""
        return f"{arguments.get('pattern', '')}{where}"

    @classmethod
    def result(cls, text: str, details: Mapping[str, Any]) -> ResultView:
        if details.get("mode") == "content":
            return ResultView(plural(details.get("numLines") or 0, "line"))
        return ResultView(plural(details.get("numFiles", 0), "file"))
