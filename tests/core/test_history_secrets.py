"""A denied file in git's objects (committed once, or only added): masks hide the work tree's copy, not the objects,
so while one is there no program agentui cannot read exactly runs unasked — bypassPermissions under the guard, a
bare `Bash` allow rule and prefix rules included — and nothing reads the object store unasked."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agentui.core.safety.permissions.engine import PermissionEngine
from agentui.core.safety.permissions.rules import parse_rule
from agentui.core.workspace import Workspace
from tests.core.test_allowlist import project, verdict
from tests.support.permissions import check

__all__ = ["project"]

GIT = ("git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgSign=false")
OPAQUE = [
    "python3 -c 'print(1)'",
    "git archive HEAD",
    "git cat-file --batch-all-objects --batch",
    "bash -c 'git show HEAD:.env'",
    "make",
    "echo $(id)",
]
OBJECT_READS = ["xxd .git/objects/pack/*", "cat .git/objects/*/*", "grep -ra KEY .git", "od -c .git/objects/info/*"]
CALM = ["ls", "git status", "git log --oneline", "cat README.md", "grep -r print src"]


def git(root: Path, *args: str) -> None:
    subprocess.run([*GIT, "-C", str(root), *args], check=True, capture_output=True)


def engine(root: Path, mode: str, *rules: tuple[str, str]) -> PermissionEngine:
    home = root.parent / "home"
    parsed = [parse_rule("Read(./.env)", "deny", "test", project_root=root, home=home)]
    parsed += [parse_rule(text, behavior, "test", project_root=root, home=home) for text, behavior in rules]
    found = PermissionEngine(Workspace(root=root), parsed, mode, home=home)  # type: ignore[arg-type]
    found.bash_environ = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
    found.guard_available = lambda: True  # (as where bwrap runs: bypassPermissions then runs anything guarded)
    return found


def modes(root: Path) -> dict[str, PermissionEngine]:
    return {
        "bypass": engine(root, "bypassPermissions"),
        "bare Bash rule": engine(root, "default", ("Bash", "allow")),
        "prefix rules": engine(root, "default", ("Bash(make:*)", "allow"), ("Bash(python3:*)", "allow")),
    }


def committed_then_removed(root: Path) -> None:
    git(root, "add", "README.md", "src")
    git(root, "commit", "-qm", "start")
    git(root, "add", "-f", ".env")
    git(root, "commit", "-qm", "oops")
    git(root, "rm", "-q", "--cached", ".env")
    git(root, "commit", "-qm", "remove it")


@pytest.mark.parametrize("command", OPAQUE + OBJECT_READS)
def test_nothing_that_could_read_git_objects_runs_unasked_while_they_hold_a_denied_file(
    project: Path, command: str
) -> None:
    committed_then_removed(project)
    for name, found in modes(project).items():
        answer = check(found, "Bash", command=command)
        assert answer.behavior == "ask" and answer.hard, (name, command, answer.reason)
        if name != "prefix rules" or "$(" not in command:  # (a substitution asks there anyway, for itself)
            assert ".env" in answer.reason, answer.reason  # (the person is told which file, and why)


def test_without_a_denied_file_in_the_objects_bypass_and_rules_run_as_before(project: Path) -> None:
    git(project, "add", "README.md", "src")
    git(project, "commit", "-qm", "start")
    for name, found in modes(project).items():
        for command in ("python3 -c 'print(1)'", "make", *OBJECT_READS[:2]):
            assert verdict(found, command) == "allow", (name, command)
    assert verdict(modes(project)["bypass"], "git archive HEAD") == "allow"


def test_everyday_commands_still_run_unasked_beside_a_denied_file_in_the_history(project: Path) -> None:
    committed_then_removed(project)
    for found in [*modes(project).values(), engine(project, "default")]:
        for command in CALM:
            assert verdict(found, command) == "allow", command


def test_a_denied_file_only_added_once_is_found_by_its_contents(project: Path) -> None:
    # `git add -f .env && git reset` leaves its blob in the objects, reachable from nothing: no listing names it.
    git(project, "add", "README.md")
    git(project, "commit", "-qm", "start")
    bypass = engine(project, "bypassPermissions")
    assert verdict(bypass, "python3 -c 'print(1)'") == "allow"
    git(project, "add", "-f", ".env")
    git(project, "reset", "-q", "--", ".env")
    answer = check(engine(project, "bypassPermissions"), "Bash", command="python3 -c 'print(1)'")
    assert answer.behavior == "ask" and "contents of" in answer.reason, answer.reason
    git(project, "gc", "-q", "--prune=now")  # (gone from the objects: nothing left to find)
    assert verdict(engine(project, "bypassPermissions"), "python3 -c 'print(1)'") == "allow"


def test_a_denied_file_packed_by_gc_is_still_found(project: Path) -> None:
    committed_then_removed(project)
    git(project, "gc", "-q")
    git(project, "reflog", "expire", "--expire=now", "--all")  # (the history still holds it: the commit stays)
    answer = check(engine(project, "bypassPermissions"), "Bash", command="make")
    assert answer.behavior == "ask" and "history" in answer.reason, answer.reason


def test_the_answer_follows_the_repository_as_it_changes(project: Path) -> None:
    git(project, "add", "README.md")
    git(project, "commit", "-qm", "start")
    bypass = engine(project, "bypassPermissions")
    assert verdict(bypass, "make") == "allow"
    git(project, "add", "-f", ".env")
    git(project, "commit", "-qm", "oops")
    assert verdict(bypass, "make") == "ask"  # (the same engine: what it kept was for an older state)
