"""Whether git's object store in the project holds a file a deny rule covers. The sandbox and the guard mask the
work tree's file, never its copies in `.git/objects`; while one is there, a program agentui cannot read exactly
(`python3`, `git archive`, `bash -c ...`) could print it, so none runs without a question, bypassPermissions and the
sandbox's auto-allow included."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agentui.core.safety.permissions.git_repository import CannotCheck

if TYPE_CHECKING:
    from agentui.core.safety.permissions.git_repository import GitRepositories, Repository
    from agentui.core.safety.permissions.rule_book import RuleBook


@dataclass(frozen=True)
class Secret:
    why: str
    """One phrase naming the file and the repository."""
    objects: Path | None
    """The object store holding it (real path), where known."""


def history_secrets(engine: RuleBook, repositories: GitRepositories) -> list[Secret]:
    """Each of the project's repositories whose objects hold a file a deny rule covers (or that could not be
    looked into). Only repositories a deny rule reaches into are looked at."""
    found: list[Secret] = []
    seen: set[Path] = set()
    for directory in engine.workspace.directories:
        try:
            repository = repositories.find(directory)
        except CannotCheck as exc:
            found.append(Secret(f"agentui could not look into the repository at {directory} ({exc})", None))
            continue
        if repository is None or repository.git_dir in seen:
            continue
        seen.add(repository.git_dir)
        if why := _repository_secret(engine, repositories, repository):
            found.append(Secret(why, Path(os.path.realpath(repository.common_dir / "objects"))))
    return found


def _repository_secret(engine: RuleBook, repositories: GitRepositories, repository: Repository) -> str | None:
    top = repository.top
    if top is None or not engine.deny_could_cover(top):
        return None
    try:
        names = repositories.names(repository)
        if names is None:
            return f"git could not list the files its history at {top} holds, to check them against the deny rules"
        for name in sorted(names):
            if engine.read_denied(top / name):
                return f"git's history at {top} holds {name}, which a deny rule covers"
        inside = [path for path in engine.denied_regular_files() if _within(path, top)]
        if (path := repositories.holds_contents(repository, inside)) is not None:
            return f"git's objects at {top} hold the contents of {path}, which a deny rule covers"
    except CannotCheck as exc:
        return f"agentui could not look into the repository at {top} ({exc})"
    return None


def _within(path: Path, top: Path) -> bool:
    real = os.path.realpath(path)
    return real == str(top) or real.startswith(str(top).rstrip(os.sep) + os.sep)
