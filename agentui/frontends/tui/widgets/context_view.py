"""`/context` in the transcript, drawn as Claude Code draws it: a grid of cells, one colour a part (⛁ full, ⛀ partly
full, ⛶ free, ⛝ the autocompact buffer) beside the model, how full the window is and each part's tokens and share;
then the memory files, custom agents and MCP tools one by one."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from agentui.frontends.tui.slash_command import shown_path

if TYPE_CHECKING:
    from agentui.api import ContextBreakdown

COLOURS = {
    "system_prompt": "#999999",
    "system_tools": "#6c8ebf",
    "mcp_tools": "cyan",
    "api_tools": "#5fafaf",
    "agents": "#b1b9f9",
    "memory": "#d77757",
    "skills": "#ffc107",
    "messages": "#af87ff",
    "buffer": "#777777",
    "free": "#777777",
}
"""Each part's colour, near Claude Code's dark theme (its memory files are Claude's orange, its messages purple)."""
FULL, PARTLY, FREE, BUFFER = "⛁", "⛀", "⛶", "⛝"
FULL_FROM = 0.7
"""A cell at least this full is drawn full (as Claude Code's)."""


def compact(tokens: int) -> str:
    """12,345 as "12.3k", 200,000 as "200k", 1,048,576 as "1.0M"."""
    if tokens < 1000:
        return str(tokens)
    if tokens < 1_000_000:
        return f"{tokens / 1000:.1f}".removesuffix(".0") + "k"
    return f"{tokens / 1_000_000:.1f}M"


class ContextView(Static):
    DEFAULT_CSS = "ContextView { margin: 1 0 0 0; }"

    def __init__(self, breakdown: ContextBreakdown, root: Path, *, columns: int = 10, rows: int = 10) -> None:
        self.breakdown = breakdown
        self.drawn = Group(*_drawn(breakdown, root, columns, rows))
        super().__init__(self.drawn)


def _drawn(breakdown: ContextBreakdown, root: Path, columns: int, rows: int) -> list[RenderableType]:
    grid = Text()
    for number, row in enumerate(breakdown.cells(columns, rows)):
        for cell in row:
            glyph = {"free": FREE, "buffer": BUFFER}.get(cell.kind) or (FULL if cell.fullness >= FULL_FROM else PARTLY)
            grid.append(glyph + " ", style=("dim " if cell.kind == "free" else "") + COLOURS[cell.kind])
        if number < rows - 1:
            grid.append("\n")
    side = Table.grid(padding=(0, 2))
    side.add_column(no_wrap=True)
    side.add_column(ratio=1)
    side.add_row(grid, _legend(breakdown))
    parts: list[RenderableType] = [Text("Context Usage", style="bold"), side]
    memory = [(shown_path(item.path or Path(item.name), root), item.tokens) for item in breakdown.memory_files]
    for title, items in (
        ("Memory files · /memory", memory),
        ("Custom agents", [(item.name, item.tokens) for item in breakdown.agents]),
        ("MCP tools · /mcp", [(item.name, item.tokens) for item in breakdown.mcp_tools]),
    ):
        if items:
            parts += [Text(""), _tree(title, items)]
    return parts


def _legend(breakdown: ContextBreakdown) -> Text:
    legend = Text(breakdown.model + "\n", style="bold")
    window, percent = breakdown.window, breakdown.percent
    if window and percent is not None:
        # (the percentage as the status bar rounds it, so the two always agree)
        legend.append(f"{compact(breakdown.used)}/{compact(window)} tokens ({percent:.0f}%)\n", style="dim")
    else:
        legend.append(f"{compact(breakdown.used)} tokens; the model's window is unknown", style="dim")
        legend.append(" (context_window in agentui's config.json sets it)\n", style="dim")
    legend.append("\n")
    legend.append("Estimated usage by category\n", style="dim italic")
    lines: list[tuple[str, str, str, int, bool]] = [
        (FULL, part.kind, part.name, part.tokens, True) for part in breakdown.parts
    ]
    if breakdown.free is not None:
        lines.append((FREE, "free", "Free space", breakdown.free, False))
    if breakdown.buffer:
        lines.append((BUFFER, "buffer", "Autocompact buffer", breakdown.buffer, True))
    for number, (glyph, kind, name, tokens, counted) in enumerate(lines):
        legend.append(glyph, style=("dim " if kind == "free" else "") + COLOURS[kind])
        legend.append(f" {name}: ", style="dim" if kind == "buffer" else "")
        share = f"{breakdown.share(tokens):.1f}%"
        legend.append(f"{compact(tokens)}{' tokens' if counted else ''} ({share})", style="dim")
        if number < len(lines) - 1:
            legend.append("\n")
    return legend


def _tree(title: str, items: Sequence[tuple[str, int]]) -> Text:
    head, _, hint = title.partition(" · ")
    tree = Text(head, style="bold")
    if hint:
        tree.append(f" · {hint}", style="dim")
    for number, (name, tokens) in enumerate(items):
        branch = "└" if number == len(items) - 1 else "├"
        tree.append(f"\n{branch} {name}: ")
        tree.append(f"{compact(tokens)} tokens", style="dim")
    return tree
