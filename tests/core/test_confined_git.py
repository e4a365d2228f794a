"""Every git command agentui itself runs is confined: in a repository that names a program wherever git can be told
to run one (its config, included and conditional files, a worktree's own config, hooks, attributes, a submodule), under
a global config and an environment that do the same, each of agentui's git paths still does its job, and no program
runs. Real git, real files; each program is a script that leaves a canary file behind."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from agentui.core.context.prompt import git_facts
from agentui.core.events import Notice
from agentui.core.parallel.working_copy import WorkingCopy
from agentui.core.safety.confined_git import GitRefused, run
from agentui.core.session.file_history import restore
from agentui.core.session.shell_snapshots import BeforeBash, ShellSnapshots, SnapshotError
from agentui.core.tools.globs import FileFilter
from agentui.core.tools.search import Query, ripgrep_path, ripgrep_search
from agentui.frontends.eval.evaluation import clone_task_repository
from tests.core.test_file_history import use
from tests.core.test_rewind import open_in

HOOKS = (
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-receive",
    "update",
    "proc-receive",
    "post-receive",
    "post-update",
    "reference-transaction",
    "push-to-checkout",
    "pre-auto-gc",
    "post-rewrite",
    "sendemail-validate",
    "fsmonitor-watchman",
    "post-index-change",
)
ATTRIBUTES = """\
* filter=evil diff=evil merge=evil
*.inc filter=included diff=included
*.cond filter=conditional
*.sneak filter=sneaky
*.odd filter=odd.na=me
*.wt filter=perworktree
"""
COMMITTED = {
    "a.txt": "alpha\n",
    "b.inc": "from an included file's filter\n",
    "c.cond": "from a conditionally included file's filter\n",
    "d.sneak": "from a filter only worktrees see\n",
    "e.odd": "a driver whose name has a dot and an equals sign\n",
    "f.wt": "from a worktree's own config\n",
}
IDENTITY = ("-c", "user.name=P", "-c", "user.email=p@example.com")


def plain_git(cwd: Path, *args: str, check: bool = True) -> str:
    """The test's own git, with none of the GIT_* variables the tests put in agentui's environment."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("GIT_")}
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 or not check, done.stderr
    return done.stdout


@dataclass
class Armed:
    root: Path
    """The repository: every program armed."""
    linked: Path
    """A linked worktree of it, on branch `side`: its .git is a file, and commondir leads to root's."""
    canaries: Path
    scripts: Path

    def fired(self) -> list[str]:
        return sorted(path.name for path in self.canaries.iterdir())


def program(scripts: Path, canaries: Path, name: str, then: str = "exec cat") -> str:
    """A script that leaves the canary `name` and passes its input through (a filter still works when it runs)."""
    path = scripts / name
    path.write_text(f"#!/bin/sh\n: > '{canaries / name}'\n{then}\n")
    path.chmod(0o755)
    return str(path)


def config(path: Path, settings: dict[str, str], *scope: str) -> None:
    for key, value in settings.items():
        plain_git(path, "config", *scope, "--add", key, value)


def build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Armed:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))  # (the global config below is this test's, not the machine's)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    canaries, scripts, cfg = tmp_path / "canaries", tmp_path / "bin", tmp_path / "cfg"
    for folder in (canaries, scripts, cfg):
        folder.mkdir()

    def armed(name: str) -> str:
        return program(scripts, canaries, name)

    # The repositories, made before anything is armed
    sub_source = tmp_path / "sub-source"
    sub_source.mkdir()
    plain_git(sub_source, "init", "-q", "-b", "main")
    (sub_source / "inner.txt").write_text("inside the submodule\n")
    plain_git(sub_source, "add", "inner.txt")
    plain_git(sub_source, *IDENTITY, "commit", "-q", "-m", "sub")
    root = tmp_path / "project"
    root.mkdir()
    plain_git(root, "init", "-q", "-b", "main")
    (root / ".gitattributes").write_text(ATTRIBUTES)
    for name, text in COMMITTED.items():
        (root / name).write_text(text)
    plain_git(root, "add", "-A")
    plain_git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub_source), "sub")
    plain_git(root, *IDENTITY, "commit", "-q", "-m", "first")
    linked = tmp_path / "linked"
    plain_git(root, "worktree", "add", "-q", "-b", "side", str(linked))

    # Hooks: in .git/hooks, and in the directory core.hooksPath names
    hooks_path = tmp_path / "hooks-path"
    hooks_path.mkdir()
    for hook in HOOKS:
        for folder, prefix in ((root / ".git" / "hooks", "hook-"), (hooks_path, "hooks-path-")):
            (folder / hook).write_text(f"#!/bin/sh\n: > '{canaries / (prefix + hook)}'\n")
            (folder / hook).chmod(0o755)

    # Included files
    (cfg / "included.cfg").write_text(
        f'[filter "included"]\n\tclean = {armed("included-clean")}\n\tsmudge = {armed("included-smudge")}\n'
        f"\trequired = true\n"
        f'[diff "included"]\n\ttextconv = {armed("included-textconv")}\n'
        f"[core]\n\tpager = {armed('included-pager')}\n\tfsmonitor = {armed('included-fsmonitor')}\n"
    )
    (cfg / "conditional.cfg").write_text(
        f'[filter "conditional"]\n\tclean = {armed("conditional-clean")}\n\tsmudge = {armed("conditional-smudge")}\n'
        f"[core]\n\teditor = {armed('conditional-editor')}\n"
    )
    (cfg / "worktrees.cfg").write_text(
        f'[filter "sneaky"]\n\tclean = {armed("sneaky-clean")}\n\tsmudge = {armed("sneaky-smudge")}\n'
        "\trequired = true\n"
    )

    # The repository's own config, every setting that names a program
    config(
        root,
        {
            "core.fsmonitor": armed("fsmonitor"),
            "core.hooksPath": str(hooks_path),
            "filter.evil.clean": armed("filter-clean"),
            "filter.evil.smudge": armed("filter-smudge"),
            "filter.evil.process": armed("filter-process"),
            "filter.evil.required": "true",
            "filter.odd.na=me.clean": armed("odd-clean"),
            "filter.odd.na=me.smudge": armed("odd-smudge"),
            "diff.evil.textconv": armed("diff-textconv"),
            "diff.evil.command": armed("diff-command"),
            "diff.external": armed("diff-external"),
            "merge.evil.driver": armed("merge-driver") + " %O %A %B",
            "core.pager": armed("core-pager"),
            "pager.status": armed("pager-status"),
            "pager.log": armed("pager-log"),
            "pager.diff": armed("pager-diff"),
            "core.editor": armed("core-editor"),
            "sequence.editor": armed("sequence-editor"),
            "credential.helper": armed("credential-helper"),
            "core.sshCommand": armed("ssh-command"),
            "core.askPass": armed("askpass"),
            "core.gitProxy": armed("git-proxy"),
            "gpg.program": armed("gpg-program"),
            "gpg.ssh.program": armed("gpg-ssh-program"),
            "gpg.x509.program": armed("gpg-x509-program"),
            "commit.gpgSign": "true",
            "tag.gpgSign": "true",
            "log.showSignature": "true",
            "core.alternateRefsCommand": armed("alternate-refs-command"),
            "protocol.ext.allow": "always",
            "remote.evil.url": f"ext::{program(scripts, canaries, 'ext-transport', then='exit 1')}",
            "include.path": str(cfg / "included.cfg"),
            f"includeIf.gitdir:{root}/.git.path": str(cfg / "conditional.cfg"),
            "includeIf.gitdir:**/worktrees/**.path": str(cfg / "worktrees.cfg"),
            "extensions.worktreeConfig": "true",
        },
    )
    perworktree = {"filter.perworktree.clean": armed("perworktree-clean"), "filter.perworktree.required": "true"}
    config(root, perworktree, "--worktree")
    config(linked, {**perworktree, "core.fsmonitor": armed("linked-fsmonitor")}, "--worktree")
    config(root / "sub", {"core.fsmonitor": armed("submodule-fsmonitor"), "core.pager": armed("submodule-pager")})
    local = root / ".git" / "config"
    local.write_bytes(b"\xef\xbb\xbf" + local.read_bytes())  # (a BOM, which git reads past)

    # The person's global config: more of the same, and for a clone into a directory named `repo`, a driver for
    # the `evil` filter the task repository's attributes name
    (cfg / "clone.cfg").write_text(
        f'[filter "evil"]\n\tsmudge = {armed("clone-smudge")}\n\trequired = true\n'
        f"[core]\n\tfsmonitor = {armed('clone-fsmonitor')}\n"
    )
    template = tmp_path / "template"
    (template / "hooks").mkdir(parents=True)
    for hook in ("post-checkout", "reference-transaction"):
        (template / "hooks" / hook).write_text(f"#!/bin/sh\n: > '{canaries / ('template-' + hook)}'\n")
        (template / "hooks" / hook).chmod(0o755)
    config(
        home,
        {
            "credential.helper": armed("global-credential-helper"),
            "core.pager": armed("global-pager"),
            "uploadpack.packObjectsHook": armed("pack-objects-hook"),
            "init.templateDir": str(template),
            "includeIf.gitdir:**/repo/.path": str(cfg / "clone.cfg"),
        },
        "--global",
    )

    # Changes in the work trees: tracked files changed (so git must clean them to compare), one untracked, and a
    # dirty submodule
    (root / "a.txt").write_text("alpha, changed\n")
    (root / "b.inc").write_text("included, changed\n")
    (root / "new.txt").write_text("untracked\n")
    (root / "sub" / "inner.txt").write_text("the submodule, changed\n")
    (linked / "c.cond").write_text("changed in the linked worktree\n")
    assert sorted(os.listdir(canaries)) == []
    return Armed(root, linked, canaries, scripts)


def arm_environment(armed: Armed, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """GIT_* variables in agentui's own environment that would run programs or point git elsewhere."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    plain_git(elsewhere, "init", "-q")
    exec_path = tmp_path / "exec-path"
    exec_path.mkdir()
    for name in ("git", "git-upload-pack", "git-remote-https"):
        (exec_path / name).write_text(f"#!/bin/sh\n: > '{armed.canaries / ('exec-path-' + name)}'\n")
        (exec_path / name).chmod(0o755)

    def armed_program(name: str) -> str:
        return program(armed.scripts, armed.canaries, name)

    variables = {
        "GIT_DIR": str(elsewhere / ".git"),
        "GIT_WORK_TREE": str(elsewhere),
        "GIT_INDEX_FILE": str(elsewhere / "other-index"),
        "GIT_EXEC_PATH": str(exec_path),
        "GIT_EXTERNAL_DIFF": armed_program("env-external-diff"),
        "GIT_CONFIG_PARAMETERS": f"'core.fsmonitor'='{armed_program('env-fsmonitor')}'",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "filter.evil.clean",
        "GIT_CONFIG_VALUE_0": armed_program("env-clean"),
        "GIT_SSH_COMMAND": armed_program("env-ssh"),
        "GIT_ASKPASS": armed_program("env-askpass"),
        "GIT_EDITOR": armed_program("env-editor"),
        "GIT_PAGER": armed_program("env-pager"),
        "GIT_ALLOW_PROTOCOL": "ext:file",
    }
    for name, value in variables.items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def armed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Armed:
    made = build(tmp_path, monkeypatch)
    arm_environment(made, monkeypatch, tmp_path)
    return made


def test_the_programs_are_armed_for_git_run_plainly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The control: what the other tests show not running does run under a plain git (which may then fail: the
    # process filter does not speak the protocol).
    armed = build(tmp_path, monkeypatch)
    plain_git(armed.root, "config", "--unset", "filter.evil.process")  # (it would stop git at the first file)
    plain_git(armed.root, "status", "--porcelain", check=False)
    for name in ("c.cond", "e.odd", "f.wt"):
        (armed.root / name).write_text("changed, so that adding it must clean it\n")
    plain_git(armed.root, "add", "b.inc", "c.cond", "e.odd", "f.wt", check=False)
    plain_git(armed.linked, "status", "--porcelain", check=False)
    plain_git(armed.root, "worktree", "add", "-q", "--detach", str(tmp_path / "another"), check=False)
    plain_git(armed.root, *IDENTITY, "commit", "-q", "-m", "signed and hooked", check=False)
    plain_git(armed.root, "diff", check=False)
    plain_git(armed.root, "fetch", "evil", check=False)
    assert {
        "included-fsmonitor",  # (the included file comes after core.fsmonitor, so its value is the one read)
        "linked-fsmonitor",
        "submodule-fsmonitor",
        "filter-clean",
        "filter-smudge",
        "included-clean",
        "conditional-clean",
        "odd-clean",
        "perworktree-clean",
        "sneaky-smudge",
        "gpg-program",
        "hooks-path-pre-commit",
        "hooks-path-post-index-change",
        "hooks-path-reference-transaction",
        "ext-transport",
        "diff-command",
    } <= set(armed.fired())


def test_git_facts_reads_the_real_status_and_runs_nothing(armed: Armed) -> None:
    assert git_facts(armed.root) == "main; 2 changed, 1 untracked"  # (a.txt and b.inc; new.txt)
    assert git_facts(armed.linked) == "side; 1 changed, 0 untracked"
    assert armed.fired() == []


async def test_snapshots_hold_the_real_bytes_and_restore_them_and_run_nothing(armed: Armed) -> None:
    warnings: list[str] = []
    before_bash = BeforeBash(
        armed.root, "f2b1c3d4-0000-4000-8000-0000000000c1", lambda: "2026-11-23T10:00:00.000Z", warnings.append
    )
    await before_bash("b1", "sed -i 's/alpha/ALPHA/' a.txt")
    assert warnings == []
    snapshots = before_bash.snapshots
    assert snapshots is not None
    [taken] = snapshots.taken()
    for name in ("a.txt", "b.inc", "new.txt", "c.cond", "d.sneak", "e.odd", "f.wt"):
        blob = plain_git(armed.root, "cat-file", "blob", f"{taken.commit}:{name}")
        assert blob == (armed.root / name).read_text(), name  # (as in the work tree: no clean filter ran)

    (armed.root / "a.txt").write_text("what a command wrote\n")
    (armed.root / "new.txt").unlink()
    (armed.root / "d.sneak").write_text("changed too\n")
    plan = snapshots.restore_plan(taken)
    assert {change.path.name for change in plan.changes} == {"a.txt", "new.txt", "d.sneak"}
    restore(plan.changes)
    assert (armed.root / "a.txt").read_text() == "alpha, changed\n"
    assert (armed.root / "new.txt").read_text() == "untracked\n"
    assert (armed.root / "d.sneak").read_text() == COMMITTED["d.sneak"]

    # in the linked worktree: .git is a file, and the config comes through commondir and its config.worktree
    linked = ShellSnapshots.find(armed.linked, "f2b1c3d4-0000-4000-8000-0000000000c2")
    assert linked is not None and linked.top == armed.linked
    there = linked.take("2026-11-23T10:01:00.000Z")
    (armed.linked / "c.cond").write_text("overwritten\n")
    restore(linked.restore_plan(there).changes)
    assert (armed.linked / "c.cond").read_text() == "changed in the linked worktree\n"
    assert armed.fired() == []


async def test_a_rewind_restores_what_bash_changed_and_runs_nothing(armed: Armed, tmp_path: Path) -> None:
    script = [
        use("Bash", "b1", command="echo 'by bash' > a.txt && rm b.inc && echo made > made.txt"),
        {"text": "Done."},
    ]
    conversation = open_in(armed.root, tmp_path, script)
    notices: list[str] = []
    conversation.on(lambda event: notices.append(event.message) if isinstance(event, Notice) else None)
    try:
        await conversation.agent.prompt("change things")
        assert (armed.root / "a.txt").read_text() == "by bash\n" and not (armed.root / "b.inc").exists()
        [first] = conversation.prompts()
        conversation.rewind(first.uuid)
    finally:
        await conversation.aclose()
    assert (armed.root / "a.txt").read_text() == "alpha, changed\n"
    assert (armed.root / "b.inc").read_text() == "included, changed\n"
    assert not (armed.root / "made.txt").exists()
    assert not [notice for notice in notices if "rewound" in notice]
    assert armed.fired() == []


def test_a_working_copy_is_made_patched_applied_and_removed_and_runs_nothing(armed: Armed, tmp_path: Path) -> None:
    copy = WorkingCopy.create(armed.root, tmp_path / "copies" / "branch")
    try:
        assert copy.kind == "worktree"
        for name in COMMITTED:  # (as committed, or as the person changed them: no smudge filter ran)
            assert (copy.root / name).read_text() == (armed.root / name).read_text(), name
        (copy.root / "d.sneak").write_text("the branch's version\n")
        (copy.root / "added.odd").write_text("a new file\n")
        (copy.root / "new.txt").unlink()
        assert "d.sneak" in copy.diff()
        copy.apply()
    finally:
        copy.remove()
    assert (armed.root / "d.sneak").read_text() == "the branch's version\n"
    assert (armed.root / "added.odd").read_text() == "a new file\n"
    assert not (armed.root / "new.txt").exists()
    assert not (tmp_path / "copies" / "branch").exists()
    assert str(tmp_path / "copies") not in plain_git(armed.root, "worktree", "list", "--porcelain")
    assert armed.fired() == []


def test_an_evaluation_clone_checks_out_the_real_files_and_runs_nothing(armed: Armed, tmp_path: Path) -> None:
    dest = tmp_path / "eval" / "repo"
    dest.parent.mkdir()
    clone_task_repository(f"file://{armed.root}", dest)  # (file://: upload-pack runs, and its hook is armed)
    for name, text in COMMITTED.items():
        assert (dest / name).read_text() == text, name
    assert (dest / ".gitattributes").read_text() == ATTRIBUTES
    assert not (dest / ".git" / "hooks").exists()  # (no template copied in)
    assert armed.fired() == []


def test_no_transport_is_allowed_but_the_clone_s_whatever_the_configuration_allows(armed: Armed) -> None:
    fetched = run(["fetch", "evil"], cwd=armed.root, timeout=30)
    assert fetched.returncode != 0 and b"transport 'ext' not allowed" in fetched.stderr
    listed = run(["ls-remote", str(armed.linked)], cwd=armed.root, timeout=30)
    assert listed.returncode != 0 and b"transport 'file' not allowed" in listed.stderr
    # git keeps the first core.gitProxy it reads, so where one is set, git:// is not allowed even to a clone
    proxied = run(["ls-remote", "git://127.0.0.1:9/x"], cwd=armed.root, timeout=30, protocols={"git"})
    assert proxied.returncode != 0 and b"transport 'git' not allowed" in proxied.stderr
    assert armed.fired() == []


def test_a_clone_may_use_git_s_own_transports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # (no global config of the machine's: it could set a core.gitProxy)
    plain = run(["ls-remote", "git://127.0.0.1:9/x"], cwd=tmp_path, timeout=30, protocols={"git"})
    assert plain.returncode != 0 and b"not allowed" not in plain.stderr  # (refused by nobody listening, not by git)
    refused = run(["ls-remote", "git://127.0.0.1:9/x"], cwd=tmp_path, timeout=30)
    assert b"transport 'git' not allowed" in refused.stderr


@pytest.mark.parametrize("broken", ["[core\n", "[include]\n\tpath = {cfg}\n"])
async def test_a_configuration_git_cannot_read_is_a_refusal_in_one_sentence(tmp_path: Path, broken: str) -> None:
    root = tmp_path / "project"
    root.mkdir()
    plain_git(root, "init", "-q", "-b", "main")
    (tmp_path / "broken.cfg").write_text('[filter "x"\n\tclean = touch nothing\n')
    local = root / ".git" / "config"
    local.write_text(local.read_text() + broken.format(cfg=tmp_path / "broken.cfg"))

    with pytest.raises(GitRefused) as refused:
        run(["status"], cwd=root, timeout=30)
    message = str(refused.value)
    assert message.startswith(f"agentui did not run git status in {root}, because git cannot read the configuration")
    assert message.endswith(").") and "\n" not in message and ". " not in message
    assert git_facts(root) == ""
    with pytest.raises(SnapshotError):
        ShellSnapshots.find(root, "f2b1c3d4-0000-4000-8000-0000000000c3")
    warnings: list[str] = []
    before_bash = BeforeBash(root, "f2b1c3d4-0000-4000-8000-0000000000c4", lambda: "now", warnings.append)
    await before_bash("b1", "touch x")
    await before_bash("b2", "touch y")
    assert len(warnings) == 1 and warnings[0].startswith("What Bash commands change cannot be rewound: agentui did")


async def test_ripgrep_runs_no_preprocessor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rg = ripgrep_path()
    assert rg is not None
    canaries, scripts = tmp_path / "canaries", tmp_path / "bin"
    canaries.mkdir()
    scripts.mkdir()
    program(scripts, canaries, "preprocessor")
    monkeypatch.setenv("PATH", f"{scripts}{os.pathsep}{os.environ['PATH']}")
    (tmp_path / "rg.cfg").write_text("--pre=preprocessor\n--search-zip\n")
    monkeypatch.setenv("RIPGREP_CONFIG_PATH", str(tmp_path / "rg.cfg"))
    root = tmp_path / "project"
    root.mkdir()
    (root / "notes.txt").write_text("hello\n")
    (root / "--pre=preprocessor").write_text("hello from a file named like an option\n")

    def query(start: Path) -> Query:
        return Query("hello", start, root, "files_with_matches", FileFilter([]))

    assert [hit.path.name for hit in await ripgrep_search(query(root), rg)] != []
    [hit] = await ripgrep_search(query(root / "--pre=preprocessor"), rg)
    assert hit.path.name == "--pre=preprocessor"
    assert os.listdir(canaries) == []
