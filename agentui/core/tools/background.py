"""TaskOutput and TaskStop: reading and ending background shells (Bash `run_in_background`) and background sub-agents
(Agent `run_in_background`: agent_tasks.py), by Claude Code 2.1's names and shapes; BashOutput and KillShell
(KillBash) are 2.0's, for sessions and models that use them."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import Field
from typing_extensions import TypedDict

from agentui.core.background import BackgroundShell, BackgroundShells
from agentui.core.call_views import ResultView, plural
from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolResult
from agentui.core.workspace import Workspace

MAX_WAIT_MS = 600_000


class TaskOutputArgs(ToolArgs):
    task_id: str = Field(description="The background task's id")
    block: bool = Field(default=True, description="Wait for the task to finish (up to `timeout`)")
    timeout: float = Field(default=30_000, ge=0, le=MAX_WAIT_MS, description="How long to wait, in milliseconds")


class TaskStopArgs(ToolArgs):
    task_id: str | None = Field(default=None, description="The background task's id")
    shell_id: str | None = Field(default=None, description="Deprecated: the same as task_id")


class BashOutputArgs(ToolArgs):
    bash_id: str
    filter: str | None = None


class KillShellArgs(ToolArgs):
    shell_id: str


class BackgroundTask(TypedDict):
    task_id: str
    task_type: str
    status: str
    description: str
    output: str
    """What it printed since the last read."""
    exitCode: int | None


class TaskOutputDetails(TypedDict):
    retrieval_status: str
    task: BackgroundTask


class TaskStopDetails(TypedDict):
    message: str
    task_id: str
    task_type: str
    command: str


class BashOutputDetails(TypedDict):
    shellId: str
    command: str
    status: str
    exitCode: int | None
    stdout: str
    stderr: str
    stdoutLines: int
    stderrLines: int
    timestamp: str


class KillShellDetails(TypedDict):
    message: str
    shell_id: str


class _ShellTool(Tool[Any]):
    kind = "read"  # reads or ends what the model itself started: nothing new runs or is written

    @classmethod
    def title(cls, arguments: Mapping[str, Any], cwd: Path | None) -> str:
        return str(arguments.get("task_id") or arguments.get("shell_id") or arguments.get("bash_id") or "")

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    @property
    def shells(self) -> BackgroundShells:
        return self.workspace.shells

    def _find(self, shell_id: str) -> BackgroundShell | None:
        return self.shells.get(shell_id.strip())

    def _unknown(self, shell_id: str) -> ToolResult:
        ids = [info.id for info in self.shells.all()] + [task.id for task in self.workspace.agents.all()]
        known = ", ".join(ids) or "none"
        return ToolResult.error(f"No background task found with ID: {shell_id} (the tasks are: {known})")


class _Reads(_ShellTool):
    """A read of a background shell's new output (TaskOutput, 2.0's BashOutput)."""

    @classmethod
    def result(cls, text: str, details: Mapping[str, Any]) -> ResultView:
        task = details.get("task") or details
        status = task.get("status")
        lines = len(str(task.get("output") or task.get("stdout") or "").splitlines())
        return ResultView(f"{status} · {plural(lines, 'new line')}" if status else "done")


class _Stops(_ShellTool):
    """The end of a background shell (TaskStop, 2.0's KillShell)."""

    @classmethod
    def result(cls, text: str, details: Mapping[str, Any]) -> ResultView:
        return ResultView("stopped")


class TaskOutput(_Reads):
    name = "TaskOutput"
    description = (
        "Read what a background task (a Bash command run with run_in_background) printed since the last read, "
        "and its status; of a background agent, its status and, once it has ended, its answer. block=true waits "
        "until it finishes or `timeout` ms pass; block=false returns at once."
    )
    Args = TaskOutputArgs
    Details = TaskOutputDetails

    async def run(self, args: TaskOutputArgs, ctx: ToolContext) -> ToolResult:
        shell = self._find(args.task_id)
        if shell is None and (agent := self.workspace.agents.get(args.task_id)) is not None:
            from agentui.core.tools.agent_tasks import agent_output

            return await agent_output(self.workspace.agents, agent, args.block, args.timeout)
        if shell is None:
            return self._unknown(args.task_id)
        retrieval = "success"
        if shell.status == "running":
            if args.block and args.timeout > 0:
                if not await self.shells.wait(shell, args.timeout / 1000):
                    retrieval = "timeout"
            else:
                retrieval = "not_ready"
        new = shell.read_new()
        parts = [
            f"<retrieval_status>{retrieval}</retrieval_status>",
            f"<task_id>{shell.id}</task_id>",
            "<task_type>local_bash</task_type>",
            f"<status>{shell.status}</status>",
        ]
        if shell.exit_code is not None:
            parts.append(f"<exit_code>{shell.exit_code}</exit_code>")
        output = new.text.rstrip("\n")
        if new.skipped:
            output = f"[{new.skipped:,} earlier bytes of new output are in {shell.output_path}]\n{output}"
        parts.append(f"<output>\n{output}\n</output>" if output else "<output>(no new output)</output>")
        details: TaskOutputDetails = {
            "retrieval_status": retrieval,
            "task": {
                "task_id": shell.id,
                "task_type": "local_bash",
                "status": shell.status,
                "description": shell.description or shell.command,
                "output": new.text,
                "exitCode": shell.exit_code,
            },
        }
        return ToolResult("\n\n".join(parts), details)


class TaskStop(_Stops):
    name = "TaskStop"
    description = (
        "Stop a background task (a Bash command or an agent run with run_in_background) and everything it started."
    )
    Args = TaskStopArgs
    Details = TaskStopDetails

    async def run(self, args: TaskStopArgs, ctx: ToolContext) -> ToolResult:
        shell_id = args.task_id or args.shell_id
        if not shell_id:
            return ToolResult.error("TaskStop needs task_id: the id Bash gave when it started the task.")
        shell = self._find(shell_id)
        if shell is None and (agent := self.workspace.agents.get(shell_id)) is not None:
            from agentui.core.tools.agent_tasks import stop_agent

            return await stop_agent(self.workspace.agents, agent)
        if shell is None:
            return self._unknown(shell_id)
        if shell.status != "running":
            return ToolResult.error(f"Task {shell.id} is not running (status: {shell.status}), so it cannot be stopped")
        await self.shells.stop(shell)
        message = f"Successfully stopped task: {shell.id} ({shell.command})"
        details = TaskStopDetails(message=message, task_id=shell.id, task_type="local_bash", command=shell.command)
        return ToolResult(json.dumps(details, separators=(",", ":")), details)  # (Claude Code's model reads the JSON)


class BashOutput(_Reads):
    """Claude Code 2.0's TaskOutput: new output of a background shell, at once, optionally filtered by a regex."""

    name = "BashOutput"
    description = "Read new output of a background Bash shell (Claude Code 2.0's name; prefer TaskOutput)."
    Args = BashOutputArgs
    Details = BashOutputDetails
    offered = False

    async def run(self, args: BashOutputArgs, ctx: ToolContext) -> ToolResult:
        shell = self._find(args.bash_id)
        if shell is None:
            return self._unknown(args.bash_id)
        try:
            wanted = re.compile(args.filter) if args.filter else None
        except re.error as exc:
            return ToolResult.error(f"filter is not a valid regular expression: {exc}")
        text = shell.read_new().text.rstrip("\n")
        if wanted is not None:
            text = "\n".join(line for line in text.splitlines() if wanted.search(line))
        now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        parts = [f"<status>{shell.status}</status>"]
        if shell.exit_code is not None:
            parts.append(f"<exit_code>{shell.exit_code}</exit_code>")
        if text:
            parts.append(f"<stdout>\n{text}\n</stdout>")
        parts.append(f"<timestamp>{now}</timestamp>")
        details: BashOutputDetails = {
            "shellId": shell.id,
            "command": shell.command,
            "status": shell.status,
            "exitCode": shell.exit_code,
            "stdout": text,
            "stderr": "",
            "stdoutLines": len(text.splitlines()),
            "stderrLines": 0,
            "timestamp": now,
        }
        return ToolResult("\n\n".join(parts), details)


class KillShell(_Stops):
    """Claude Code 2.0's TaskStop (1.0 called it KillBash)."""

    name = "KillShell"
    aliases = ("KillBash",)
    description = "Stop a background Bash shell (Claude Code 2.0's name; prefer TaskStop)."
    Args = KillShellArgs
    Details = KillShellDetails
    offered = False

    async def run(self, args: KillShellArgs, ctx: ToolContext) -> ToolResult:
        shell = self._find(args.shell_id)
        if shell is None:
            return self._unknown(args.shell_id)
        if shell.status != "running":
            return ToolResult.error(f"Shell {shell.id} is not running, so cannot be killed (status: {shell.status})")
        await self.shells.stop(shell)
        details = KillShellDetails(
            message=f"Successfully killed shell: {shell.id} ({shell.command})", shell_id=shell.id
        )
        return ToolResult(json.dumps(details), details)
