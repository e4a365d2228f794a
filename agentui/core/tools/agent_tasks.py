"""TaskOutput and TaskStop on a background sub-agent (task type `local_agent`), as Claude Code 2.1.197 answers them:
its status and, once it has ended, its answer; stopping cancels it (it ends its run cleanly first)."""

from __future__ import annotations

import json

from agentui.core.background_agents import AgentTask, BackgroundAgents
from agentui.core.tools.base import ToolResult


async def agent_output(agents: BackgroundAgents, task: AgentTask, block: bool, timeout_ms: float) -> ToolResult:
    retrieval = "success"
    if not task.done.is_set():
        if block and timeout_ms > 0:
            if not await agents.wait(task, timeout_ms / 1000):
                retrieval = "timeout"
        else:
            retrieval = "not_ready"
    parts = [
        f"<retrieval_status>{retrieval}</retrieval_status>",
        f"<task_id>{task.id}</task_id>",
        "<task_type>local_agent</task_type>",
        f"<status>{task.status}</status>",
    ]
    if task.result.strip():
        parts.append(f"<output>\n{task.result.rstrip()}\n</output>")
    if task.error:
        parts.append(f"<error>{task.error}</error>")
    details = {
        "retrieval_status": retrieval,
        "task": {
            "task_id": task.id,
            "task_type": "local_agent",
            "status": task.status,
            "description": task.description,
            "output": task.result,
        },
    }
    return ToolResult("\n".join(parts), details)


async def stop_agent(agents: BackgroundAgents, task: AgentTask) -> ToolResult:
    if task.done.is_set():
        return ToolResult.error(f"Task {task.id} is not running (status: {task.status}), so it cannot be stopped")
    await agents.stop(task)
    message = f"Successfully stopped task: {task.id} ({task.description})"
    details = {"message": message, "task_id": task.id, "task_type": "local_agent", "command": task.description}
    return ToolResult(json.dumps(details, separators=(",", ":")), details)
