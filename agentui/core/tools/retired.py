"""Claude Code's tools that agentui does not run, known only so that their calls in a resumed session are shown as
Claude Code showed them: MultiEdit (several Edits to one file) and NotebookRead (Read reads notebooks since 2.0)."""

from __future__ import annotations

from typing import Any

from agentui.core.call_views import ChangesAFile
from agentui.core.tools.base import Tool, ToolArgs


class MultiEdit(ChangesAFile, Tool[ToolArgs]):
    name = "MultiEdit"
    description = "Several replacements in one file (Claude Code 1.0's; agentui's model uses Edit)."
    Args = ToolArgs
    kind = "write"


class NotebookRead(Tool[ToolArgs]):
    name = "NotebookRead"
    description = "A notebook's cells (Claude Code 1.0's; Read reads notebooks)."
    Args = ToolArgs
    kind = "read"
    shown = "read"


RETIRED: tuple[type[Tool[Any]], ...] = (MultiEdit, NotebookRead)
