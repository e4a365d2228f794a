"""RuleBook: what the Bash check and the history check read of the permission engine (its rules, the deny rules'
files, the boundaries), so that they depend on this and the engine on them, not each on the other."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from agentui.core.safety.permissions.rules import READ_FAMILY, Behavior, Rule
from agentui.core.safety.permissions.shell import SimpleCommand
from agentui.core.workspace import Workspace

if TYPE_CHECKING:
    from agentui.core.safety.denied_files import DeniedFiles
    from agentui.core.safety.permissions.git_repository import GitRepositories


class RuleBook(Protocol):
    workspace: Workspace
    home: Path
    bash_environ: Mapping[str, str]
    denied_files: Callable[[], DeniedFiles] | None

    @property
    def rules(self) -> list[Rule]: ...

    @property
    def config_dirs(self) -> tuple[Path, ...]: ...

    def repositories(self) -> GitRepositories: ...

    def guarded(self) -> bool: ...

    def read_denied(self, path: Path) -> bool: ...

    def hard_link_rule(self, real: Path) -> Rule | None: ...

    def credential(self, path: Path) -> Path | None: ...

    def denied_inodes(self) -> set[tuple[int, int]]: ...

    def denied_regular_files(self) -> tuple[Path, ...]: ...

    def deny_could_cover(self, directory: Path, family: frozenset[str] = READ_FAMILY) -> bool: ...

    def rule_below(self, behavior: Behavior, directory: Path, family: frozenset[str] = READ_FAMILY) -> Rule | None: ...

    def find_rule(
        self,
        behavior: Behavior,
        tool: str,
        *,
        command: str | None = None,
        path: Path | None = None,
        specific: bool = False,
        bare: bool = False,
    ) -> Rule | None: ...

    def command_rule(
        self, behavior: Behavior, sub: SimpleCommand, *, with_assignments: bool = False
    ) -> Rule | None: ...

    def text_rule(self, behavior: Behavior, text: str, program: str, values: str | None = None) -> Rule | None: ...
