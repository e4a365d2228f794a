"""`/status` and `/doctor` in the transcript: labelled rows whose values wrap under themselves, and health checks
one a line, each marked ok (✓), a warning (⚠) or a problem (✗) with what to do, so both read at 80 columns."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

if TYPE_CHECKING:
    from agentui.api import HealthCheck

MARKS = {"ok": ("✓", "green"), "warning": ("⚠", "yellow"), "problem": ("✗", "bold red")}


class StatusView(Static):
    DEFAULT_CSS = "StatusView { margin: 1 0 0 0; }"

    def __init__(self, rows: Sequence[tuple[str, str]]) -> None:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column(ratio=1, overflow="fold")  # (a long path wraps whole, never cut short)
        for label, value in rows:
            table.add_row(Text(label), Text(value))
        self.rows = list(rows)
        self.drawn = Group(Text("Status", style="bold underline"), table)
        super().__init__(self.drawn)


class DoctorView(Static):
    """Says the checks are running until they have: then one line each."""

    DEFAULT_CSS = "DoctorView { margin: 1 0 0 0; }"

    def __init__(self) -> None:
        self.checks: list[HealthCheck] = []
        self.drawn: RenderableType = Text("Checking the setup… (Esc stops)", style="dim")
        super().__init__(self.drawn)

    def show(self, checks: Sequence[HealthCheck]) -> None:
        self.checks = list(checks)
        table = Table.grid(padding=(0, 1))
        table.add_column(no_wrap=True)
        table.add_column(ratio=1, overflow="fold")
        for check in checks:
            mark, style = MARKS[check.level]
            line = Text()
            line.append(f"{check.item}: ", style="bold")
            line.append(check.said)
            if check.advice and check.level != "ok":
                line.append(f" {check.advice}", style="italic")
            table.add_row(Text(mark, style=style), line)
        problems = sum(check.level == "problem" for check in checks)
        warnings = sum(check.level == "warning" for check in checks)
        title = Text()
        title.append("Doctor", style="bold underline")
        if problems or warnings:
            title.append(f"  {_count(problems, 'problem')}, {_count(warnings, 'warning')}", style="dim")
        else:
            title.append("  everything is in order", style="dim")
        self.drawn = Group(title, table)
        self.update(self.drawn)

    def ended(self, why: str) -> None:
        """The checks did not finish (stopped, or failed): `why`, in one sentence."""
        self.drawn = Text(why, style="dim")
        self.update(self.drawn)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
