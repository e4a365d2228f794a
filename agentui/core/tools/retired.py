"""Claude Code's tools that agentui does not run, known only so that their calls in a resumed session are shown as
Claude Code showed them: MultiEdit (several Edits to one file) and NotebookRead (Read reads notebooks since 2.0)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentui.core.tools.base import Tool, ToolArgs
from agentui.core.tools.views import ResultView, change_result


class MultiEdit(Tool[ToolArgs]):
    name = "MultiEdit"
    description = "Several replacements in one file (Claude Code 1.0's; agentui's model uses Edit)."
    Args = ToolArgs
    kind = "write"
    shown = "edit"
    opens = True

    @classmethod
    def result(cls, text: str, details: Mapping[str, Any]) -> ResultView:
        return change_result(details)


class NotebookRead(Tool[ToolArgs]):
    name = "NotebookRead"
    description = "A notebook's cells (Claude Code 1.0's; Read reads notebooks)."
    Args = ToolArgs
    kind = "read"
    shown = "read"


RETIRED: tuple[type[Tool[Any]], ...] = (MultiEdit, NotebookRead)
