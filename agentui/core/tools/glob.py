"""Glob: find files by name pattern, newest first, as git sees the tree (.gitignore honoured)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from pydantic import Field
from typing_extensions import TypedDict

from agentui.core.call_views import SearchesFiles
from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolResult
from agentui.core.tools.globs import glob_spec
from agentui.core.tools.walk import newest_first, walk_files
from agentui.core.workspace import Workspace

MAX_RESULTS = 100
_MAGIC = set("*?[{")


class GlobArgs(ToolArgs):
    pattern: str = Field(description='The glob to match, e.g. "**/*.py" or "src/**/*.{ts,tsx}"')
    path: str | None = Field(default=None, description="The directory to search in (default: the project root)")


class GlobDetails(TypedDict):
    filenames: list[str]
    durationMs: int
    numFiles: int
    truncated: bool
    totalMatches: int
    countIsComplete: bool


class Glob(SearchesFiles, Tool[GlobArgs]):
    name = "Glob"
    description = (
        "Find files whose paths match a glob pattern (** crosses directories), newest first, up to 100. "
        "Respects .gitignore. Use it to find files by name; use Grep to search their contents."
    )
    Args = GlobArgs
    Details = GlobDetails
    kind = "read"

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    def permission_path(self, args: GlobArgs) -> str:
        return str(_split(args.pattern)[0] or args.path or ".")

    async def run(self, args: GlobArgs, ctx: ToolContext) -> ToolResult:
        ws = self.workspace
        started = time.monotonic()
        base, pattern = _split(args.pattern)
        start = ctx.checked_path or ws.real(base or args.path or ".")
        if not start.is_dir():
            return ToolResult.error(f"Not a directory: {ws.display(start)}.")
        spec = glob_spec(pattern)
        matches = await asyncio.to_thread(
            lambda: newest_first(
                p
                for p in walk_files(start, ws.root)
                if spec.match_file(p.relative_to(start).as_posix()) and not ws.hidden(p)
            )
        )
        details: GlobDetails = {  # (Claude Code's shape)
            "filenames": [ws.display(path) for path in matches[:MAX_RESULTS]],
            "durationMs": round((time.monotonic() - started) * 1000),
            "numFiles": len(matches),
            "truncated": len(matches) > MAX_RESULTS,
            "totalMatches": len(matches),
            "countIsComplete": True,
        }
        if not matches:
            return ToolResult(content="No files found", details=details)
        lines = [ws.display(path) for path in matches[:MAX_RESULTS]]
        if len(matches) > MAX_RESULTS:
            lines.append(
                f"(Showing the {MAX_RESULTS} most recently modified of {len(matches)} files; narrow the pattern.)"
            )
        return ToolResult(content="\n".join(lines), details=details)


def _split(pattern: str) -> tuple[Path | None, str]:
    """An absolute pattern (`/abs/dir/**/*.py`) is searched from its literal part; others from `path`."""
    if not Path(pattern).is_absolute():
        return None, pattern
    parts = Path(pattern).parts
    cut = next((i for i, part in enumerate(parts) if _MAGIC & set(part)), len(parts))
    return Path(*parts[:cut]), "/".join(parts[cut:]) or "*"
