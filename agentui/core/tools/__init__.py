"""Tools the model can call. `base` defines what a tool is; each built-in tool has a module of its own."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolKind, ToolRegistry, ToolResult
from agentui.core.workspace import Workspace

if TYPE_CHECKING:
    from pathlib import Path

    from agentui.core.safety.sandbox import Sandbox
    from agentui.core.tools.plan import ModeHolder

__all__ = ["Tool", "ToolArgs", "ToolContext", "ToolKind", "ToolRegistry", "ToolResult", "builtin_tools"]


def builtin_tools(
    workspace: Workspace,
    *,
    env: Mapping[str, str] | None = None,
    sandbox: Sandbox | None = None,
    modes: ModeHolder | None = None,
    plans_dir: Path | None = None,
) -> ToolRegistry:
    """Claude Code's built-in tools, by its 2.1 names and argument shapes, working in `workspace`; 2.0's names
    (TodoWrite, BashOutput, KillShell) run when called but are not offered.

    `env` is added to Bash's environment (the settings files' `env`). ExitPlanMode comes with `modes` (what holds
    the permission mode: the permission engine) and saves approved plans in `plans_dir`; with the workspace's change
    queue, an approval applies the queued changes the person picks.
    """
    from agentui.core.tools.background import BashOutput, KillShell, TaskOutput, TaskStop
    from agentui.core.tools.bash import Bash
    from agentui.core.tools.edit import Edit
    from agentui.core.tools.glob import Glob
    from agentui.core.tools.grep import Grep
    from agentui.core.tools.notebook import NotebookEdit
    from agentui.core.tools.plan import ExitPlanMode
    from agentui.core.tools.question import AskUserQuestion
    from agentui.core.tools.read import Read
    from agentui.core.tools.tasks import TaskCreate, TaskGet, TaskList, TaskUpdate
    from agentui.core.tools.todo import TodoWrite
    from agentui.core.tools.write import Write

    tools = ToolRegistry(
        [
            Bash(workspace, env, sandbox),
            Read(workspace),
            Write(workspace),
            Edit(workspace),
            NotebookEdit(workspace),
            Grep(workspace),
            Glob(workspace),
            TaskCreate(workspace),
            TaskGet(workspace),
            TaskUpdate(workspace),
            TaskList(workspace),
            TaskOutput(workspace),
            TaskStop(workspace),
            TodoWrite(workspace),
            BashOutput(workspace),
            KillShell(workspace),
            AskUserQuestion(),
        ]
    )
    if modes is not None:
        tools.register(ExitPlanMode(modes, plans_dir, workspace.changes, workspace.display))
    return tools
