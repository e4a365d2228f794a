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
from agentui.core.safety.sandbox import Sandbox, SandboxConfig
from agentui.core.workspace import Workspace
from tests.core.test_sandbox_setup import Box, boxed, git, run_confined

ROOT = Path(__file__).resolve().parents[2]
SECRET = "SECRET-VALUE-42"


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
    "echo evil > /proc/1/cwd/.git/hooks/post-checkout; echo evil >> /proc/1/cwd/../home/.bashrc",
    "echo evil >> /proc/self/cwd/.git/config; echo evil > $PWD/.envrc",
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
    for attack in ("echo evil >> /proc/1/cwd/config", "echo evil >> config", "echo evil > hooks/x"):
        box.run(attack, guard=guard, cwd=box.project / ".git")
    assert (box.project / ".git" / "config").read_text() == config
    for path in (
        box.home / ".zshrc",
        box.project / ".git" / "hooks" / "pre-commit",
        box.project / ".git" / "hooks" / "post-checkout",
        box.project / ".git" / "hooks" / "x",
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
def test_the_command_keeps_the_capabilities_it_would_keep_without_the_helper(
    box: Box, guard: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """None of those the mounts took; a root agentui's commands under the guard keep root's others, as they do
    when bubblewrap makes the mounts (package managers need them); in the sandbox, none."""
    (box.project / "README.md").write_text("read me\n")
    (box.project / "CLAUDE.md").symlink_to("README.md")  # (a protected link: the Python pin helper runs too)
    box.snapshot()

    def status() -> dict[str, str]:
        done = box.run("grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs)' /proc/self/status", guard=guard)
        return dict(line.split(":\t") for line in done.out.splitlines())

    helped = status()
    assert helped["NoNewPrivs"] == "1"
    assert not int(helped["CapBnd"], 16) & (1 << 21) and not int(helped["CapEff"], 16) & (1 << 21)  # CAP_SYS_ADMIN
    if not guard or os.geteuid() != 0:
        assert int(helped["CapEff"], 16) == 0
    else:
        assert int(helped["CapEff"], 16) & (1 << 0)  # CAP_CHOWN
    monkeypatch.setattr(mount_helper, "SYSTEM_PATH", str(tmp_path / "none"))
    mount_helper.helper_path(box.env).unlink()
    mount_helper.forget()
    assert (box.guard if guard else box.sandbox).mount_helper() is None
    alone = status()
    assert (helped["CapEff"], helped["CapPrm"]) == (alone["CapEff"], alone["CapPrm"])


def test_another_agentui_building_the_same_helper_is_not_built_again(box: Box) -> None:
    """Two sessions starting at once each build it, and each sees the other's as a change: the same content is
    taken as it is (else each would build it again at every command)."""
    helper = Path(box.guard.mount_helper() or "")
    twin = helper.with_name("twin")
    twin.write_bytes(helper.read_bytes())
    twin.chmod(0o755)
    os.replace(twin, helper)
    inode = helper.stat().st_ino
    assert box.guard.mount_helper() == str(helper) and helper.stat().st_ino == inode


def test_bad_arguments_and_a_missing_path_stop_the_command_with_one_line(box: Box) -> None:
    helper = box.guard.mount_helper()
    assert helper is not None
    probe = [*box.guard._start(), *box.guard._capabilities(True), "--", helper]
    marker = box.tmp / "ran"
    missing = box.tmp / "missing"
    for args, said in [
        (["--drop", "all", "--chdir", "/", "x/tmp", "--", "touch", str(marker)], "mount-helper: bad arguments"),
        (["--drop", "all", "--chdir", "/", "r/tmp"], "mount-helper: bad arguments"),
        (["--drop", "1,x", "--chdir", "/", "r/tmp", "--", "touch", str(marker)], "mount-helper: bad arguments"),
        (["--drop", "all", "r/tmp", "--", "touch", str(marker)], "mount-helper: bad arguments"),  # (no --chdir)
        (["--drop", "all", "--chdir", "tmp", "r/tmp", "--", "touch", str(marker)], "mount-helper: bad arguments"),
        (["--drop", "all", "--chdir", "/", f"r{missing}", "--", "touch", str(marker)], f"cannot bind {missing}"),
        (["--drop", "all", "--chdir", f"{missing}", "r/tmp", "--", "touch", str(marker)], f"enter {missing}"),
        (["--drop", "all", "--chdir", "/", "--", "/no/such/program"], "cannot run /no/such/program"),
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


@pytest.mark.parametrize("compiler", [True, False], ids=["helper", "bubblewrap"])
def test_under_the_guard_a_deny_rule_over_agentuis_scratch_directory_leaves_the_commands_theirs(
    box: Box, compiler: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`Read(//tmp/**)` hides where the commands' $TMPDIR lives: bubblewrap hides it, binds the commands' corner
    inside, and only then makes the mask read-only (the helper's masks would come after those binds)."""
    if not compiler:
        monkeypatch.setattr(mount_helper, "SYSTEM_PATH", str(tmp_path / "none"))
    scratch = box.workspace.scratch
    (scratch.parent / "other-run").mkdir(exist_ok=True)
    (scratch.parent / "other-run" / "secret").write_text(SECRET)
    spec = f"/{scratch.parent}/**"
    box.guard.read_denials = lambda: [path_pattern(spec, project_root=box.project, home=box.home, settings_root=None)]
    done = box.run(f'echo x > "$TMPDIR/f" && cat "$TMPDIR/f"; cat {scratch.parent}/other-run/secret', guard=True)
    assert done.out == "x\n" and SECRET not in done.text, done
    confined = box.wrap(["true"], guard=True)
    confined.ended()
    assert ("--tmpfs", str(scratch.parent)) in pairs(confined)


def test_a_project_inside_a_hidden_directory_leaves_the_hiding_to_bubblewrap(box: Box) -> None:
    """A project in ~/.config: bubblewrap hides ~/.config before it binds the project inside, so the tool configs
    shown again inside it are shown by bubblewrap too (the helper takes what it shows before it hides)."""
    config = box.home / ".config"
    (config / "git").mkdir(parents=True)
    (config / "git" / "config").write_text("[user]\n\tname = me\n")
    (config / "gh").mkdir()
    (config / "gh" / "hosts.yml").write_text(SECRET)
    project = config / "work"
    project.mkdir()
    sandbox = Sandbox(SandboxConfig(enabled=True), Workspace(root=project), home=box.home, env=box.env)
    assert sandbox.mount_helper() is not None
    git(project, "init", "-q")
    (project / "README.md").write_text("read me\n")
    (project / "CLAUDE.md").symlink_to("README.md")
    box.snapshot()
    attacks = "echo evil > .git/hooks/pre-commit; echo evil >> .git/config; mkdir -p .claude; echo {} > .claude/x"
    attacks += "; umount ~/.ssh; grep CapEff /proc/self/status"
    confined = sandbox.wrap(
        ["bash", "-c", f"cat ~/.config/git/config ~/.config/gh/hosts.yml; {attacks}; echo made > made"],
        cwd=project,
        scratch=box.workspace.scratch,
        env=box.env,
    )
    done = run_confined(confined, project)
    assert ("--tmpfs", str(config)) in pairs(confined) and "name = me" in done.out and SECRET not in done.out
    assert (project / "made").read_text() == "made\n" and "CapEff:\t0000000000000000" in done.out
    assert not (project / ".git/hooks/pre-commit").exists() and "evil" not in (project / ".git/config").read_text()
    assert not (project / ".claude" / "x").exists()


def test_doctor_says_whether_the_helper_makes_the_mounts(
    box: Box, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentui.core.doctor import mount_helper_check

    check = mount_helper_check(box.project, box.env)
    assert check.level == "ok" and "mount-helper-" in check.said, check
    monkeypatch.setattr(mount_helper, "SYSTEM_PATH", str(tmp_path / "none"))
    mount_helper.helper_path(box.env).unlink()
    mount_helper.forget()
    check = mount_helper_check(box.project, box.env)
    assert check.level == "warning" and "no C compiler" in check.said and "apt install gcc" in check.advice, check


def test_a_build_killed_midway_is_removed_at_the_next_build_and_one_under_way_is_not(box: Box) -> None:
    helper = mount_helper.helper_path(box.env)
    helper.parent.mkdir(parents=True, mode=0o700)
    stale, fresh = helper.parent / ".building-stale", helper.parent / ".building-fresh"
    stale.write_text("half")
    fresh.write_text("half")
    os.utime(stale, (0, 0))
    assert box.guard.mount_helper() == str(helper)
    assert not stale.exists() and fresh.exists()
