"""Write: create or overwrite a file, atomically, never over content the model has not read."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, NotRequired

from pydantic import Field
from typing_extensions import TypedDict

from agentui.core.call_views import ChangesAFile, Hunk
from agentui.core.lsp.diagnostics import DiagnosticDetail
from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolResult
from agentui.core.tools.diagnosed import diagnosed
from agentui.core.tools.diff import structured_patch
from agentui.core.tools.file_store import file_exists, queued_note, store_text, text_to_change
from agentui.core.tools.files import BinaryFileError, TextFormat, for_display
from agentui.core.workspace import Workspace


class WriteArgs(ToolArgs):
    file_path: str = Field(description="The path of the file to write (absolute, or relative to the project root)")
    content: str = Field(description="The complete new content of the file")


class WriteDetails(TypedDict):
    """Claude Code's shape: a new file's patch is empty (readers show its content instead)."""

    type: Literal["create", "update"]
    filePath: str
    content: str
    structuredPatch: list[Hunk]
    originalFile: str | None
    userModified: bool
    diagnostics: NotRequired[list[DiagnosticDetail]]
    """agentui's: the errors a language server found that the change brought."""


class Write(ChangesAFile, Tool[WriteArgs]):
    name = "Write"
    description = (
        "Write a file, creating parent directories as needed. Overwriting an existing file requires having Read "
        "it first in this session. Prefer Edit for changes to existing files; it sends only the change."
    )
    Args = WriteArgs
    Details = WriteDetails
    kind = "write"

    @classmethod
    def change(cls, arguments: Mapping[str, Any], current: str | None) -> tuple[str, str] | None:
        return current or "", str(arguments.get("content", ""))

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    def permission_path(self, args: WriteArgs) -> str:
        return args.file_path

    async def run(self, args: WriteArgs, ctx: ToolContext) -> ToolResult:
        ws = self.workspace
        path, problem = target_path(ws, args.file_path, ctx)
        if problem:
            return ToolResult.error(problem)
        shown = ws.display(path)
        if path.is_dir():
            return ToolResult.error(f"{shown} is a directory; nothing was written.")
        original: str | None = None
        fmt = TextFormat()
        if file_exists(ws, path):
            if reason := ws.unread_reason(path):
                return ToolResult.error(f"{reason}; nothing was written.")
            try:
                original, fmt = await text_to_change(ws, path)
            except BinaryFileError:
                return ToolResult.error(f"{shown} is a binary file; Write replaces text files only.")
            if ws.edited_since_seen(path, original):  # (the person's unsaved typing would go)
                return ToolResult.error(f"{shown} changed in the editor since it was read; Read it again first.")
        if problem := await store_text(ws, path, args.content, fmt):
            return ToolResult.error(f"{problem}; nothing was written.")
        ws.record_read(path)
        lines = args.content.count("\n") + (0 if args.content.endswith("\n") or not args.content else 1)
        before = for_display(original.replace("\r\n", "\n")) if original is not None else ""
        details = WriteDetails(
            type="update" if original is not None else "create",
            filePath=str(path),
            content=args.content,
            structuredPatch=structured_patch(before, args.content) if original is not None else [],
            originalFile=before if original is not None else None,
            userModified=False,
        )
        said = f"{'Created' if original is None else 'Overwrote'} {shown} ({lines} lines)."
        made = ToolResult(content=queued_note(ws, said), details=details)
        return await diagnosed(
            ws, path, None if original is None else original.replace("\r\n", "\n"), args.content, made
        )


def target_path(ws: Workspace, raw: str, ctx: ToolContext) -> tuple[Path, str | None]:
    """The resolved path to write, and a reason to refuse if it no longer is what the permission check approved
    (a symlink on the way was swapped in the meantime)."""
    now = ws.real(raw)
    approved = ctx.checked_path or now
    if now != approved:
        return approved, (f"{raw} now resolves to {now}, not to {approved} which was approved; nothing was written.")
    return approved, None
