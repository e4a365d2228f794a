"""Permissions: who may do what. `gate` is the protocol the dispatcher consults, `engine` the rules-based gate,
`shell` and `readonly` understand Bash commands, `rules` parses Claude Code's rule syntax, `protected` names the
files that always need an answer."""

from agentui.core.events import PermissionDecision
from agentui.core.safety.permissions.gate import KindGate, PermissionGate, Verdict

__all__ = ["KindGate", "PermissionDecision", "PermissionGate", "Verdict"]
