"""Asking a permission engine about a built-in tool call, as the dispatcher would."""

from __future__ import annotations

from agentui.core.messages import ToolUseBlock
from agentui.core.permissions.engine import PermissionEngine
from agentui.core.permissions.gate import Verdict
from agentui.core.tools import builtin_tools

PREFIX_RULES = (
    "Bash(echo:*)",
    "Bash(cat:*)",
    "Bash(ls:*)",
    "Bash(git status:*)",
    "Bash(npm test:*)",
    "Bash(printf:*)",
    "Bash(read:*)",
    "Bash(test:*)",
)
"""The allow rules of the attack suites' "prefix allow rules" mode: broad, and none of them covers what an attack
really runs."""


def check(engine: PermissionEngine, tool_name: str, **arguments: object) -> Verdict:
    tool = next(t for t in builtin_tools(engine.workspace) if t.name == tool_name)
    args = tool.Args.model_validate(arguments)
    return engine.check(tool, args, ToolUseBlock(id="t", name=tool_name, input=arguments))
