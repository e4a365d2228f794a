"""Edit: replace an exact string in a file, keeping its encoding, BOM and line endings; atomic, with a diff."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NotRequired

from pydantic import Field
from typing_extensions import TypedDict

from agentui.core.call_views import ChangesAFile, Hunk
from agentui.core.lsp.diagnostics import DiagnosticDetail
from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolResult
from agentui.core.tools.diagnosed import diagnosed
from agentui.core.tools.diff import structured_patch
from agentui.core.tools.file_store import file_exists, queued_note, store_text, text_to_change
from agentui.core.tools.files import BinaryFileError, TextFormat, for_display
from agentui.core.tools.write import target_path
from agentui.core.workspace import Workspace

SNIPPET_CONTEXT = 3


class EditArgs(ToolArgs):
    file_path: str = Field(description="The path of the file to modify (absolute, or relative to the project root)")
    old_string: str = Field(description="The exact text to replace, including whitespace and indentation")
    new_string: str = Field(description="The text to replace it with (must differ from old_string)")
    replace_all: bool = Field(default=False, description="Replace every occurrence of old_string (default false)")


class EditDetails(TypedDict):
    filePath: str
    oldString: str
    newString: str
    originalFile: str
    structuredPatch: list[Hunk]
    replaceAll: bool
    userModified: bool
    diagnostics: NotRequired[list[DiagnosticDetail]]
    """agentui's: the errors a language server found that the change brought."""


class Edit(ChangesAFile, Tool[EditArgs]):
    name = "Edit"
    description = (
        "Replace exact text in a file. old_string must match the file exactly (whitespace included) and, unless "
        "replace_all is true, occur exactly once: add surrounding lines to make it unique. Read the file first. "
        "An empty old_string on a file that does not exist creates it."
    )
    Args = EditArgs
    Details = EditDetails
    kind = "write"

    @classmethod
    def change(cls, arguments: Mapping[str, Any], current: str | None) -> tuple[str, str] | None:
        old, new = str(arguments.get("old_string", "")), str(arguments.get("new_string", ""))
        if current is not None and old and old in current:  # the change in the file, by the file's line numbers
            return current, current.replace(old, new, -1 if arguments.get("replace_all") else 1)
        return old, new

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    def permission_path(self, args: EditArgs) -> str:
        return args.file_path

    async def run(self, args: EditArgs, ctx: ToolContext) -> ToolResult:
        ws = self.workspace
        path, problem = target_path(ws, args.file_path, ctx)
        if problem:
            return ToolResult.error(problem)
        shown = ws.display(path)
        if not file_exists(ws, path):
            if args.old_string:
                return ToolResult.error(
                    f"File does not exist: {shown}; to create it, use Write (or an empty old_string)."
                )
            if problem := await store_text(ws, path, args.new_string, TextFormat()):
                return ToolResult.error(f"{problem}; nothing was changed.")
            ws.record_read(path)
            said = f"Created {shown}."
            made = ToolResult(content=queued_note(ws, said), details=_details(path, args, "", args.new_string))
            return await diagnosed(ws, path, None, args.new_string, made)
        if path.is_dir():
            return ToolResult.error(f"{shown} is a directory, not a file.")
        if reason := ws.unread_reason(path):
            return ToolResult.error(f"{reason}; nothing was changed.")
        try:
            stored, fmt = await text_to_change(ws, path)
        except BinaryFileError:
            return ToolResult.error(f"{shown} is a binary file; Edit changes text files only.")

        crlf = fmt.newline == "\r\n"
        text = stored.replace("\r\n", "\n") if crlf else stored
        old = args.old_string.replace("\r\n", "\n") if crlf else args.old_string
        new = args.new_string.replace("\r\n", "\n") if crlf else args.new_string
        if old == new:
            return ToolResult.error("old_string and new_string are the same; there is nothing to change.")
        if not old:
            return ToolResult.error(f"old_string is empty but {shown} exists; give the exact text to replace.")

        positions = _occurrences(text, old)
        if not positions:
            return ToolResult.error(f"old_string was not found in {shown}.{_closest(text, old)}")
        if len(positions) > 1 and not args.replace_all:
            lines = ", ".join(str(_line_of(text, at)) for at in positions[:20])
            return ToolResult.error(
                f"old_string occurs {len(positions)} times in {shown} (lines {lines}); add surrounding lines to make "
                "it unique, or set replace_all to true."
            )
        updated = text.replace(old, new) if args.replace_all else text.replace(old, new, 1)
        if problem := await store_text(ws, path, updated, fmt):
            return ToolResult.error(f"{problem}; nothing was changed.")
        ws.record_read(path)
        count = len(positions) if args.replace_all else 1
        summary = f"Edited {shown}: {count} replacement{'s' if count > 1 else ''}."
        snippet = _snippet(updated, positions[0], new)
        made = ToolResult(content=queued_note(ws, f"{summary}\n{snippet}"), details=_details(path, args, text, updated))
        return await diagnosed(ws, path, text, updated, made)


def _details(path: Path, args: EditArgs, before: str, after: str) -> EditDetails:
    before, after = for_display(before), for_display(after)
    return EditDetails(
        filePath=str(path),
        oldString=args.old_string,
        newString=args.new_string,
        originalFile=before,
        structuredPatch=structured_patch(before, after),
        replaceAll=args.replace_all,
        userModified=False,
    )


def _occurrences(text: str, needle: str) -> list[int]:
    found, at = [], text.find(needle)
    while at != -1:
        found.append(at)
        at = text.find(needle, at + len(needle))
    return found


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _snippet(text: str, offset: int, inserted: str) -> str:
    """The changed lines with a little context, numbered like Read, so the model can check the result."""
    lines = text.split("\n")
    first = _line_of(text, offset)
    last = first + inserted.count("\n")
    low, high = max(1, first - SNIPPET_CONTEXT), min(len(lines), last + SNIPPET_CONTEXT)
    return "\n".join(f"{n:>6}\t{for_display(lines[n - 1])}" for n in range(low, high + 1))


def _closest(text: str, old: str) -> str:
    """A hint at what the model may have meant: a whitespace-only mismatch, else the most similar line."""
    squeeze = re.compile(r"\s+")
    flat_text, flat_old = squeeze.sub(" ", text), squeeze.sub(" ", old).strip()
    if flat_old and flat_old in flat_text:
        return " It does match if whitespace is ignored: check indentation, tabs and line breaks."
    wanted = next((line.strip() for line in old.split("\n") if line.strip()), "")
    if not wanted:
        return ""
    best_ratio, best_line = 0.0, 0
    matcher = difflib.SequenceMatcher(b=wanted, autojunk=False)
    for number, line in enumerate(text.split("\n"), 1):
        candidate = line.strip()
        if not candidate:
            continue
        matcher.set_seq1(candidate)
        if matcher.real_quick_ratio() <= best_ratio or matcher.quick_ratio() <= best_ratio:
            continue
        ratio = matcher.ratio()
        if ratio > best_ratio:
            best_ratio, best_line = ratio, number
    if best_ratio < 0.5:
        return ""
    shown = for_display(text.split("\n")[best_line - 1].strip())[:200]
    return f" The closest line is {best_line}: {shown!r}."
