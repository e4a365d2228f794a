"""The sandbox and the guard driven directly (`Sandbox.wrap`, `Guard.wrap`) with real bubblewrap and real processes;
the `box` fixture the other tests/core/test_sandbox_*.py files share, and the basics every command relies on."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from agentui.core.safety.confined import Confined
from agentui.core.safety.guard import Guard
from agentui.core.safety.guarded_paths import home_targets, project_targets
from agentui.core.safety.sandbox import Sandbox, SandboxConfig
from agentui.core.safety.standins import standins_in
from agentui.core.workspace import Workspace


@dataclass
class Done:
    code: int
    out: str
    err: str

    @property
    def text(self) -> str:
        return self.out + self.err


@dataclass
class Box:
    """A project (a git repository) and a home of its own, with the sandbox and the guard working on them."""

    tmp: Path
    project: Path
    home: Path
    env: dict[str, str]
    workspace: Workspace
    sandbox: Sandbox
    guard: Guard
    watched: list[Path] = field(default_factory=list)
    existing: set[Path] = field(default_factory=set)

    def run(self, command: str, *, guard: bool = False, cwd: Path | None = None) -> Done:
        """`command` under bash in the sandbox (or the guard), to its end; everything set up for it undone after."""
        return run_confined(self.wrap(["bash", "-c", command], guard=guard, cwd=cwd), cwd or self.project)

    def wrap(self, argv: Sequence[str], *, guard: bool = False, cwd: Path | None = None) -> Confined:
        confine = self.guard if guard else self.sandbox
        return confine.wrap(argv, cwd=cwd or self.project, scratch=self.workspace.scratch, env=self.env)

    def snapshot(self) -> None:
        """Remember which protected paths exist now (before the commands), to find stand-ins left behind."""
        targets = [t.path for t in project_targets(self.project)] + [t.path for t in home_targets(self.home, self.env)]
        parents = [p for t in targets for p in t.parents if self.home in p.parents or self.project in p.parents]
        self.watched = list(dict.fromkeys([*targets, *parents]))
        self.existing = {path for path in self.watched if os.path.lexists(path)}

    def leftovers(self) -> list[Path]:
        """Protected paths (and their parents) that exist now but did not before, and stand-ins this process holds."""
        registered = standins_in(self.env).held()
        made = [p for p in self.watched if os.path.lexists(p) and p not in self.existing]
        return made + registered


def run_confined(confined: Confined, cwd: Path) -> Done:
    """A wrapped command run to its end from `cwd`, and what was set up for it undone."""
    try:
        done = subprocess.run(
            confined.argv,
            env=confined.env,
            pass_fds=confined.pass_fds,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
            cwd=cwd,
        )
    finally:
        confined.ended()
    return Done(done.returncode, done.stdout, done.stderr)


def make_box(tmp_path: Path, **config: object) -> Box:
    project = tmp_path / "project"
    project.mkdir(parents=True)
    git(project, "init", "-q")
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "AGENTUI_CONFIG_DIR": str(home / ".config" / "agentui"),
        "AGENTUI_DATA_DIR": str(home / ".local" / "share" / "agentui"),
        "AGENTUI_STATE_DIR": str(home / ".local" / "state" / "agentui"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "LANG": "C.UTF-8",
    }
    Path(env["AGENTUI_STATE_DIR"]).mkdir(parents=True)  # (agentui's own: where the stand-ins' registry lives)
    Path(env["AGENTUI_DATA_DIR"]).mkdir(parents=True)  # (and where its mount helper is built)
    workspace = Workspace(root=project)
    sandbox = Sandbox(SandboxConfig(enabled=True, **config), workspace, home=home, env=env)  # type: ignore[arg-type]
    guard = Guard(workspace, home=home, env=env)
    box = Box(tmp_path, workspace.root, home, env, workspace, sandbox, guard)
    box.snapshot()
    return box


def git(directory: Path, *args: str) -> str:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(directory), "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["git", *args], cwd=directory, env=env, capture_output=True, text=True, check=True)
    return done.stdout


def boxed(tmp_path: Path) -> Iterator[Box]:
    """The `box` fixture of each tests/core/test_sandbox_*.py: a Box, and no stand-in left behind after the test."""
    assert shutil.which("bwrap"), "bubblewrap is needed for these tests (.ci/run installs it)"
    made = make_box(tmp_path)
    yield made
    assert made.leftovers() == [], "stand-ins were left behind"


@pytest.fixture
def box(tmp_path: Path) -> Iterator[Box]:
    yield from boxed(tmp_path)


def test_a_sandboxed_command_keeps_its_exit_code_output_and_working_directory(box: Box) -> None:
    (box.project / "sub").mkdir()
    done = box.run("cd sub && pwd && echo err >&2 && exit 7")
    assert (done.code, done.out, done.err) == (7, f"{box.project}/sub\n", "err\n")
    made = box.run("echo made > made.txt && cat made.txt")
    assert made.code == 0 and (box.project / "made.txt").read_text() == "made\n"


def test_under_the_guard_the_same_holds_and_the_rest_of_the_disk_is_writable(box: Box) -> None:
    outside = box.tmp / "outside"
    outside.mkdir()
    done = box.run(f"echo x > {outside}/file && pwd && exit 5", guard=True)
    assert (done.code, done.out) == (5, f"{box.project}\n") and (outside / "file").read_text() == "x\n"


def test_the_sandbox_and_the_guard_say_whether_they_can_run_here(box: Box) -> None:
    assert box.sandbox.problem() is None and box.sandbox.active
    assert box.guard.available and box.sandbox.guard_available
