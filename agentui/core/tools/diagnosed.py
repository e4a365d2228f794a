"""An Edit's or Write's result with what the language server found in the change: the errors it brought (not those
already there) for the model, as Claude Code's <new-diagnostics> block, and as data for the screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentui.core.errors import AgentuiError
from agentui.core.lsp.diagnostics import block
from agentui.core.tools.base import ToolResult
from agentui.core.workspace import Workspace


async def diagnosed(ws: Workspace, path: Path, before: str | None, after: str, result: ToolResult) -> ToolResult:
    """`result` of a change from `before` (None: a new file) to `after` made to `path`, with the new diagnostics
    appended where a language server runs for it (not while changes are only queued)."""
    servers = ws.lsp
    if servers is None or result.is_error or (ws.changes is not None and ws.changes.active):
        return result
    try:
        checked = await servers.after_edit(path, before, after)
    except (AgentuiError, OSError) as exc:  # (the change is made: a server's failure must not hide that)
        return ToolResult(content=f"{result.content}\n\nNo diagnostics: {exc}", details=result.details)
    content = result.content if isinstance(result.content, str) else ""
    details: dict[str, Any] = dict(result.details)
    if checked.diagnostics:
        content += "\n\n" + block(ws.display(path), checked.diagnostics)
        details["diagnostics"] = [d.detail() for d in checked.diagnostics]
    if checked.note:
        content += f"\n\n{checked.note}"
    return ToolResult(content=content, details=details)
