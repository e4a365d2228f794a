"""The task list the model keeps (TaskCreate and its family, or TodoWrite), above the prompt while any task is open:
what it is doing now and what is left, updated as it goes, and the same after a resume."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from agentui.frontends.tui.widgets.tool_block import TODO_MARKS

if TYPE_CHECKING:
    from agentui.api.events import TaskItem


class TodoPanel(Static):
    DEFAULT_CSS = """
    TodoPanel { display: none; height: auto; max-height: 12; margin: 0 1; padding: 0 1;
                border: round $secondary 50%; }
    TodoPanel.-open { display: block; }
    """

    def __init__(self) -> None:
        super().__init__("")
        self.tasks: list[TaskItem] = []

    def show_tasks(self, tasks: list[TaskItem]) -> None:
        """The list as it now stands; hidden once every task is done (or there are none)."""
        self.tasks = tasks
        done = sum(1 for task in tasks if task.status == "completed")
        self.border_title = f"Tasks {done}/{len(tasks)}"
        text = Text()
        for task in tasks:
            mark, style = TODO_MARKS[task.status]
            line = task.active_form if task.status == "in_progress" and task.active_form else task.subject
            text.append(f"{mark} {line}", style=style)
            if task.owner:
                text.append(f" ({task.owner})", style="dim")
            text.append("\n")
        text.rstrip()  # (one line per task, and no empty one after them)
        self.update(text)
        self.set_class(any(task.status != "completed" for task in tasks), "-open")
