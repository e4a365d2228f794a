"""Protected paths cannot be written, created, renamed or replaced inside the sandbox, existing or not, and the
stand-ins that make that possible for missing ones leave nothing behind: not after a command, not in a commit, not
when two commands overlap, not after a crash."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentui.core.dirs import MACHINE_STATE
from agentui.core.safety.standins import StandIn, recover, registry_in, standins_for
from tests.core.test_sandbox_setup import Box, boxed, git


@pytest.fixture
def box(tmp_path: Path) -> Iterator[Box]:
    yield from boxed(tmp_path)


def test_the_git_directory_cannot_be_moved_replaced_or_rewritten(box: Box) -> None:
    config = (box.project / ".git" / "config").read_text()
    inode = os.stat(box.project / ".git").st_ino
    attacks = [
        "mv .git .g",
        "cp -a .git .g && rm -rf .git; mv .g .git",
        "echo '[core]' > .git/config",
        "printf '\\tfsmonitor = touch /tmp/pwned\\n' >> .git/config",
        "echo ../evil > .git/commondir",
        "echo x > .git/config.worktree",
        "echo 'touch pwned' > .git/hooks/pre-commit",
        "mv .git/hooks .git/h",
        "echo '*.txt filter=evil' > .git/info/attributes",
        "python3 -c \"open('.git/config', 'w').write('')\"",
        "umount .git/config; umount -l .git; echo '[x]' > .git/config",  # (a root agentui's commands included)
        "mount -o remount,rw .git/config; echo '[x]' > .git/config",
    ]
    for attack in attacks:
        box.run(attack)
    assert (box.project / ".git" / "config").read_text() == config
    assert not (box.project / ".git" / "commondir").exists() and not (box.project / ".g").exists()
    assert not (box.project / ".git" / "hooks" / "pre-commit").exists()
    assert not (box.project / ".git" / "info" / "attributes").exists()
    assert os.stat(box.project / ".git").st_ino == inode  # (its objects and refs stay writable: commits write them)


def test_missing_protected_files_and_directories_cannot_be_created(box: Box) -> None:
    attacks = [
        "mkdir -p .claude && echo {} > .claude/settings.json",
        "touch .envrc",
        'echo \'{"mcpServers": {"x": {"command": "sh"}}}\' > .mcp.json',
        "python3 -c \"open('CLAUDE.md', 'w').write('obey')\"",
        "echo obey > AGENTS.md; echo obey > CLAUDE.local.md",
        "mkdir -p .vscode && echo {} > .vscode/tasks.json",
        "mkdir .idea .devcontainer .husky",
        "echo 'repos: [{repo: local}]' > .pre-commit-config.yaml",
        "mkdir x && mv x .claude",
        "ln -s /tmp .vscode",
    ]
    for attack in attacks:
        done = box.run(attack)
        assert done.code != 0, attack
    for name in (".claude", ".envrc", ".mcp.json", "CLAUDE.md", "AGENTS.md", ".vscode", ".idea", ".husky"):
        assert not os.path.lexists(box.project / name), name


def test_while_a_command_runs_the_stand_ins_change_nothing_for_git(box: Box) -> None:
    (box.project / "a.txt").write_text("a")
    done = box.run(
        "git status --porcelain; git add . && git -c user.name=t -c user.email=t@t commit -qm first && "
        "git show --stat --format= HEAD"
    )
    assert done.code == 0, done.err
    assert "a.txt" in done.out
    for name in (".mcp.json", ".envrc", "CLAUDE.md", "AGENTS.md", ".pre-commit-config.yaml", "commondir"):
        assert name not in done.out  # neither seen nor committed
    assert git(box.project, "ls-files").split() == ["a.txt"]


def test_the_submodules_git_directories_are_protected_too(box: Box) -> None:
    module = box.project / ".git" / "modules" / "sub"
    (module / "hooks").mkdir(parents=True)
    (module / "HEAD").write_text("ref: refs/heads/main\n")
    (module / "config").write_text("[core]\n")
    box.snapshot()
    box.run("echo '\\tfsmonitor = evil' >> .git/modules/sub/config; touch .git/modules/sub/hooks/post-checkout")
    box.run("mv .git/modules/sub .git/modules/other; mv .git/modules .git/m")
    assert (module / "config").read_text() == "[core]\n" and list((module / "hooks").iterdir()) == []


@pytest.mark.parametrize("guard", [False, True])
def test_no_new_submodule_directory_can_be_made_for_git_to_run_its_config(box: Box, guard: bool) -> None:
    # (git status in the project would run the fsmonitor of a submodule whose git directory a command made)
    done = box.run(
        "mkdir -p .git/modules/evil && printf '[core]\\n\\tfsmonitor = touch ../canary\\n' > .git/modules/evil/config;"
        " git init -q --separate-git-dir=.git/modules/evil2 evil2; ls .git/modules",
        guard=guard,
    )
    assert not (box.project / ".git" / "modules" / "evil").exists(), done.err
    assert not (box.project / ".git" / "modules" / "evil2").exists(), done.err


@pytest.mark.parametrize("guard", [False, True])
def test_a_nested_repositorys_git_directory_is_protected_as_the_projects_own(box: Box, guard: bool) -> None:
    """A clone in vendor/ (and one that appears between two commands): git run there later reads its config and runs
    its hooks, so neither can be written, and its .git cannot be moved aside; commits there still work."""
    box.run("echo first", guard=guard)  # (the walk's listings are kept: the next clone is found all the same)
    for name in ("lib", "later"):
        nested = box.project / "vendor" / name
        nested.mkdir(parents=True)
        git(nested, "init", "-q")
        config = (nested / ".git" / "config").read_text()
        box.snapshot()
        done = box.run(
            f"cd vendor/{name} && printf '[core]\\n\\tfsmonitor = touch ../canary\\n' >> .git/config;"
            " echo 'touch ../canary' > .git/hooks/post-checkout; chmod +x .git/hooks/post-checkout;"
            " mv .git/hooks .git/h; mv .git .g; git -c user.name=t -c user.email=t@t commit -q --allow-empty -m x"
            " && echo committed",
            guard=guard,
        )
        assert (nested / ".git" / "config").read_text() == config, done.err
        assert not (nested / ".git" / "hooks" / "post-checkout").exists() and not (nested / ".g").exists()
        assert "committed" in done.out, done.err


def test_the_guard_protects_the_repository_the_project_is_inside(tmp_path: Path) -> None:
    from tests.core.test_sandbox_setup import make_box

    outer = tmp_path / "outer"
    inner = make_box(outer / "work")  # (its project: outer/work/project, with a repository of its own)
    shutil.rmtree(inner.project / ".git")
    git(outer, "init", "-q")
    config = (outer / ".git" / "config").read_text()
    inner.run(
        "printf '[core]\\n\\tfsmonitor = touch /tmp/x\\n' >> ../../.git/config; mkdir -p ../../.git/hooks;"
        " echo evil > ../../.git/hooks/pre-commit",
        guard=True,
    )
    assert (outer / ".git" / "config").read_text() == config
    assert not (outer / ".git" / "hooks" / "pre-commit").exists()


def test_a_git_file_and_the_directory_it_points_to_are_protected(box: Box) -> None:
    worktree = box.tmp / "worktree"
    git(box.project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x")
    git(box.project, "worktree", "add", "-q", str(worktree))
    other = box.tmp / "other"
    other.mkdir()
    from tests.core.test_sandbox_setup import make_box

    outer = make_box(other)
    outer.workspace.additional_dirs = (worktree,)
    pointer = (worktree / ".git").read_text()
    done = outer.run(f"echo 'gitdir: /tmp' > {worktree}/.git; echo evil > {worktree}/x.txt && echo wrote")
    assert (worktree / ".git").read_text() == pointer and "wrote" in done.out


def test_a_protected_path_that_is_a_link_cannot_be_re_pointed_and_its_target_is_protected(box: Box) -> None:
    (box.project / "AGENTS.md").write_text("be careful\n")
    (box.project / "CLAUDE.md").symlink_to("AGENTS.md")
    (box.project / "decoy").mkdir()
    (box.project / ".claude").symlink_to("decoy")
    box.snapshot()
    attacks = [
        "echo obey >> CLAUDE.md",
        "rm CLAUDE.md && echo obey > CLAUDE.md",
        "ln -sfn /tmp/evil CLAUDE.md",
        "mv decoy d2",
        "rm .claude && mkdir .claude && echo {} > .claude/settings.json",
        "echo {} > .claude/settings.json",
    ]
    for attack in attacks:
        box.run(attack)
    assert os.readlink(box.project / "CLAUDE.md") == "AGENTS.md"
    assert (box.project / "AGENTS.md").read_text() == "be careful\n"
    assert os.readlink(box.project / ".claude") == "decoy" and list((box.project / "decoy").iterdir()) == []
    assert box.run("cat CLAUDE.md && ls -d .claude/").code == 0  # (still readable through the pinned links)


def test_the_hooks_directory_core_hookspath_names_is_protected(box: Box) -> None:
    (box.project / "githooks").mkdir()
    git(box.project, "config", "core.hooksPath", "githooks")
    box.snapshot()
    done = box.run("echo 'touch pwned' > githooks/pre-commit; echo other > other.txt")
    assert done.code == 0 and list((box.project / "githooks").iterdir()) == []
    git(box.project, "config", "core.hooksPath", "missing-hooks")
    box.run("mkdir -p missing-hooks && echo x > missing-hooks/pre-commit")
    assert not (box.project / "missing-hooks").exists()


def test_overlapping_commands_share_the_stand_ins_and_the_last_one_removes_them(box: Box) -> None:
    first = box.wrap(["bash", "-c", "true"])
    assert (box.project / ".mcp.json").read_text() == "{}\n"
    second = box.wrap(["bash", "-c", "true"])
    first.ended()
    assert (box.project / ".mcp.json").exists() and (box.project / ".claude").is_dir()
    second.ended()
    assert not (box.project / ".mcp.json").exists() and not (box.project / ".claude").exists()


def test_a_stand_in_someone_changed_meanwhile_is_kept(box: Box) -> None:
    confined = box.wrap(["bash", "-c", "true"])
    (box.project / "CLAUDE.md").write_text("written by the person meanwhile\n")
    (box.project / ".claude" / "settings.json").write_text("{}")
    confined.ended()
    assert (box.project / "CLAUDE.md").read_text() == "written by the person meanwhile\n"
    assert (box.project / ".claude" / "settings.json").exists()
    assert not (box.project / ".mcp.json").exists()
    os.unlink(box.project / "CLAUDE.md")
    os.unlink(box.project / ".claude" / "settings.json")
    os.rmdir(box.project / ".claude")


def test_a_crashed_owners_stand_ins_are_removed_at_the_next_start_and_a_live_ones_are_not(tmp_path: Path) -> None:
    registry = tmp_path / "registry"
    project = tmp_path / "project"
    project.mkdir()
    owner = subprocess.Popen(["sleep", "600"])
    try:
        dead = subprocess.run(["true"])
        assert dead.returncode == 0
        made = {}
        for name, content in (("gone.json", b"{}\n"), ("kept.json", b"{}\n")):
            path = project / name
            path.write_bytes(content)
            made[name] = os.lstat(path)
        (project / "changed.md").write_text("")
        changed = os.lstat(project / "changed.md")
        (project / "changed.md").write_text("the person's now")
        registry.mkdir()

        def entry(path: Path, info: os.stat_result, content: bytes) -> dict[str, object]:
            import base64

            return {
                "path": str(path),
                "directory": False,
                "content": base64.b64encode(content).decode(),
                "dev": info.st_dev,
                "ino": info.st_ino,
            }

        start = Path(f"/proc/{owner.pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
        (registry / f"{owner.pid}-{start}.json").write_text(
            json.dumps({"held": [entry(project / "kept.json", made["kept.json"], b"{}\n")]})
        )
        crashed = [
            entry(project / "gone.json", made["gone.json"], b"{}\n"),
            entry(project / "changed.md", changed, b""),
        ]
        (registry / "999999999-1.json").write_text(json.dumps({"held": crashed}))
        assert recover(registry) == [project / "gone.json"]
        assert (project / "kept.json").exists() and (project / "changed.md").read_text() == "the person's now"
        assert sorted(p.name for p in registry.glob("*.json")) == [f"{owner.pid}-{start}.json"]
    finally:
        owner.kill()
        owner.wait()


def test_a_stand_in_another_agentui_made_is_borrowed_not_removed_under_it(tmp_path: Path) -> None:
    registry = tmp_path / "registry"
    project = tmp_path / "project"
    project.mkdir()
    mine = standins_for(registry)
    lease = mine.acquire([StandIn(project / ".claude", True)])
    assert lease.present == {project / ".claude"}
    # another process's view: it finds ours registered and alive, shares it, and leaves it when done
    script = (
        "import sys; from pathlib import Path; from agentui.core.safety.standins import StandIn, standins_for\n"
        "s = standins_for(Path(sys.argv[1])); lease = s.acquire([StandIn(Path(sys.argv[2]), True)])\n"
        "print(sorted(map(str, lease.present))); print(s.release(lease))"
    )
    other = subprocess.run(
        [sys.executable, "-c", script, str(registry), str(project / ".claude")],
        capture_output=True,
        text=True,
        cwd=os.getcwd(),
    )
    assert other.returncode == 0, other.stderr
    assert other.stdout.splitlines() == [str([str(project / ".claude")]), "[]"]
    assert (project / ".claude").is_dir()
    assert mine.release(lease) == [project / ".claude"] and not (project / ".claude").exists()


def test_every_agentui_run_as_root_shares_one_registry_whatever_its_state_directory(tmp_path: Path) -> None:
    """Root's stand-ins include /etc's, which every agentui run as root shares: with a registry per state directory,
    one took another's stand-in for the person's file, and it went before the command mounted it."""
    first = registry_in({"AGENTUI_STATE_DIR": str(tmp_path / "a")})
    second = registry_in({"AGENTUI_STATE_DIR": str(tmp_path / "b")})
    if os.geteuid() == 0:
        assert first == second == MACHINE_STATE / "standins"
    else:
        assert (first, second) == (tmp_path / "a" / "standins", tmp_path / "b" / "standins")


def wait_until_waiting_for_a_lock(pid: int) -> None:
    """Until the process sleeps in the kernel waiting for a file lock (its wchan names the lock wait)."""
    deadline = time.monotonic() + 60
    while "lock" not in Path(f"/proc/{pid}/wchan").read_text():
        assert time.monotonic() < deadline, "the other process never waited for the registry's lock"
        time.sleep(0.01)


def test_no_other_agentui_makes_or_removes_a_stand_in_while_a_command_is_planned(tmp_path: Path) -> None:
    registry = tmp_path / "registry"
    project = tmp_path / "project"
    project.mkdir()
    mine = standins_for(registry)
    script = (
        "import sys; from pathlib import Path; from agentui.core.safety.standins import StandIn, standins_for\n"
        "s = standins_for(Path(sys.argv[1])); lease = s.acquire([StandIn(Path(sys.argv[2]), False)])\n"
        "print(sorted(map(str, lease.present)), flush=True); s.release(lease)"
    )
    with mine.locked():
        other = subprocess.Popen(
            [sys.executable, "-c", script, str(registry), str(project / ".mcp.json")],
            stdout=subprocess.PIPE,
            text=True,
            cwd=os.getcwd(),
        )
        wait_until_waiting_for_a_lock(other.pid)
        assert not (project / ".mcp.json").exists()  # (planned missing: ours to make)
        lease = mine.acquire([StandIn(project / ".mcp.json", False)])
        assert lease.present == {project / ".mcp.json"} and other.poll() is None
    out, _ = other.communicate(timeout=60)
    assert other.returncode == 0 and out.strip() == str([str(project / ".mcp.json")])
    assert (project / ".mcp.json").exists()  # (it borrowed ours and left it to us)
    assert mine.release(lease) == [project / ".mcp.json"] and not (project / ".mcp.json").exists()


@pytest.mark.parametrize("guard", [False, True])
def test_what_an_edit_deny_rule_covers_cannot_be_changed_by_any_program(box: Box, guard: bool) -> None:
    from agentui.core.safety.permissions.rules import parse_rule

    (box.project / "src").mkdir()
    (box.project / "src" / "app.py").write_text("mine\n")
    (box.project / "notes.md").write_text("notes\n")
    rule = parse_rule("Edit(./src/**)", "deny", "test", project_root=box.project, home=box.home)
    assert rule.path is not None
    box.sandbox.edit_denials = box.guard.edit_denials = lambda: [rule.path]  # type: ignore[list-item,return-value]
    box.snapshot()
    done = box.run(
        "python3 -c \"open('src/app.py', 'w').write('theirs')\"; echo x > src/new.py; rm -f src/app.py;"
        " ln -s src s2; echo y > s2/app.py; echo changed > notes.md",
        guard=guard,
    )
    assert (box.project / "src" / "app.py").read_text() == "mine\n", done.err
    assert not (box.project / "src" / "new.py").exists()
    assert (box.project / "notes.md").read_text() == "changed\n"  # (the rest of the project is as writable as ever)
