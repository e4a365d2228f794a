"""Background commands' ends as Claude Code reports them: which call started each shell, a `<task-notification>` for
the model when one ends (what Claude Code records in the session, so either tool resuming it knows the command is
done), and waiting for the ones still running."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from agentui.core.events import BackgroundShellUpdate, Event, ToolEnd

if TYPE_CHECKING:
    from agentui.core.conversation import Conversation

_SAID = {"completed": "completed", "failed": "failed", "killed": "was stopped"}


class TaskNotices:
    """The background shells of a conversation that ended and are not reported yet, in the order they ended."""

    def __init__(self, conversation: Conversation) -> None:
        self._shells = conversation.project.workspace.shells
        self._calls: dict[str, str] = {}
        """Each shell's id, and the id of the tool call that started it."""
        self.ended: list[BackgroundShellUpdate] = []
        conversation.on(self._see)

    def _see(self, event: Event) -> None:
        match event:
            case ToolEnd(details=details) if isinstance(details.get("backgroundTaskId"), str):
                self._calls[details["backgroundTaskId"]] = event.tool_call_id
            case BackgroundShellUpdate(status="completed" | "failed" | "killed"):
                self.ended.append(event)
            case _:
                pass

    @property
    def running(self) -> bool:
        return bool(self._shells.running())

    async def wait(self) -> None:
        """Until one of the shells running now ends (at once when none runs)."""
        running = self._shells.running()
        if not running:
            return
        waits = [asyncio.ensure_future(self._shells.wait(shell, 24 * 3600.0)) for shell in running]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()

    def running_ids(self) -> list[str]:
        return [shell.id for shell in self._shells.running()]

    def take(self) -> list[tuple[BackgroundShellUpdate, str, str]]:
        """The ends not reported yet, each with its `<task-notification>` text and its summary, taken out."""
        ended, self.ended = self.ended, []
        return [(update, self.notification(update), self.summary(update)) for update in ended]

    def summary(self, update: BackgroundShellUpdate) -> str:
        code = f" (exit code {update.exit_code})" if update.exit_code is not None else ""
        return f'Background command "{update.description or update.command}" {_SAID[update.status]}{code}'

    def notification(self, update: BackgroundShellUpdate) -> str:
        summary = self.summary(update)
        lines = [
            "<task-notification>",
            f"<task-id>{update.shell_id}</task-id>",
            *([f"<tool-use-id>{call}</tool-use-id>"] if (call := self._calls.get(update.shell_id)) else []),
            f"<output-file>{update.output_path}</output-file>",
            f"<status>{update.status}</status>",
            f"<summary>{summary}</summary>",
            "</task-notification>",
        ]
        return "\n".join(lines)

    def tool_use_id(self, shell_id: str) -> str | None:
        return self._calls.get(shell_id)
