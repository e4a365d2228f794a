"""Background commands' and sub-agents' ends as Claude Code reports them: which call started each, a
`<task-notification>` for the model when one ends (what Claude Code records in the session, so either tool resuming it
knows the command is done), and waiting for the ones still running. One per conversation (its workspace's): an end
is told once, in the first of these that comes after it, as Claude Code tells it: with the next tool results of the
run going on, else with the next prompt (print mode sends one of its own for the ends after its run)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from agentui.core.events import BackgroundAgentUpdate, BackgroundShellUpdate, Event, ToolEnd

if TYPE_CHECKING:
    from agentui.core.background import BackgroundShells
    from agentui.core.background_agents import BackgroundAgents

Ended = BackgroundShellUpdate | BackgroundAgentUpdate


class _Opened(Protocol):
    """A conversation, as far as its notices go (named so, not imported: the workspace holds them)."""

    @property
    def project(self) -> Any: ...


_SAID = {"completed": "completed", "failed": "failed", "killed": "was stopped"}
BACKGROUND_WAIT = 1800.0
"""Seconds a run's end waits in all for the background commands it left running, when no one is there to go on (print
mode, and an Agent SDK program whose input has ended): Claude Code waits for them too."""


def background_wait(env: Mapping[str, str] | None = None) -> float:
    """BACKGROUND_WAIT, or `AGENTUI_BACKGROUND_WAIT` seconds."""
    try:
        return max(0.0, float((os.environ if env is None else env).get("AGENTUI_BACKGROUND_WAIT", BACKGROUND_WAIT)))
    except ValueError:
        return BACKGROUND_WAIT


AGENT_NOTE = (
    "A task-notification fires each time this agent stops with no live background children of its own. The user can "
    "send it another message and resume it, so the same task-id may notify more than once."
)
"""What Claude Code 2.1.197 adds to a background agent's notification, word for word."""
NOT_THE_USER = (
    "[SYSTEM NOTIFICATION - NOT USER INPUT]\nThis is an automated background-task event, NOT a message from the "
    "user.\nDo NOT interpret this as user acknowledgement, confirmation, or response to any pending question."
)
"""What Claude Code 2.1.197 puts before the notifications it adds to a tool result, word for word."""


def task_notices(conversation: _Opened) -> TaskNotices:
    """The conversation's background ends not told to the model yet."""
    notices = conversation.project.workspace.notices
    assert isinstance(notices, TaskNotices)
    return notices


class TaskNotices:
    """The background shells and sub-agents of a conversation that ended and are not reported yet, in the order they
    ended."""

    def __init__(self, shells: BackgroundShells, agents: BackgroundAgents | None = None) -> None:
        self._shells = shells
        self._agents = agents
        self._calls: dict[str, str] = {}
        """Each shell's (and background sub-agent's) id, and the id of the tool call that started it."""
        self.ended: list[Ended] = []
        self._news = asyncio.Event()

    def forget(self) -> None:
        """A new conversation starts: nothing that ended before is told in it."""
        self.ended.clear()
        self._calls.clear()

    def listen(self, subscribe: Callable[[Callable[[Event], None]], object]) -> None:
        """Follow the conversation's events (its agent's bus): the shells' calls, and their ends."""
        subscribe(self._see)

    def _see(self, event: Event) -> None:
        match event:
            case ToolEnd(details=details) if isinstance(details.get("backgroundTaskId"), str):
                self._calls[details["backgroundTaskId"]] = event.tool_call_id
            case BackgroundAgentUpdate(task_id=task_id, tool_call_id=call):
                self._calls[task_id] = call
                if event.status in ("completed", "failed"):  # (as a shell's: one stopped, whoever stopped it knows)
                    self.ended.append(event)
                    self._news.set()
            case BackgroundShellUpdate(status="completed" | "failed"):  # (one stopped, whoever stopped it knows)
                self.ended.append(event)
                self._news.set()
            case _:
                pass

    @property
    def running(self) -> bool:
        return bool(self.running_ids())

    async def wait(self) -> None:
        """Until one of the shells or sub-agents running now ends (at once when none runs)."""
        day = 24 * 3600.0
        waits = [asyncio.ensure_future(self._shells.wait(shell, day)) for shell in self._shells.running()]
        if self._agents is not None:
            waits += [asyncio.ensure_future(self._agents.wait(task, day)) for task in self._agents.running()]
        if not waits:
            return
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()

    async def next_end(self) -> None:
        """Until an end not told yet is there (at once if one is)."""
        while not self.ended:
            self._news.clear()
            await self._news.wait()

    def running_ids(self) -> list[str]:
        agents = [task.id for task in self._agents.running()] if self._agents is not None else []
        return [shell.id for shell in self._shells.running()] + agents

    def take(self) -> list[tuple[Ended, str, str]]:
        """The ends not reported yet, each with its `<task-notification>` text and its summary, taken out."""
        ended, self.ended = self.ended, []
        return [(update, self.notification(update), self.summary(update)) for update in ended]

    def take_reminder(self) -> str | None:
        """The ends not told yet as the reminder Claude Code adds to a tool result (None when there are none),
        taken out."""
        ended = self.take()
        if not ended:
            return None
        notifications = "\n".join(text for _, text, _ in ended)
        return f"<system-reminder>\n{NOT_THE_USER}\n\n{notifications}\n</system-reminder>"

    @staticmethod
    def task_id(update: Ended) -> str:
        return update.task_id if isinstance(update, BackgroundAgentUpdate) else update.shell_id

    def summary(self, update: Ended) -> str:
        if isinstance(update, BackgroundAgentUpdate):
            said = {"completed": "finished", "failed": f"failed: {update.error or 'Unknown error'}"}
            return f'Agent "{update.description}" {said.get(update.status, "was stopped")}'
        code = f" (exit code {update.exit_code})" if update.exit_code is not None else ""
        return f'Background command "{update.description or update.command}" {_SAID[update.status]}{code}'

    def notification(self, update: Ended) -> str:
        task_id = self.task_id(update)
        lines = [
            "<task-notification>",
            f"<task-id>{task_id}</task-id>",
            *([f"<tool-use-id>{call}</tool-use-id>"] if (call := self._calls.get(task_id)) else []),
            f"<output-file>{update.output_path}</output-file>",
            f"<status>{update.status}</status>",
            f"<summary>{self.summary(update)}</summary>",
        ]
        if isinstance(update, BackgroundAgentUpdate):  # (what a background agent's says besides, as Claude Code's)
            usage = (
                f"<usage><subagent_tokens>{update.total_tokens}</subagent_tokens><tool_uses>{update.tool_uses}"
                f"</tool_uses><duration_ms>{update.duration_ms}</duration_ms></usage>"
            )
            lines += [f"<note>{AGENT_NOTE}</note>", *([f"<result>{update.result}</result>"] * bool(update.result))]
            lines.append(usage)
        return "\n".join([*lines, "</task-notification>"])

    def tool_use_id(self, shell_id: str) -> str | None:
        return self._calls.get(shell_id)
