"""A coloured unified diff from a `structuredPatch` (the hunks Edit and Write put in their details)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

MAX_LINES = 400


def patch_from_strings(old: str, new: str, context: int = 3) -> list[dict[str, Any]]:
    """Hunks for a change not yet made (the permission modal shows what an Edit or Write would do)."""
    from agentui.api import structured_patch

    return structured_patch(old, new, context)


def render_patch(hunks: list[dict[str, Any]], *, max_lines: int = MAX_LINES) -> Text:
    text = Text()
    shown = 0
    for hunk in hunks:
        old_line, new_line = hunk.get("oldStart", 1), hunk.get("newStart", 1)
        if shown:
            text.append("  ⋮\n", style="dim")
        for line in hunk.get("lines", []):
            if shown >= max_lines:
                text.append(f"  … {sum(len(h.get('lines', [])) for h in hunks) - shown} more lines\n", style="dim")
                return text
            marker, body = line[:1], line[1:]
            if marker == "-":
                text.append(f"{old_line:>5}   - {body}\n", style="red")
                old_line += 1
            elif marker == "+":
                text.append(f"{new_line:>5}   + {body}\n", style="green")
                new_line += 1
            else:
                text.append(f"{new_line:>5}     {body}\n", style="dim")
                old_line += 1
                new_line += 1
            shown += 1
    return text


class DiffView(Static):
    DEFAULT_CSS = """
    DiffView { padding: 0 1; background: $surface; }
    """

    def __init__(self, hunks: list[dict[str, Any]]) -> None:
        super().__init__(render_patch(hunks))
        self.hunks = hunks
