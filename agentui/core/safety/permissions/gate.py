"""The gate protocol the dispatcher consults for every tool call, its verdicts, and the simplest gate.

The dispatcher asks a gate for a verdict on every call (allow, deny, or ask the person) and tells it the person's
answer so it can remember session-wide ones. KindGate lets read-only tools through and asks for everything else;
`engine.PermissionEngine` is the full gate, with Claude Code's rules, modes and path checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from agentui.core.events import PermissionDecision

if TYPE_CHECKING:
    from pydantic import BaseModel

    from agentui.core.messages import ToolUseBlock


@dataclass(frozen=True, slots=True)
class Verdict:
    behavior: Literal["allow", "deny", "ask"]
    reason: str
    path: Path | None = None
    """The resolved path the verdict is about; the tool then acts on exactly this path."""
    hard: bool = False
    """An ask that only the person can answer (a hook's allow cannot lift it): unparseable or protected."""
    suggestions: tuple[str, ...] = ()
    """Allow rules that would cover this call: what "don't ask again" adds."""
    by_rule: bool = False
    """An ask that an ask rule made (the sandbox's auto-allow does not lift it)."""
    protected: bool = False
    """An ask about writing a protected file (agentui's or git's configuration, a shell start-up file, ...): a yes
    lets this one command write it, past the guard Bash commands otherwise run under."""


class CheckedTool(Protocol):
    """What the check reads of a tool (`tools.base.Tool` is one): the permissions know no tool, only these."""

    @property
    def name(self) -> str: ...

    @property
    def kind(self) -> str:
        """ "read", "write" or "execute"."""
        ...

    @property
    def offered(self) -> bool: ...

    def permission_path(self, args: Any) -> str | None: ...


class PermissionGate(Protocol):
    def check(self, tool: CheckedTool, args: BaseModel, call: ToolUseBlock) -> Verdict: ...

    def remember(
        self, tool: CheckedTool, args: BaseModel, call: ToolUseBlock, decision: PermissionDecision
    ) -> None: ...


class KindGate:
    """Read-only tools run; anything that writes or executes asks, unless the person allowed that tool for the
    session. Until rules can be written to settings, an "always" answer lasts for the session too."""

    def __init__(self) -> None:
        self._allowed_tools: set[str] = set()

    def check(self, tool: CheckedTool, args: BaseModel, call: ToolUseBlock) -> Verdict:
        if tool.kind == "read":
            return Verdict("allow", "read-only tool")
        if tool.name in self._allowed_tools:
            return Verdict("allow", f"{tool.name} was allowed for this session")
        verb = "modify files" if tool.kind == "write" else "run commands"
        return Verdict("ask", f"{tool.name} can {verb}")

    def remember(self, tool: CheckedTool, args: BaseModel, call: ToolUseBlock, decision: PermissionDecision) -> None:
        if decision.behavior == "allow" and decision.scope != "once":
            self._allowed_tools.add(tool.name)
