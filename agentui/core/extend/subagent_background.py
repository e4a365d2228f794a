"""An Agent call with `run_in_background`: the sub-agent is started as a task of the workspace (waiting for a slot
when as many run as may) and the call answers at once, in Claude Code's words; when the sub-agent ends, the model is
told with a `<task-notification>` (task_notifications.py) that carries its answer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from typing_extensions import TypedDict

from agentui.core.background_agents import AgentTask, BackgroundAgents, Slots
from agentui.core.tools.base import ToolContext, ToolResult

LAUNCHED = (
    "Async agent launched successfully.\n"
    "agentId: {id} (internal ID - do not mention to user. Use TaskOutput with task_id: '{id}' only if the user asks "
    "for its progress; TaskStop ends it.)\n"
    "The agent is working in the background. You will be notified automatically when it completes.\n"
    "Do not duplicate this agent's work — avoid working with the same files or topics it is using.\n"
    "output_file: {output}\n"
    "Do NOT Read or tail this file via the shell tool — it is the full subagent JSONL transcript and reading it will "
    "overflow your context. If the user asks for progress, say the agent is still running; you'll get a completion "
    "notification."
)
"""Claude Code 2.1.197's answer to the call, but for SendMessage (agentui has none: TaskOutput and TaskStop)."""


class LaunchDetails(TypedDict):
    """Claude Code's `toolUseResult` for a launch, then agentui's own key (the dispatcher's sign of a call that
    sends work away: an end is not told with its own start)."""

    isAsync: bool
    status: str
    agentId: str
    description: str
    resolvedModel: str
    prompt: str
    outputFile: str
    canReadOutputFile: bool
    backgroundTaskId: str


def launch(
    agents: BackgroundAgents,
    slots: Callable[[], Slots],
    run: Callable[[ToolContext], Awaitable[ToolResult]],
    task: AgentTask,
    asked: tuple[str, str],
    ctx: ToolContext,
) -> ToolResult:
    """Start `task`: `run(ctx)` runs the sub-agent (Task.run_child) once `slots()` gives it a slot; `asked` is its
    prompt and the model it runs on."""
    prompt, model = asked
    quiet = replace(ctx, progress=lambda text: None)  # (the call has ended: nothing is shown as its output)

    async def work(task: AgentTask) -> None:
        agents.changed(task)  # (pending, until a slot frees)
        async with slots().slot():
            task.status = "running"
            agents.changed(task)
            result = await run(quiet)
        details: dict[str, Any] = dict(result.details)
        text = result.content if isinstance(result.content, str) else ""
        task.total_tokens = int(details.get("totalTokens") or 0)
        task.tool_uses = int(details.get("totalToolUseCount") or 0)
        task.duration_ms = int(details.get("totalDurationMs") or 0)
        if result.is_error:
            task.status, task.error = "failed", text
        else:
            task.status, task.result = "completed", text

    agents.start(task, work)
    output = task.output_path
    said = LAUNCHED.format(id=task.id, output=output or "(none: this session keeps no transcripts)")
    details = LaunchDetails(
        isAsync=True,
        status="async_launched",
        agentId=task.id,
        description=task.description,
        resolvedModel=model,
        prompt=prompt,
        outputFile=output,
        canReadOutputFile=bool(output),
        backgroundTaskId=task.id,
    )
    return ToolResult(said, details)
