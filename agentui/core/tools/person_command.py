"""`!command`: the person's own command, typed at the prompt and run at once in the project through the Bash tool,
with no permission question and no protection between them and their files (it is their command, not the model's)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentui.core.tools.base import ToolContext, ToolRegistry

SHELL_TOOL = "Bash"
"""The tool that runs a person's `!command`, and whose block shows it."""


@dataclass(frozen=True)
class ShellOutcome:
    """What a person's own `!command` printed, whether it failed, and its details (exit code, ...)."""

    output: str
    is_error: bool
    details: Mapping[str, Any]


async def run_person_command(
    tools: ToolRegistry, root: Path, session_id: str, command: str, progress: Callable[[str], None]
) -> ShellOutcome | None:
    """What the command printed; None when there is no Bash tool to run it with (nothing ran)."""
    bash = tools.get(SHELL_TOOL)
    if bash is None:
        return None
    ctx = ToolContext(cwd=root, session_id=session_id, tool_call_id="shell", progress=progress, protection_lifted=True)
    result = await bash.run(bash.Args.model_validate({"command": command}), ctx)
    output = result.content if isinstance(result.content, str) else ""
    return ShellOutcome(output, result.is_error, result.details)
