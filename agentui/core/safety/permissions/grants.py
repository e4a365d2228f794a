"""Rules allowed for one run and then taken back: a custom command's `allowed-tools` hold while the run it started
goes on, as Claude Code's do."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentui.core.safety.permissions.rules import RuleError

if TYPE_CHECKING:
    from agentui.core.safety.permissions.engine import PermissionEngine
    from agentui.core.safety.permissions.rules import Rule


class RunGrants:
    def __init__(self, engine: PermissionEngine) -> None:
        self._engine = engine
        self._granted: list[Rule] = []

    def grant(self, rules: list[str], source: str) -> list[str]:
        """Allow `rules` until `end()`; a sentence for each rule that could not be parsed (it is left out)."""
        problems = []
        for text in rules:
            try:
                self._granted.append(self._engine.add_rule(text, "allow", source))
            except RuleError as exc:
                problems.append(f"{exc}; that rule is ignored.")
        return problems

    def end(self) -> None:
        """Take back every rule granted since the last end."""
        for rule in self._granted:
            self._engine.remove_rule(rule)
        self._granted.clear()
