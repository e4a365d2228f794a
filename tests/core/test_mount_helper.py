"""The mount helper (agentui/core/safety/mount_helper.c) that makes the guard's and the sandbox's protections with the
new mount API: built into agentui's data directory and rebuilt when anyone else could have written it; the same
protections hold with it, without it (no compiler: bubblewrap makes them), from a relative path and as another user;
the command keeps none of the capabilities it took; a bad argument or a missing path stops the command with one
line."""

from __future__ import annotations

import itertools
import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentui.core.safety import mount_helper
from agentui.core.safety.confined import Confined
from agentui.core.safety.permissions.rules import path_pattern
from tests.core.test_sandbox_setup import Box, boxed

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def box(tmp_path: Path) -> Iterator[Box]:
    mount_helper.forget()
    yield from boxed(tmp_path)
    mount_helper.forget()


@pytest.fixture
def no_compiler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "no-compiler"
    empty.mkdir()
    monkeypatch.setattr(mount_helper, "SYSTEM_PATH", str(empty))


ATTACKS = [
    "echo evil >> ~/.bashrc",
    "echo evil > ~/.zshrc",
    "echo 'touch pwned' > .git/hooks/pre-commit",
    "cd .git && echo '[core] fsmonitor = x' >> config",
    "mv .git .g",
    "mkdir -p .claude && echo {} > .claude/settings.json",
    "umount ~/.bashrc; umount -l .git/hooks; echo evil >> ~/.bashrc",
    "echo evil > sub/../.envrc",
]


def attack_all(box: Box, *, guard: bool) -> None:
    (box.home / ".bashrc").write_text("# mine\n")
    (box.project / "sub").mkdir(exist_ok=True)
    box.snapshot()
    config = (box.project / ".git" / "config").read_text()
    for attack in ATTACKS:
        box.run(attack, guard=guard)
    assert (box.home / ".bashrc").read_text() == "# mine\n"
    assert (box.project / ".git" / "config").read_text() == config
    for path in (
        box.home / ".zshrc",
        box.project / ".git" / "hooks" / "pre-commit",
        box.project / ".g",
        box.project / ".claude",
        box.project / ".envrc",
    ):
        assert not path.exists(), path
    done = box.run("echo made > sub/made && cat sub/made", guard=guard)  # (the rest stays writable)
    assert done.out == "made\n", done


@pytest.mark.parametrize("guard", [True, False], ids=["guard", "sandbox"])
def test_with_the_helper_every_protection_holds(box: Box, guard: bool) -> None:
    confine = box.guard if guard else box.sandbox
    helper = confine.mount_helper()
    assert helper is not None and Path(helper).parent == Path(box.env["AGENTUI_DATA_DIR"]) / "bin"
    confined = box.wrap(["true"], guard=guard)
    confined.ended()
    bound = [path for option, path in pairs(confined) if option in ("--ro-bind", "--bind")]
    assert helper in confined.argv and not any("/.git" in path for path in bound)
    attack_all(box, guard=guard)


@pytest.mark.parametrize("guard", [True, False], ids=["guard", "sandbox"])
def test_without_a_compiler_bubblewrap_makes_the_mounts_and_they_hold(box: Box, guard: bool, no_compiler: None) -> None:
    confine = box.guard if guard else box.sandbox
    assert confine.mount_helper() is None
    confined = box.wrap(["true"], guard=guard)
    confined.ended()
    assert ("--ro-bind", str(box.project / ".git" / "config")) in pairs(confined)
    attack_all(box, guard=guard)


def pairs(confined: Confined) -> list[tuple[str, str]]:
    return list(itertools.pairwise(confined.argv))


def test_a_helper_anyone_else_could_write_is_built_again(box: Box) -> None:
    helper = Path(box.guard.mount_helper() or "")
    helper.write_text('#!/bin/sh\nshift 2; while [ "$1" != -- ]; do shift; done; shift; exec "$@"\n')  # (mounts none)
    helper.chmod(0o777)
    mount_helper.forget()
    assert box.guard.mount_helper() == str(helper)
    assert stat.S_IMODE(helper.stat().st_mode) == 0o755 and helper.read_bytes()[:4] == b"\x7fELF"
    attack_all(box, guard=True)


def test_a_protected_path_inside_a_denied_directory_is_left_to_its_mask(box: Box) -> None:
    """The helper binds what the namespace shows: inside a masked directory there is nothing to bind (bubblewrap
    would have made it), and the read-only mask holds it."""
    pattern = path_pattern("./.git/**", project_root=box.project, home=box.home, settings_root=box.project)
    box.guard.read_denials = lambda: [pattern]
    box.sandbox.read_denials = lambda: [pattern]
    for guard in (True, False):
        done = box.run("ls -A .git; touch .git/hooks/x .git/new; echo ran", guard=guard)
        assert done.out == "ran\n" and "Read-only file system" in done.err, done
    assert not (box.project / ".git" / "new").exists()


@pytest.mark.parametrize("guard", [True, False], ids=["guard", "sandbox"])
def test_the_command_keeps_none_of_the_capabilities_the_mounts_took(box: Box, guard: bool) -> None:
    done = box.run("grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status", guard=guard)
    status = dict(line.split(":\t") for line in done.out.splitlines())
    assert status["NoNewPrivs"] == "1"
    bounding = int(status["CapBnd"], 16)
    assert not bounding & (1 << 21) and not bounding & (1 << 8)  # CAP_SYS_ADMIN, CAP_SETPCAP
    if not guard or os.geteuid() != 0:
        assert int(status["CapEff"], 16) == 0


def test_bad_arguments_and_a_missing_path_stop_the_command_with_one_line(box: Box) -> None:
    helper = box.guard.mount_helper()
    assert helper is not None
    probe = [*box.guard._start(), *box.guard._capabilities(True), "--", helper]
    marker = box.tmp / "ran"
    for args, said in [
        (["--drop", "all", "x/tmp", "--", "touch", str(marker)], "agentui: mount-helper: bad arguments"),
        (["--drop", "all", "r/tmp"], "agentui: mount-helper: bad arguments"),
        (["--drop", "1,x", "r/tmp", "--", "touch", str(marker)], "agentui: mount-helper: bad arguments"),
        (["--drop", "all", f"r{box.tmp}/missing", "--", "touch", str(marker)], f"cannot bind {box.tmp}/missing"),
        (["--drop", "all", "--", "/no/such/program"], "cannot run /no/such/program"),
    ]:
        done = subprocess.run([*probe, *args], capture_output=True, text=True, timeout=60)
        assert done.returncode == 126 and said in done.stderr and len(done.stderr.splitlines()) == 1, (args, done)
        assert "the command was not run" in done.stderr and not marker.exists()


def test_as_another_user_the_sandbox_and_the_guard_hold_with_the_helper(tmp_path: Path) -> None:
    """A person's agentui is not root: bubblewrap makes a user namespace, the helper mounts in it and maps the person
    back (`--user`). When these tests run as root, the run is uid 65534 of a user namespace of its own: no
    capabilities, and agentui takes the path it takes for any other user."""
    place = tmp_path / "user"
    place.mkdir()
    prefix: list[str] = []
    if os.geteuid() == 0:
        prefix = ["unshare", "--user", "--map-user=65534", "--map-group=65534"]
    script = ROOT / "tests" / "support" / "helper_as_user.py"
    done = subprocess.run(
        [*prefix, sys.executable, str(script), str(place)],
        cwd=ROOT,
        env={"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["helper"] is not None and "leftovers" not in found, found
    for name in ("guard", "sandbox"):
        report = found[name]
        assert report["id"] == str(65534 if prefix else os.geteuid()), report
        assert report["blocked"] == len(report["attacks"]) and report["made"] == "made\n", report


def test_a_helper_changed_during_the_session_is_built_again_before_its_next_use(box: Box) -> None:
    """As the person's own user with a protection lifted, a command could replace it with one that mounts nothing:
    each use checks that it is still the file that was checked."""
    helper = Path(box.guard.mount_helper() or "")
    original = helper.read_bytes()
    helper.write_text('#!/bin/sh\nshift 2; while [ "$1" != -- ]; do shift; done; shift; exec "$@"\n')
    helper.chmod(0o755)
    assert box.guard.mount_helper() == str(helper) and helper.read_bytes()[:4] == original[:4] == b"\x7fELF"
    attack_all(box, guard=True)
