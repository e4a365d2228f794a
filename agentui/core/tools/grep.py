"""Grep: search file contents with a regular expression, via ripgrep when available, else in Python."""

from __future__ import annotations

import asyncio
from typing import Literal, NotRequired

from pydantic import ConfigDict, Field
from typing_extensions import TypedDict

from agentui.core.call_views import SearchesFiles
from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolResult
from agentui.core.tools.globs import FileFilter, type_globs
from agentui.core.tools.search import FileHits, Query, SearchError, python_search, ripgrep_path, ripgrep_search
from agentui.core.tools.walk import newest_first
from agentui.core.workspace import Workspace

MAX_LINE_CHARS = 500
MAX_OUTPUT_CHARS = 30_000


class GrepArgs(ToolArgs):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    pattern: str = Field(description="The regular expression to search for")
    path: str | None = Field(default=None, description="File or directory to search (default: the project root)")
    glob: str | None = Field(
        default=None, description='Only files matching this glob, e.g. "*.py" or "src/**/*.{ts,tsx}"'
    )
    type: str | None = Field(default=None, description='Only files of this type, e.g. "py", "js", "rust"')
    output_mode: Literal["content", "files_with_matches", "count"] = Field(
        default="files_with_matches",
        description=(
            '"content" shows matching lines, "files_with_matches" (default) only file paths, "count" counts per file'
        ),
    )
    ignore_case: bool = Field(default=False, alias="-i", description="Case-insensitive search")
    line_numbers: bool = Field(default=True, alias="-n", description="Show line numbers (content mode)")
    after: int | None = Field(
        default=None, ge=0, alias="-A", description="Lines of context after each match (content mode)"
    )
    before: int | None = Field(
        default=None, ge=0, alias="-B", description="Lines of context before each match (content mode)"
    )
    context: int | None = Field(
        default=None, ge=0, alias="-C", description="Lines of context around each match (content mode)"
    )
    multiline: bool = Field(default=False, description="Let patterns span lines; . matches newlines")
    head_limit: int | None = Field(default=None, ge=1, description="Show only the first N lines or entries")


class GrepDetails(TypedDict):
    """Claude Code's shape (the lines themselves in content mode), and which engine searched."""

    mode: str
    numFiles: int
    filenames: list[str]
    content: NotRequired[str]
    numLines: NotRequired[int]
    backend: str


class Grep(SearchesFiles, Tool[GrepArgs]):
    name = "Grep"
    description = (
        "Search file contents with a regular expression (ripgrep syntax). Respects .gitignore and skips binary "
        "files. Narrow with glob or type; output_mode chooses matching lines, file paths (default) or counts."
    )
    Args = GrepArgs
    Details = GrepDetails
    kind = "read"

    def __init__(self, workspace: Workspace, *, use_ripgrep: bool | None = None) -> None:
        self.workspace = workspace
        self._rg = ripgrep_path() if use_ripgrep in (None, True) else None
        if use_ripgrep and self._rg is None:
            raise RuntimeError("ripgrep was asked for but is not on PATH")

    @property
    def backend(self) -> str:
        return "ripgrep" if self._rg else "python"

    def permission_path(self, args: GrepArgs) -> str:
        return args.path or "."

    async def run(self, args: GrepArgs, ctx: ToolContext) -> ToolResult:
        ws = self.workspace
        start = ctx.checked_path or ws.real(args.path or ".")
        if not start.exists():
            return ToolResult.error(f"Path does not exist: {ws.display(start)}.")
        globs = [args.glob] if args.glob else []
        if args.type:
            try:
                globs += list(type_globs(args.type))
            except ValueError as exc:
                return ToolResult.error(f"Grep was not run: {exc}.")
        context = args.context or 0
        query = Query(
            pattern=args.pattern,
            start=start,
            project_root=ws.root,
            mode=args.output_mode,
            filter=FileFilter(globs),
            ignore_case=args.ignore_case,
            multiline=args.multiline,
            before=args.before if args.before is not None else context,
            after=args.after if args.after is not None else context,
        )
        try:
            if self._rg:
                hits = await ripgrep_search(query, self._rg)
            else:
                hits = await asyncio.to_thread(python_search, query)
        except SearchError as exc:
            return ToolResult.error(f"Grep failed: {exc}")
        hits = [hit for hit in hits if not ws.hidden(hit.path)]
        text = format_hits(hits, args, ws, with_context=bool(query.before or query.after))
        return ToolResult(content=text, details=_details(args.output_mode, hits, text, ws, self.backend))


def _details(mode: str, hits: list[FileHits], text: str, ws: Workspace, backend: str) -> GrepDetails:
    """Claude Code's `toolUseResult` of a Grep (and which engine searched, for agentui's own readers)."""
    if mode == "content":
        return {"mode": mode, "numFiles": 0, "filenames": [], "content": text, "numLines": len(text.splitlines()),
                "backend": backend}  # fmt: skip
    filenames = [ws.display(hit.path) for hit in hits]
    return {"mode": mode, "filenames": filenames, "numFiles": len(hits), "backend": backend}


def format_hits(hits: list[FileHits], args: GrepArgs, ws: Workspace, *, with_context: bool) -> str:
    """One text for both engines: paths relative to the project, newest files first in files mode."""
    if args.output_mode == "files_with_matches":
        if not hits:
            return "No files found"
        paths = [ws.display(path) for path in newest_first(h.path for h in hits)]
        shown = _limit(paths, args.head_limit)
        return _cap(f"Found {len(paths)} file{'s' if len(paths) != 1 else ''}\n" + "\n".join(shown))
    ordered = sorted(hits, key=lambda h: str(h.path))
    if args.output_mode == "count":
        if not ordered:
            return "No matches found"
        entries = [f"{ws.display(h.path)}:{h.count}" for h in ordered]
        total = sum(h.count for h in ordered)
        lines_found = f"{total} matching line{'s' if total != 1 else ''}"
        summary = f"\n\nFound {lines_found} in {len(ordered)} file{'s' if len(ordered) != 1 else ''}."
        return _cap("\n".join(_limit(entries, args.head_limit)) + summary)
    lines: list[str] = []
    for hit in ordered:
        name = ws.display(hit.path)
        previous = None
        for number, text, is_match in hit.lines:
            if with_context and lines and (previous is None or number != previous + 1):
                lines.append("--")
            previous = number
            if len(text) > MAX_LINE_CHARS:
                text = text[:MAX_LINE_CHARS] + "…"
            separator = ":" if is_match else "-"
            lines.append(
                f"{name}{separator}{number}{separator}{text}" if args.line_numbers else f"{name}{separator}{text}"
            )
    if not lines:
        return "No matches found"
    return _cap("\n".join(_limit(lines, args.head_limit)))


def _limit(items: list[str], head_limit: int | None) -> list[str]:
    if head_limit is None or len(items) <= head_limit:
        return items
    return [*items[:head_limit], f"… {len(items) - head_limit} more (head_limit={head_limit})"]


def _cap(text: str) -> str:
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    cut = text[:MAX_OUTPUT_CHARS].rsplit("\n", 1)[0]
    return cut + "\n… output cut at 30000 characters; narrow the search with path, glob, type or head_limit."
