"""The task list the model keeps (TodoWrite), above the prompt while any task is open: what it is doing now and what
is left, updated as it goes, and the same after a resume."""

from __future__ import annotations

from typing import Any

from textual.widgets import Static

from agentui.tui.widgets.tool_block import todo_text


class TodoPanel(Static):
    DEFAULT_CSS = """
    TodoPanel { display: none; height: auto; max-height: 12; margin: 0 1; padding: 0 1;
                border: round $secondary 50%; }
    TodoPanel.-open { display: block; }
    """

    def __init__(self) -> None:
        super().__init__("")
        self.todos: list[dict[str, Any]] = []

    def show_todos(self, todos: list[dict[str, Any]]) -> None:
        """The list as TodoWrite last set it; hidden once every task is done (or there are none)."""
        self.todos = [t for t in todos if isinstance(t, dict)]
        done = sum(1 for t in self.todos if t.get("status") == "completed")
        self.border_title = f"Tasks {done}/{len(self.todos)}"
        text = todo_text(self.todos)
        text.rstrip()  # (one line per task, and no empty one after them)
        self.update(text)
        self.set_class(any(t.get("status") != "completed" for t in self.todos), "-open")
