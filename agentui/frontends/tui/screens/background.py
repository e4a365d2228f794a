"""/tasks: the background shells and sub-agents of this conversation — each one's status and what it is doing, the
latest output (a shell's) or answer (an agent's) of the one highlighted, kept up to date while the list is open, `k`
to stop it, Esc to close."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agentui.api import AgentTaskInfo, background_agents

if TYPE_CHECKING:
    from agentui.api import Conversation, ShellInfo

REFRESH = 0.5
"""Seconds between redraws of the statuses and the output while the list is open."""
TAIL_CHARS = 4000
_MARKS = {"pending": "◌", "running": "◐", "completed": "●", "failed": "✗", "killed": "⊘"}
_WAITING = {"pending": "(waiting for a free slot: sub-agents run a few at a time)", "running": "(working…)"}


def shell_label(shell: ShellInfo) -> Text:
    status = shell.status if shell.exit_code is None else f"{shell.status}, exit {shell.exit_code}"
    what = (shell.description + ": " if shell.description else "") + shell.command.splitlines()[0][:90]
    return Text(f"{_MARKS[shell.status]} {shell.id}  {what}  ({status})")


def task_label(task: ShellInfo | AgentTaskInfo) -> Text:
    if not isinstance(task, AgentTaskInfo):
        return shell_label(task)
    return Text(f"{_MARKS[task.status]} {task.id}  {task.agent_type} agent: {task.description[:90]}  ({task.status})")


def _tasks(conversation: Conversation) -> list[ShellInfo | AgentTaskInfo]:
    return [*conversation.background_shells(), *background_agents(conversation)]


class BackgroundTasksScreen(ModalScreen[None]):
    CSS_PATH = "picker.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_screen", "Close", show=False),
        Binding("k", "stop", "Stop the one highlighted", show=False),
    ]

    def __init__(self, conversation: Conversation) -> None:
        super().__init__()
        self.conversation = conversation
        self.tasks = _tasks(conversation)

    def compose(self) -> ComposeResult:
        with Vertical(id="picker") as box:
            box.border_title = "Background tasks (k stops the one highlighted · Esc closes)"
            yield OptionList(*(Option(task_label(t), id=t.id) for t in self.tasks), id="shells")
            yield Static("", id="shell-output")

    def on_mount(self) -> None:
        shells = self.query_one("#shells", OptionList)
        shells.highlighted = len(self.tasks) - 1  # the newest
        shells.focus()
        self._redraw()
        self.set_interval(REFRESH, self._redraw)

    @property
    def highlighted(self) -> ShellInfo | AgentTaskInfo | None:
        index = self.query_one("#shells", OptionList).highlighted
        return self.tasks[index] if index is not None and 0 <= index < len(self.tasks) else None

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._redraw()

    def _redraw(self) -> None:
        by_id = {task.id: task for task in _tasks(self.conversation)}
        shells = self.query_one("#shells", OptionList)
        for index, task in enumerate(self.tasks):
            now = by_id.get(task.id, task)
            if now != task:
                self.tasks[index] = now
                shells.replace_option_prompt_at_index(index, task_label(now))
        chosen = self.highlighted
        if isinstance(chosen, AgentTaskInfo):
            text = chosen.said or _WAITING.get(chosen.status, "(it said nothing)")
        else:
            text = self.conversation.background_output(chosen.id, TAIL_CHARS) if chosen else ""
        self.query_one("#shell-output", Static).update(Text(text.rstrip("\n")[-TAIL_CHARS:] or "(no output yet)"))

    async def action_stop(self) -> None:
        chosen = self.highlighted
        if chosen is not None and chosen.status in ("running", "pending"):
            await self.conversation.stop_background(chosen.id)
            self._redraw()

    def action_dismiss_screen(self) -> None:
        self.dismiss(None)
