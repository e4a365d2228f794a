"""`/help` in the transcript: the keys and the commands as two tables whose second column wraps under itself, so
the text reads the same at 80 columns as at 200."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static


class HelpView(Static):
    DEFAULT_CSS = "HelpView { margin: 1 0 0 0; }"

    def __init__(self, keys: Sequence[tuple[str, str]], commands: Sequence[tuple[str, str]]) -> None:
        self.tables = Group(_table("Keys", keys), Text(""), _table("Commands", commands))
        super().__init__(self.tables)


def _table(title: str, rows: Sequence[tuple[str, str]]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column(ratio=1)
    table.add_row(Text(title, style="bold underline"), "")
    for key, does in rows:
        table.add_row(key, does.replace("`", ""))
    return table
