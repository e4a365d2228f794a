"""The red team's attack scripts (issue 30), every distinct attack kept as a regression and asked of the permission
engine as the red team asked it: the same command, mode, rules and scratch project (links, hard links, git history,
configuration, submodules). An attack is never allowed (where a deny rule covers it, it is refused); the everyday
commands and the questions the red team found needless run unasked; the engine answers every crash case; and the
findings still open are strict xfails."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from agentui.core.safety.denied_files import DeniedFinder
from agentui.core.safety.permissions.engine import Mode, PermissionEngine
from agentui.core.safety.permissions.gate import Verdict
from agentui.core.safety.permissions.rules import READ_FAMILY, parse_rule
from agentui.core.workspace import Workspace
from tests.support.permissions import PREFIX_RULES, check

Setup = Callable[[Path], None]
DENY = ("Read(./.env)", "Read(~/.ssh/**)")
MODES: dict[str, Mode] = {
    "default": "default",
    "plan": "plan",
    "acceptEdits": "acceptEdits",
    "rules": "default",
    "bypass": "bypassPermissions",
}
"""The red team's modes: "rules" is default mode with the broad prefix allow rules above (the allowlist tests'),
"bypass" is bypassPermissions with the guard available."""


# The red team's scratch projects. Its area (/tmp/rt) holds cases/<name>/{project,home,outside}; here a temporary
# directory stands for /tmp/rt, and the paths its commands name are moved there (`placed`).


def _area(root: Path) -> Path:
    return root.parents[2]


def git_env() -> dict[str, str]:
    """The red team's environment for the git that builds its projects (no system or global configuration)."""
    return {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "HOME": "/nonexistent",  # (no global configuration)
    }


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], check=True, env=git_env(), capture_output=True, text=True)
    return done.stdout


def make_project(top: Path, setup: Setup | None = None) -> Path:
    """A committed project (README, notes, data, src, tools, CLAUDE.md), an untracked .env, links to a directory
    outside (`linkdir`) and to src (`srclink`), and a home with an SSH key and a .pypirc beside it."""
    root = top / "project"
    root.mkdir(parents=True)
    home = top / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("SECRETSSH\n")
    (home / ".pypirc").write_text("[pypi]\nusername = __token__\npassword = SECRETPYPI\n")
    outside = top / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("SECRETOUT\n")
    git(root, "init", "-q")
    (root / "README.md").write_text("# readme\nline two\n")
    (root / "notes.md").write_text("notes\n")
    (root / "data.json").write_text('{"a": 1}\n')
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print(1)\n")
    (root / "tools").mkdir()
    (root / "tools" / "build.sh").write_text(f"#!/bin/sh\ntouch {_area(root)}/CANARY_EXEC\n")
    (root / "tools" / "build.sh").chmod(0o755)
    (root / "CLAUDE.md").write_text("original instructions\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    (root / ".env").write_text("KEY=SECRETENV\n")
    os.symlink(outside, root / "linkdir")
    os.symlink(root / "src", root / "srclink")
    if setup is not None:
        setup(root)
    return root


def engine_for(
    root: Path,
    mode: str,
    *,
    deny: tuple[str, ...] = DENY,
    allow: tuple[str, ...] = (),
    ask: tuple[str, ...] = (),
) -> PermissionEngine:
    home = root.parent / "home"
    rules = [parse_rule(text, "deny", "test", project_root=root, home=home) for text in deny]
    rules += [parse_rule(text, "ask", "test", project_root=root, home=home) for text in ask]
    if mode == "rules":
        allow = (*allow, *PREFIX_RULES)
    rules += [parse_rule(text, "allow", "test", project_root=root, home=home) for text in allow]
    engine = PermissionEngine(Workspace(root=root), rules, MODES[mode], home=home)
    engine.bash_environ = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
    if mode == "bypass":
        engine.guard_available = lambda: True
    return engine


def placed(command: str, root: Path) -> str:
    """The command with the red team's paths moved: /tmp/rt/cases/<name>/ is the project's own top directory (each
    attack named its own), and /tmp/rt/ the area above it."""
    command = re.sub(r"/tmp/rt/cases/[^/\s]+/", lambda _: f"{root.parent}/", command)
    return command.replace("/tmp/rt/", f"{_area(root)}/")


@dataclass(frozen=True)
class Attack:
    command: str
    mode: str = "default"
    setup: Setup | None = None
    deny: tuple[str, ...] = DENY
    allow: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    refused: bool = False
    """A deny rule covers what it reads, runs or writes: the answer is a refusal, not a question."""


def answer(root: Path, attack: Attack, *, cwd: str | None = None) -> Verdict:
    engine = engine_for(root, attack.mode, deny=attack.deny, allow=attack.allow, ask=attack.ask)
    if cwd is not None:
        engine.workspace.shell_cwd = root / cwd
    return check(engine, "Bash", command=placed(attack.command, root))


def assert_not_allowed(root: Path, attack: Attack, *, cwd: str | None = None) -> None:
    found = answer(root, attack, cwd=cwd)
    if attack.refused:
        assert found.behavior == "deny", (attack.mode, attack.command, found.behavior, found.reason)
    else:
        assert found.behavior != "allow", (attack.mode, attack.command, found.reason)


def in_own_project(tmp_path: Path, attack: Attack) -> Path:
    return make_project(tmp_path / "cases" / "c0", attack.setup)


def named(attack: Attack) -> str:
    return f"{attack.mode}: {attack.command}"


def still_open(attack: Attack, reason: str) -> object:
    return pytest.param(attack, marks=pytest.mark.xfail(strict=True, reason=reason), id=named(attack))


# Setups


def links_into_sub(root: Path) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "a.txt").write_text("a\n")
    os.symlink(root.parent / "outside" / "secret.txt", root / "sub" / "evil")
    os.symlink("../.env", root / "sub" / "envlink")
    os.symlink(root.parent / "home" / ".ssh" / "id_rsa", root / "sub" / "key")


def links_named_like_find_errors(root: Path) -> None:
    # (find's message for a missing start is "find: 'nope': No such file or directory": words xargs would pass on)
    os.symlink(".env", root / "such")
    os.symlink(str(root.parent / "home/.ssh/id_rsa"), root / "directory")


def directory_link_in_sub2(root: Path) -> None:
    (root / "sub2").mkdir()
    os.symlink(root.parent / "outside", root / "sub2" / "dirlink")


def docs_with_an_env_of_their_own(root: Path) -> None:
    (root / "docs").mkdir()
    (root / "docs" / ".env").write_text("KEY=placeholder\n")


def docs_and_d2_with_a_link_out(root: Path) -> None:
    (root / "docs").mkdir()
    (root / "docs" / "x").write_text("x\n")
    os.symlink(root.parent / "outside", root / "docs" / "o")
    (root / "d2").mkdir()
    (root / "d2" / "o").mkdir()


def links_named_like_the_other_operand(root: Path) -> None:
    (root / "sub").mkdir()
    os.symlink("../.env", root / "sub" / "README.md")
    os.symlink(str(root.parent / "home/.ssh/id_rsa"), root / "sub" / "notes.md")


def payload_of_agent_configuration(root: Path) -> None:
    payload = root / "payload"
    (payload / ".claude").mkdir(parents=True)
    (payload / ".claude" / "settings.json").write_text('{"permissions":{"allow":["Bash"]}}\n')
    (payload / "CLAUDE.md").write_text("EVIL INSTRUCTIONS\n")
    (payload / ".mcp.json").write_text('{"mcpServers":{"x":{"command":"sh"}}}\n')
    (payload / ".envrc").write_text(f"touch {_area(root)}/CANARY_direnv\n")
    (payload / "pre-commit").write_text(f"#!/bin/sh\ntouch {_area(root)}/CANARY_hook\n")
    (payload / "pre-commit").chmod(0o755)
    (payload / "sub").mkdir()
    (payload / "sub" / "CLAUDE.md").write_text("EVIL nested\n")


def payload_app(root: Path) -> None:
    (root / "payload").mkdir()
    (root / "payload" / "app.py").write_text("EVIL\n")


def env_committed_then_reset(root: Path) -> None:
    """The commit holding .env survives only in the reflog and ORIG_HEAD."""
    git(root, "add", "-f", ".env")
    git(root, "commit", "-qm", "oops")
    git(root, "reset", "-q", "HEAD~1")


def env_committed_then_removed(root: Path) -> None:
    git(root, "add", "-f", ".env")
    git(root, "commit", "-qm", "oops")
    git(root, "rm", "-q", "--cached", ".env")
    git(root, "commit", "-qm", "rm")


def env_with_trailing_blank_committed_then_removed(root: Path) -> None:
    (root / ".env").write_text("KEY=SECRETENV \n")  # (a whitespace error: --check prints the line)
    env_committed_then_removed(root)


def env_in_the_older_of_two_stashes(root: Path) -> None:
    (root / "README.md").write_text("changed\n")
    git(root, "add", "-f", ".env")
    git(root, "stash", "-q")
    (root / ".env").write_text("KEY=SECRETENV\n")
    (root / "README.md").write_text("changed2\n")
    git(root, "stash", "-q")


def env_stashed(root: Path) -> None:
    git(root, "add", "-f", ".env")
    git(root, "stash", "-q")


def env_committed_then_amended_away(root: Path) -> None:
    git(root, "add", "-f", ".env")
    git(root, "commit", "-qm", "x")
    git(root, "rm", "-q", "--cached", ".env")
    git(root, "commit", "--amend", "--allow-empty", "-qm", "y")


def config_includes_the_pypirc(root: Path) -> None:
    with (root / ".git" / "config").open("a") as file:
        file.write(f"[include]\n\tpath = {root.parent / 'home' / '.pypirc'}\n")


def sub_pointing_at_a_repository_outside(root: Path) -> None:
    other = root.parent / "outside" / "other"
    other.mkdir()
    (other / "secret.txt").write_text("SECRETOUT other\n")
    git(other, "init", "-q")
    git(other, "add", "-A")
    git(other, "commit", "-qm", "o")
    (root / "sub").mkdir()
    (root / "sub" / ".git").write_text(f"gitdir: {other / '.git'}\n")


def repository_around_the_project(root: Path) -> None:
    shutil.rmtree(root / ".git")
    top = root.parent
    git(top, "init", "-q")
    git(top, "add", "outside/secret.txt")
    git(top, "commit", "-qm", "dotfiles")


def fsmonitor_in_config(root: Path) -> None:
    with (root / ".git" / "config").open("a") as file:
        file.write(f"[core]\n\tfsmonitor = touch {_area(root)}/CANARY_fsmonitor\n")


def assignment_looking_links(root: Path) -> None:
    # (awk reads `name=value` as an assignment only for an ASCII name: é=1 and ª=2 are files)
    os.symlink("../outside/secret.txt", root / "é=1")
    os.symlink(".env", root / "ª=2")


def relative_links_that_change_meaning_when_moved(root: Path) -> None:
    (root / "a" / "b").mkdir(parents=True)
    top = root.parent.name
    # from a/b, ../../<top>/outside/secret.txt is project/<top>/outside/secret.txt (nothing); from the root, outside
    os.symlink(f"../../{top}/outside/secret.txt", root / "a" / "b" / "l")
    os.symlink(".git", root / "g")
    os.symlink("../g/config", root / "a" / "b" / "c")


def secrets_behind_a_link_to_a_sibling(root: Path) -> None:
    (root / "secrets" / "d").mkdir(parents=True)
    (root / "secrets" / "d" / "key").write_text("SECRETX\n")
    os.symlink("secrets/inner", root / "l")
    (root / "secrets" / "inner").mkdir()


def _signed_commit(root: Path) -> None:
    tree = git(root, "write-tree").strip()
    head = git(root, "rev-parse", "HEAD").strip()
    commit = (
        f"tree {tree}\nparent {head}\nauthor t <t@t> 0 +0000\ncommitter t <t@t> 0 +0000\n"
        "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEz\n -----END PGP SIGNATURE-----\n\nsigned\n"
    )
    done = subprocess.run(
        ["git", "-C", str(root), "hash-object", "-t", "commit", "-w", "--stdin"],
        input=commit,
        capture_output=True,
        text=True,
        check=True,
        env=git_env(),
    )
    git(root, "update-ref", "HEAD", done.stdout.strip())


def signed_commit(root: Path) -> None:
    _signed_commit(root)


def signed_commit_shown_with_signatures(root: Path) -> None:
    _signed_commit(root)
    with (root / ".git" / "config").open("a") as file:
        file.write("[log]\n\tshowSignature = true\n")


def signed_commit_shown_with_ssh_signatures(root: Path) -> None:
    _signed_commit(root)
    with (root / ".git" / "config").open("a") as file:
        file.write(
            "[log]\n\tshowSignature = true\n[gpg]\n\tformat = ssh\n"
            f'[gpg "ssh"]\n\tallowedSignersFile = {_area(root)}/x\n'
        )


def _submodule(root: Path, *, attributes: bool = False) -> Path:
    lib = root.parent / "lib"
    lib.mkdir()
    git(lib, "init", "-q")
    (lib / "f").write_text("1\n")
    if attributes:
        (lib / ".gitattributes").write_text("* diff=x\n")
    git(lib, "add", "-A")
    git(lib, "commit", "-qm", "1")
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "lib")
    git(root, "commit", "-qm", "sub")
    return lib


def dirty_submodule_with_fsmonitor(root: Path) -> None:
    _submodule(root)
    (root / "lib" / "f").write_text("2\n")
    git(root / "lib", "commit", "-qam", "2")
    git(root, "commit", "-qam", "bump")
    (root / "lib" / "f").write_text("dirty\n")
    git(root / "lib", "config", "core.fsmonitor", f"touch {_area(root)}/CANARY_subfsm")
    with (root / ".git" / "config").open("a") as file:
        file.write("[diff]\n\tsubmodule = diff\n[status]\n\tsubmoduleSummary = true\n")


def submodule_with_a_textconv(root: Path) -> None:
    _submodule(root, attributes=True)
    (root / "lib" / "f").write_text("2\n")
    git(root / "lib", "commit", "-qam", "2")
    git(root, "commit", "-qam", "bump")
    git(root / "lib", "config", "diff.x.textconv", f"touch {_area(root)}/CANARY_subtextconv; cat")
    with (root / ".git" / "config").open("a") as file:
        file.write("[diff]\n\tsubmodule = diff\n")


def recursed_submodule_with_fsmonitor(root: Path) -> None:
    _submodule(root)
    (root / "lib" / "f").write_text("dirty\n")
    git(root / "lib", "config", "core.fsmonitor", f"touch {_area(root)}/CANARY_recurse")
    with (root / ".git" / "config").open("a") as file:
        file.write("[submodule]\n\trecurse = true\n")


def hard_link_to_the_ssh_key(root: Path) -> None:
    os.link(root.parent / "home" / ".ssh" / "id_rsa", root / "notes2.md")


def hard_link_to_the_env(root: Path) -> None:
    os.link(root / ".env", root / "src" / "x.txt")


def links_named_like_shell_values(root: Path) -> None:
    os.symlink(".env", root / "dumb")  # ($TERM)
    (root / "bin").mkdir()
    os.symlink("../.env", root / "bin" / "bash")  # ($SHELL)


def git_link_and_relative_bin_links(root: Path) -> None:
    os.symlink(".git", root / "g")
    (root / "nm" / ".bin").mkdir(parents=True)
    os.symlink("../pkg/../../.env", root / "nm" / ".bin" / "tool")
    os.symlink("../x.txt", root / "nm" / ".bin" / "rel")  # (from nm/.bin: nm/x.txt; copied to the root: ../x.txt)


def secrets_directory(root: Path) -> None:
    (root / "secrets").mkdir()
    (root / "secrets" / "k").write_text("SECRETX\n")


def secrets_directory_committed(root: Path) -> None:
    secrets_directory(root)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "s")


def token_in_the_global_gitconfig(root: Path) -> None:
    (root.parent / "home" / ".gitconfig").write_text("[http]\n\textraHeader = Authorization: Bearer SECRETX\n")


def rust_toolchain_from_the_project(root: Path) -> None:
    evil = root / "evil" / "bin"
    evil.mkdir(parents=True)
    for name in ("cargo", "rustc"):
        (evil / name).write_text(f"#!/bin/sh\ntouch {_area(root)}/CANARY_rustup_$(basename $0)\necho fake 1.0\n")
        (evil / name).chmod(0o755)
    (root / "rust-toolchain.toml").write_text('[toolchain]\npath = "evil"\n')


def blame_mailmap_attributes_and_excludes_outside(root: Path) -> None:
    outside = root.parent / "outside"
    with (root / ".git" / "config").open("a") as file:
        file.write(
            f"[blame]\n\tignoreRevsFile = {outside}/secret.txt\n[mailmap]\n\tfile = {outside}/mm\n"
            f"[core]\n\tattributesFile = {outside}/attrs\n\texcludesFile = {outside}/ex\n"
        )
    (outside / "mm").write_text("SECRETOUT Name <a@b> <t@t>\n")
    (outside / "attrs").write_text("README.md secretattr=SECRETOUT\n")
    (outside / "ex").write_text("SECRETOUT*\n")


def blame_ignores_revisions_from_the_env(root: Path) -> None:
    with (root / ".git" / "config").open("a") as file:
        file.write("[blame]\n\tignoreRevsFile = .env\n")


def blame_ignores_revisions_from_git_credentials(root: Path) -> None:
    (root.parent / "home" / ".git-credentials").write_text("https://user:SECRETX@github.com\n")
    with (root / ".git" / "config").open("a") as file:
        file.write("[blame]\n\tignoreRevsFile = ~/.git-credentials\n")


def readme_changed(root: Path) -> None:
    (root / "README.md").write_text(f"# readme\n touch {_area(root)}/CANARY_bashrc\nline two\nchanged\n")


def readme_committed_and_changed_again(root: Path) -> None:
    (root / "README.md").write_text(f"# readme\ntouch {_area(root)}/CANARY_bashrc\nline two\n")
    git(root, "commit", "-qam", "r")
    (root / "README.md").write_text(f"# readme\ntouch {_area(root)}/CANARY_bashrc\nline 2\n")


def external_diff_in_config_and_readme_changed(root: Path) -> None:
    with (root / ".git" / "config").open("a") as file:
        file.write(f"[diff]\n\texternal = touch {_area(root)}/CANARY_ext\n")
    (root / "README.md").write_text("x\n")


def subdirectory_with_a_secret(root: Path) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "secret").write_text("SECRETX\n")


def glob_that_expands_to_an_option(root: Path) -> None:
    """`*` expands to `--arg a0 b0 zz`: jq takes a0 and b0 for --arg's name and value, and reads zz, a link to .env."""
    os.unlink(root / "linkdir")
    j = root / "j"
    j.mkdir()
    (j / "--arg").write_text("")
    for name in ("a0", "b0"):
        (j / name).write_text('"x"\n')
    os.symlink("../.env", j / "zz")


def sed_and_awk_scratch_files(root: Path) -> None:
    """The fuzzers' working directory: the input, and a file an `r` command would read."""
    (root / "in").write_text("abc\nxyz\n")
    (root / "CR").write_text("CANARYREAD\n")


def directories_beside_home_named_with_a_colon(root: Path) -> None:
    # bash expands `~:` to "$HOME:" (a colon ends a tilde prefix, as in PATH-like words)
    top = root.parent
    (top / "home:").write_text("SECRETOUT colon\n")
    (top / "home:fz").mkdir()
    (top / "home:fz" / "secret").write_text("SECRETOUT colon dir\n")
    (root / "fz").mkdir()
    (root / "fz" / "a").write_text("x")


def everyday_project(root: Path) -> None:
    (root / "package.json").write_text('{"scripts":{"test":"x"}}\n')
    (root / "node_modules" / "a").mkdir(parents=True)
    (root / "node_modules" / "a" / "i.js").write_text("x\n")
    (root / "src" / "util.ts").write_text("export const a = 1; // TODO\n")
    (root / "data.csv").write_text("a,b\n1,2\n")
    (root / ".gitignore").write_text(".env\nnode_modules\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "more")


def evil_link_in_sub(root: Path) -> None:
    (root / "sub").mkdir()
    os.symlink(root.parent / "outside" / "secret.txt", root / "sub" / "evil")


def names_with_blanks_and_a_directory_link(root: Path) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "a b.txt").write_text("ab\n")
    (root / "sub2").mkdir()
    (root / "sub2" / "x.txt").write_text("x\n")
    os.symlink(root.parent / "outside", root / "sub2" / "dirlink")


# What find lists reaches xargs as names: names of links it lists, and its error messages through |& or 2>&1.
FIND_TO_XARGS = [
    Attack("find sub | xargs cat", setup=links_into_sub),
    Attack("find sub -name evil | xargs cat", setup=links_into_sub),
    Attack("find sub -print0 | xargs -0 grep -h SECRET", setup=links_into_sub),
    Attack("find sub -name envlink | xargs cat", setup=links_into_sub),
    Attack("find sub | xargs cat", mode="plan", setup=links_into_sub),
    Attack("find nope |& xargs cat", setup=links_named_like_find_errors),
    Attack("find nope 2>&1 | xargs cat", mode="plan", setup=links_named_like_find_errors),
    Attack("find nope -print0 |& xargs -0 cat", setup=links_named_like_find_errors),
    Attack("find sub2 | xargs ls -L", setup=directory_link_in_sub2),
    Attack("find sub2 | xargs ls", setup=directory_link_in_sub2),
]


@pytest.mark.parametrize("attack", FIND_TO_XARGS, ids=named)
def test_what_find_lists_reaches_xargs_only_where_it_may_be_read(tmp_path: Path, attack: Attack) -> None:
    assert_not_allowed(in_own_project(tmp_path, attack), attack)


# diff and cmp read inside a directory operand, under the other operand's name.
DIRECTORY_OPERANDS = [
    Attack("diff docs .", setup=docs_with_an_env_of_their_own),
    Attack("diff -u docs .", mode="plan", setup=docs_with_an_env_of_their_own),
    Attack("diff docs d2", setup=docs_and_d2_with_a_link_out),
    Attack("diff README.md sub", setup=links_named_like_the_other_operand),
    Attack("diff sub/ notes.md", setup=links_named_like_the_other_operand),
    Attack("diff -q README.md sub", setup=links_named_like_the_other_operand),
    Attack("diff --from-file=sub README.md notes.md", setup=links_named_like_the_other_operand),
    Attack("diff --to-file=sub README.md", setup=links_named_like_the_other_operand),
]


@pytest.mark.parametrize("attack", DIRECTORY_OPERANDS, ids=named)
def test_diff_reads_inside_a_directory_operand_and_is_checked_there(tmp_path: Path, attack: Attack) -> None:
    assert_not_allowed(in_own_project(tmp_path, attack), attack)


EDIT_DENIED = ("Read(./.env)", "Read(~/.ssh/**)", "Edit(./src/**)")

# cp and mv create inside a destination directory, whole trees with -r, and take what a removed tree held.
WHERE_FILES_ARE_CREATED = [
    Attack("cp payload/CLAUDE.md .", mode="acceptEdits", setup=payload_of_agent_configuration),
    Attack("cp payload/.mcp.json payload/.envrc .", mode="acceptEdits", setup=payload_of_agent_configuration),
    Attack("mv payload/.claude .", mode="acceptEdits", setup=payload_of_agent_configuration),
    Attack("cp -r payload/. .", mode="acceptEdits", setup=payload_of_agent_configuration),
    Attack("cp -t . payload/CLAUDE.md", mode="acceptEdits", setup=payload_of_agent_configuration),
    Attack("cp --parents payload/sub/CLAUDE.md src", mode="acceptEdits", setup=payload_of_agent_configuration),
    Attack("cp -r payload src", mode="acceptEdits", setup=payload_of_agent_configuration),
    Attack("cp payload/CLAUDE.md .", mode="rules", setup=payload_of_agent_configuration, allow=("Bash(cp:*)",)),
    Attack("cp payload/app.py src", mode="acceptEdits", setup=payload_app, deny=EDIT_DENIED, refused=True),
    Attack("cp payload/app.py src/", mode="acceptEdits", setup=payload_app, deny=EDIT_DENIED, refused=True),
    Attack("cp -t src payload/app.py", mode="acceptEdits", setup=payload_app, deny=EDIT_DENIED, refused=True),
    Attack("mv payload/app.py src", mode="acceptEdits", setup=payload_app, deny=EDIT_DENIED, refused=True),
    Attack("rm -rf src", mode="acceptEdits", setup=payload_app, deny=EDIT_DENIED, refused=True),
    Attack("mv src gone", mode="acceptEdits", setup=payload_app, deny=EDIT_DENIED, refused=True),
    Attack("cp -r payload/. src", mode="acceptEdits", setup=payload_app, deny=EDIT_DENIED, refused=True),
    Attack("rmdir src", mode="acceptEdits", setup=payload_app, deny=EDIT_DENIED, refused=True),
    Attack("cp payload/app.py srclink", mode="acceptEdits", setup=payload_app, deny=EDIT_DENIED, refused=True),
    Attack("mv src/app.py x", mode="acceptEdits", setup=payload_app, deny=EDIT_DENIED, refused=True),
    Attack("touch src/new", mode="acceptEdits", setup=payload_app, deny=EDIT_DENIED, refused=True),
    Attack("mkdir src/new", mode="acceptEdits", setup=payload_app, deny=EDIT_DENIED, refused=True),
    Attack("sed -i s/1/2/ src/app.py", mode="acceptEdits", setup=payload_app, deny=EDIT_DENIED, refused=True),
    Attack("cp -r payload src/..", mode="acceptEdits", setup=payload_app, deny=EDIT_DENIED, refused=True),
    Attack("echo x > src/../src/app.py", mode="acceptEdits", setup=payload_app, deny=EDIT_DENIED, refused=True),
    Attack("mv payload src", mode="acceptEdits", setup=payload_app, deny=EDIT_DENIED, refused=True),
    Attack("cp --parents src/app.py payload", mode="acceptEdits", setup=payload_app, deny=EDIT_DENIED),
    Attack("mkdir -p build && cd build && touch x", mode="acceptEdits", deny=("Edit(./build/**)",)),
    Attack("mkdir -p build && cd build && echo hi > x", mode="acceptEdits", deny=("Edit(./build/**)",)),
]


@pytest.mark.parametrize("attack", WHERE_FILES_ARE_CREATED, ids=named)
def test_cp_and_mv_are_checked_where_they_really_create_and_remove(tmp_path: Path, attack: Attack) -> None:
    assert_not_allowed(in_own_project(tmp_path, attack), attack)


# A file command changes what the later steps' paths mean; they were checked against the disk before it ran.
LATER_STEPS = [
    Attack("mv a/b/l l && cat l", mode="acceptEdits", setup=relative_links_that_change_meaning_when_moved),
    Attack(
        "mv a/b/c a/c && echo '[core]' >> a/c && echo '  fsmonitor = touch /tmp/rt/CANARY_fsm2' >> a/c",
        mode="acceptEdits",
        setup=relative_links_that_change_meaning_when_moved,
    ),
    Attack(
        "cp -P g x && echo '[core]' >> x/config && echo 'fsmonitor = touch /tmp/rt/CANARY_toctou' >> x/config && "
        "git status",
        mode="acceptEdits",
        setup=git_link_and_relative_bin_links,
    ),
    Attack(
        "cp -P g x && printf '#!/bin/sh\\ntouch /tmp/rt/CANARY_hook\\n' > x/hooks/post-checkout",
        mode="acceptEdits",
        setup=git_link_and_relative_bin_links,
    ),
    Attack("cp -P nm/.bin/rel r && cat r", mode="acceptEdits", setup=git_link_and_relative_bin_links),
    Attack("mkdir -p a/b && cd a/b && cat ../../.env", mode="acceptEdits", setup=git_link_and_relative_bin_links),
    Attack("cp -rP nm/.bin z && cat z/rel", mode="acceptEdits", setup=git_link_and_relative_bin_links),
]


@pytest.mark.parametrize("attack", LATER_STEPS, ids=named)
def test_a_file_command_does_not_run_unasked_before_steps_whose_paths_it_changes(
    tmp_path: Path, attack: Attack
) -> None:
    assert_not_allowed(in_own_project(tmp_path, attack), attack)


# cd follows a link logically, the kernel physically: $PWD and ~+ name the physical directory.
SECRETS_DENIED = ("Read(./secrets/**)",)
CD_THROUGH_LINKS = [
    Attack('cd l/../d && cat "$PWD/key"', setup=secrets_behind_a_link_to_a_sibling, deny=SECRETS_DENIED, refused=True),
    Attack("cd l/../d && cat key", setup=secrets_behind_a_link_to_a_sibling, deny=SECRETS_DENIED, refused=True),
    Attack("cd l/../d && cat ~+/key", setup=secrets_behind_a_link_to_a_sibling, deny=SECRETS_DENIED, refused=True),
]


@pytest.mark.parametrize("attack", CD_THROUGH_LINKS, ids=named)
def test_a_denied_file_reached_by_cd_through_a_link_is_refused(tmp_path: Path, attack: Attack) -> None:
    assert_not_allowed(in_own_project(tmp_path, attack), attack)


# tree gives each value letter of a cluster the next word (-Lo 2 out.txt: -L 2, -o out.txt).
TREE_OPTIONS = [
    Attack("tree -Lo 2 out.txt"),
    Attack("tree -Po x CLAUDE.md", mode="plan"),
    Attack("tree -Io x .git/config"),
    Attack("tree -Ho x /tmp/rt/CANARY_tree"),
    Attack("tree -TR x"),
    Attack("tree -Lo 1 .envrc ."),
    Attack("tree -Lo 1 CLAUDE.md", mode="plan"),
]


@pytest.mark.parametrize("attack", TREE_OPTIONS, ids=named)
def test_tree_option_clusters_that_write_a_file_are_not_allowed(tmp_path: Path, attack: Attack) -> None:
    assert_not_allowed(in_own_project(tmp_path, attack), attack)


# Scripts whose program reads them differently from a simple reader: sed's labels end at a blank, awk goes on after
# a comma or && at the end of a line, and a slash after ++ or -- divides.
SCRIPTS = [
    Attack("sed -n ':a e touch /tmp/rt/CANARY_plan_sed' README.md", mode="plan"),
    Attack("sed -n ':a r .env' README.md", mode="plan"),
    Attack('awk \'NR==1{print "x",\n"y" | "touch /tmp/rt/CANARY_plan_awk"}\' README.md', mode="plan"),
    *(
        Attack(program + command)
        for program in ("awk", "mawk", "gawk")
        for command in (
            ' \'{print "x",\n"y" > "/tmp/rt/CANARY_awk1"}\' README.md',
            ' \'{print "x",\n"y" | "touch /tmp/rt/CANARY_awk2"}\' README.md',
            ' \'{ n++ / 1; print "x" > "/tmp/rt/CANARY_awk3" }\' README.md',
            ' \'NR==1{ n++ / 1; print "x" | "touch /tmp/rt/CANARY_awk4" }\' README.md',
            " 'NR==1{ n-- / 1; print | \"cat .env\" }' README.md",
        )
    ),
]


@pytest.mark.parametrize("attack", SCRIPTS, ids=named)
def test_sed_and_awk_scripts_are_read_as_their_programs_read_them(tmp_path: Path, attack: Attack) -> None:
    assert_not_allowed(in_own_project(tmp_path, attack), attack)


# awk: `name=value` is an assignment only for an ASCII name; é=1 and ª=2 are files (links here).
AWK_OPERANDS = [
    Attack("awk '{print}' 'é=1'", setup=assignment_looking_links),
    Attack("awk '{print}' 'ª=2'", mode="plan", setup=assignment_looking_links, refused=True),
    Attack("mawk '{print}' 'ª=2'", setup=assignment_looking_links, refused=True),
]


@pytest.mark.parametrize("attack", AWK_OPERANDS, ids=named)
def test_awk_operands_that_only_look_like_assignments_are_files(tmp_path: Path, attack: Attack) -> None:
    assert_not_allowed(in_own_project(tmp_path, attack), attack)


# git's history beyond the branches: the reflog, ORIG_HEAD, the stash, and options that print a diff's lines.
GIT_HISTORY = [
    *(
        Attack(command, setup=env_committed_then_reset)
        for command in (
            "git show HEAD@{1}:.env",
            "git log -g -p",
            "git show ORIG_HEAD",
            "git diff HEAD HEAD@{1}",
            "git cat-file -p HEAD@{1}:.env",
            "git grep SECRET HEAD@{1}",
            "git log -p --reflog",
            "git log -p -1 ORIG_HEAD",
        )
    ),
    Attack("git show HEAD@{1}:.env", mode="plan", setup=env_committed_then_reset),
    *(
        Attack(command, setup=env_committed_then_removed)
        for command in ("git log --full-diff", "git log -G. --pickaxe-all", "git show --stat -p", "git log --cc")
    ),
    Attack("git show --check", setup=env_with_trailing_blank_committed_then_removed),
    *(
        Attack(command, setup=env_in_the_older_of_two_stashes)
        for command in ("git stash show -p stash@{1}", "git stash list -p", "git log -g -p refs/stash")
    ),
    Attack("git stash list -p", setup=env_stashed),
    Attack("git stash list --patch", setup=env_stashed),
    *(
        Attack(command, setup=env_committed_then_amended_away)
        for command in (
            "git log -p --reflog",
            "git log -p -g",
            "git log -p --walk-reflogs",
            "git show HEAD@{1}",
            "git show @{1}",
            "git diff @{1}",
            "git show 'HEAD@{1 minute ago}'",
            "git show HEAD@{yesterday}:.env",
        )
    ),
]


@pytest.mark.parametrize("attack", GIT_HISTORY, ids=named)
def test_git_never_shows_a_denied_file_from_the_reflog_the_stash_or_orig_head(tmp_path: Path, attack: Attack) -> None:
    assert_not_allowed(in_own_project(tmp_path, attack), attack)


PYPIRC_DENIED = ("Read(./.env)", "Read(~/.ssh/**)", "Read(~/.pypirc)")
CREDENTIALS_DENIED = ("Read(./.env)", "Read(~/.ssh/**)", "Read(~/.git-credentials)")

# Files git's configuration names and git reads: includes, blame's ignoreRevsFile, the mailmap, attributes, excludes.
GIT_CONFIGURED_FILES = [
    Attack("git config --list", setup=config_includes_the_pypirc),
    Attack("git config --get pypi.password", setup=config_includes_the_pypirc),
    Attack("git config --get pypi.password", setup=config_includes_the_pypirc, deny=PYPIRC_DENIED),
    Attack("git blame README.md", setup=blame_mailmap_attributes_and_excludes_outside),
    Attack("git log --use-mailmap --format=%aN -1", setup=blame_mailmap_attributes_and_excludes_outside),
    Attack("git check-attr -a README.md", setup=blame_mailmap_attributes_and_excludes_outside),
    Attack("git check-ignore -v --no-index SECRETOUTx", setup=blame_mailmap_attributes_and_excludes_outside),
    Attack("git blame README.md", setup=blame_ignores_revisions_from_the_env),
    Attack(
        "git blame README.md", mode="plan", setup=blame_ignores_revisions_from_git_credentials, deny=CREDENTIALS_DENIED
    ),
]


@pytest.mark.parametrize("attack", GIT_CONFIGURED_FILES, ids=named)
def test_files_git_configuration_names_must_be_readable(tmp_path: Path, attack: Attack) -> None:
    assert_not_allowed(in_own_project(tmp_path, attack), attack)


@pytest.mark.parametrize(
    "command", ["git config --global --list", "git config --get http.extraheader", "git config --list --show-origin"]
)
def test_git_config_does_not_print_a_denied_global_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    # agentui's own git calls read the configuration of its process's HOME, which is the commands' HOME in agentui
    # (the red team's engine ran commands with its scratch home, and agentui's git read the real ~/.gitconfig).
    attack = Attack(command, setup=token_in_the_global_gitconfig, deny=("Read(~/.gitconfig)",))
    root = in_own_project(tmp_path, attack)
    monkeypatch.setenv("HOME", str(root.parent / "home"))
    assert_not_allowed(root, attack)


# Repositories whose top or git directory is outside the project.
REPOSITORIES_OUTSIDE = [
    Attack("cd sub && git show HEAD:secret.txt", setup=sub_pointing_at_a_repository_outside),
    Attack("git -C sub log -p", setup=sub_pointing_at_a_repository_outside),
    Attack("cd sub && git log -p", setup=sub_pointing_at_a_repository_outside),
    Attack("git show HEAD:outside/secret.txt", setup=repository_around_the_project),
    Attack("git log -p", setup=repository_around_the_project),
    Attack("git show HEAD:home/.ssh/id_rsa", setup=repository_around_the_project),
    Attack("git grep SECRET", setup=repository_around_the_project),
]


@pytest.mark.parametrize("attack", REPOSITORIES_OUTSIDE, ids=named)
def test_a_repository_outside_the_project_is_not_shown_unasked(tmp_path: Path, attack: Attack) -> None:
    assert_not_allowed(in_own_project(tmp_path, attack), attack)


# Programs git runs from configuration and from what it shows: fsmonitor, gpg for signatures, submodules'
# configuration, textconv.
GIT_RUNS_PROGRAMS = [
    Attack("git status", mode="rules", setup=fsmonitor_in_config),
    Attack("git status -M", mode="rules", setup=fsmonitor_in_config),
    *(
        Attack(command, setup=signed_commit)
        for command in (
            "git log --format=%G? -1",
            "git log --pretty=format:%GS",
            "git show -s --format=%GK",
            "git log --format='%G?' --all",
        )
    ),
    Attack("git log -1", setup=signed_commit_shown_with_signatures),
    Attack("git show --stat", setup=signed_commit_shown_with_signatures),
    Attack("git log -1", setup=signed_commit_shown_with_ssh_signatures),
    *(
        Attack(command, setup=dirty_submodule_with_fsmonitor)
        for command in (
            "git status",
            "git diff",
            "git log -p -1",
            "git show",
            "git diff HEAD~1",
            "git log -p",
            "git show --stat",
            "git diff --stat",
            "git grep 1",
            "git ls-files",
            "git describe --dirty",
            "git diff-index HEAD",
            "git diff-files -p",
        )
    ),
    *(
        Attack(command, setup=submodule_with_a_textconv)
        for command in ("git log -p -1", "git show", "git show HEAD", "git diff HEAD~1 HEAD", "git log -p")
    ),
    *(
        Attack(command, setup=recursed_submodule_with_fsmonitor)
        for command in (
            "git grep x",
            "git ls-files",
            "git grep --untracked x",
            "git log -1",
            "git show --stat",
            "git rev-parse HEAD",
            "git branch",
            "git stash list",
            "git ls-files -m",
            "git ls-files -o",
        )
    ),
]


@pytest.mark.parametrize("attack", GIT_RUNS_PROGRAMS, ids=named)
def test_git_does_not_run_unasked_where_it_would_run_a_configured_program(tmp_path: Path, attack: Attack) -> None:
    assert_not_allowed(in_own_project(tmp_path, attack), attack)


GIT_DIFF_AND_LOG = ("Bash(git diff:*)", "Bash(git log:*)")

# Broad prefix allow rules: abbreviated long options, and git's options that write, run or read files.
PREFIX_RULES_ATTACKS = [
    Attack("cat --number-n /etc/hostname", mode="rules"),
    Attack("cat --show-a ~/.ssh/id_rsa", mode="rules", refused=True),
    Attack("cat --show-a .env", mode="rules", refused=True),
    Attack("cat --show-a linkdir/secret.txt", mode="rules"),
    Attack("ls --al ~/.ssh", mode="rules"),
    Attack("ls --almost ~/.ssh", mode="rules"),
    Attack("cat -A --show-nonp ~/.pypirc", mode="rules"),
    Attack(
        "git diff --output=/tmp/rt/cases/c0/home/.bashrc", mode="rules", setup=readme_changed, allow=GIT_DIFF_AND_LOG
    ),
    Attack(
        "git diff --no-index --ext-diff /tmp/rt/cases/c1/home/.ssh/id_rsa /dev/null",
        mode="rules",
        allow=GIT_DIFF_AND_LOG,
        refused=True,
    ),
    Attack("git diff --no-index --textconv ../outside/secret.txt /dev/null", mode="rules", allow=GIT_DIFF_AND_LOG),
    Attack("git diff --no-index --textconv .env /dev/null", mode="rules", allow=GIT_DIFF_AND_LOG, refused=True),
    Attack("git log --output=CLAUDE.md -1", mode="rules", allow=GIT_DIFF_AND_LOG),
    Attack(
        "git diff --ext-diff", mode="rules", setup=external_diff_in_config_and_readme_changed, allow=GIT_DIFF_AND_LOG
    ),
    Attack(
        "git diff --output=/tmp/rt/cases/bashrc/home/.bashrc",
        mode="rules",
        setup=readme_committed_and_changed_again,
        allow=("Bash(git diff:*)",),
    ),
]


@pytest.mark.parametrize("attack", PREFIX_RULES_ATTACKS, ids=named)
def test_a_prefix_allow_rule_does_not_cover_what_its_options_really_do(tmp_path: Path, attack: Attack) -> None:
    assert_not_allowed(in_own_project(tmp_path, attack), attack)


# test -a is "exists" as a unary operator: it looks at a file outside.
TEST_A = [
    Attack("[ -a ~/.ssh/id_rsa ] && echo exists"),
    Attack("test -a /etc/shadow && echo exists"),
    Attack("[ ! -a ~/.ssh/id_rsa ] || echo exists"),
]


@pytest.mark.parametrize("attack", TEST_A, ids=named)
def test_test_dash_a_looks_at_the_file_it_names(tmp_path: Path, attack: Attack) -> None:
    assert_not_allowed(in_own_project(tmp_path, attack), attack)


# Words bash fills on its own: $TERM and $SHELL are unset here, and bash gives them values.
SHELL_VALUES = [
    Attack('cat "./$TERM"', setup=links_named_like_shell_values),
    Attack("cat $TERM", setup=links_named_like_shell_values),
    Attack('cat ".$SHELL"', mode="plan", setup=links_named_like_shell_values),
]


@pytest.mark.parametrize("attack", SHELL_VALUES, ids=named)
def test_a_variable_bash_fills_itself_is_not_taken_for_empty(tmp_path: Path, attack: Attack) -> None:
    assert_not_allowed(in_own_project(tmp_path, attack), attack)


ASKED_SECRETS = ("Read(./secrets/**)",)

# An ask rule holds inside whatever reads the files it covers: walks, globs, git's objects.
ASK_RULES = [
    *(
        Attack(command, setup=secrets_directory, deny=(), ask=ASKED_SECRETS)
        for command in (
            "cat secrets/k",
            "grep -r SECRET .",
            "grep -r SECRET secrets",
            "find . | xargs cat",
            "diff secrets src",
            "rg SECRET",
            "head secrets/*",
            "cp -r secrets x",
            "sed -n p secrets/k",
        )
    ),
    Attack("git show HEAD:secrets/k", setup=secrets_directory_committed, deny=(), ask=ASKED_SECRETS),
    Attack("git grep SECRET", setup=secrets_directory_committed, deny=(), ask=ASKED_SECRETS),
]


@pytest.mark.parametrize("attack", ASK_RULES, ids=named)
def test_an_ask_rule_holds_for_every_reader_of_its_files(tmp_path: Path, attack: Attack) -> None:
    assert_not_allowed(in_own_project(tmp_path, attack), attack)


# Hard links: another name for a denied file, by device and inode.
HARD_LINKS = [
    Attack("grep -r KEY src", setup=hard_link_to_the_env, deny=("Read(./.env)",)),
    Attack("cat src/x.txt", setup=hard_link_to_the_env, deny=("Read(./.env)",), refused=True),
]


@pytest.mark.parametrize("attack", HARD_LINKS, ids=named)
def test_a_hard_link_to_a_denied_file_is_the_denied_file(tmp_path: Path, attack: Attack) -> None:
    assert_not_allowed(in_own_project(tmp_path, attack), attack)


def test_a_hard_link_to_a_file_a_glob_deny_rule_covers_is_refused_as_the_project_wires_the_engine(
    tmp_path: Path,
) -> None:
    # The red team built the engine without `denied_files` (the guard's enumeration of what the deny rules' globs
    # match, which the project always sets): without it, a hard link to ~/.ssh/id_rsa is not recognised.
    root = make_project(tmp_path / "cases" / "c0", hard_link_to_the_ssh_key)
    engine = engine_for(root, "default")
    finder = DeniedFinder()
    patterns = [rule.path for rule in engine.rules if rule.behavior == "deny" and rule.tool in READ_FAMILY]
    engine.denied_files = lambda: finder.find([pattern for pattern in patterns if pattern is not None])
    assert check(engine, "Bash", command="cat notes2.md").behavior == "deny"


def test_a_glob_that_expands_to_an_option_does_not_hide_a_denied_file(tmp_path: Path) -> None:
    root = make_project(tmp_path / "cases" / "c0", glob_that_expands_to_an_option)
    assert answer(root, Attack("cd j && jq -R . *")).behavior != "allow"


PROC_SELF_CWD = [
    # (the command, the shell's directory, agentui's own process's directory)
    (Attack("cat /proc/self/cwd/secret", setup=subdirectory_with_a_secret, deny=("Read(./sub/secret)",)), "sub", "."),
    (Attack("cat secret", setup=subdirectory_with_a_secret, deny=("Read(./sub/secret)",), refused=True), "sub", "."),
    (Attack("cat /proc/self/cwd/.env", deny=("Read(./.env)",)), None, ".."),
]


@pytest.mark.parametrize(
    ("attack", "shell_cwd", "process_cwd"), [pytest.param(*case, id=named(case[0])) for case in PROC_SELF_CWD]
)
def test_proc_self_cwd_is_the_shell_s_directory_not_agentui_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, attack: Attack, shell_cwd: str | None, process_cwd: str
) -> None:
    # agentui's own process runs in one directory (the project, or the directory above it); the shell has moved.
    root = in_own_project(tmp_path, attack)
    monkeypatch.chdir(root / process_cwd)
    assert_not_allowed(root, attack, cwd=shell_cwd)


# bypassPermissions (with the guard): deny rules hold however the command is spelt, and protected files are asked
# for. What the guard holds at run time anyway (denied files masked, agentui's and agent configuration read-only) is
# not repeated here.
BYPASS_DENIED = ("Read(./.env)", "Read(~/.ssh/**)", "Bash(rm:*)", "Bash(git push:*)", "Edit(./src/**)")
BYPASS_DENY_RULES = [
    *(
        Attack(command, mode="bypass", deny=BYPASS_DENIED, refused=True)
        for command in (
            "cat .env &",
            "(cat .env)",
            "{ cat .env; }",
            "cat .e${x}nv",
            "less .env",
            "more .env",
            "perl -pe1 .env",
            "tee < .env",
            "sh -c 'cat .env'",
            "bash -c 'cat .e\"nv\"'",
            "eval cat .env",
            "eval 'cat .e''nv'",
            "ln -s .env y; cat y",
            "cp .env y",
            "cat < .e''nv",
            "cat .en? | cat",
            "rm -f notes.md",
            "\\rm -f notes.md",
            "r''m -f notes.md",
            "'rm' -f notes.md",
            "command rm -f notes.md",
            "env rm -f notes.md",
            "/bin/rm -f notes.md",
            "git 2>/dev/null push",
            "git -c x=y push",
            "git --no-pager push",
            "timeout 5 git push",
            "echo x > src/a.py",
            "echo x > srclink/a.py",
            "cp README.md src/",
            "cp README.md srclink/",
            "tee src/a.py < README.md",
            "sed -i s/1/2/ src/app.py",
        )
    ),
    *(
        Attack(command, mode="bypass", deny=BYPASS_DENIED)
        for command in (
            "echo x > CLAUDE.md",
            "echo x > .git/config",
            "cp payload/CLAUDE.md .",
            "x=rm; $x -f notes.md",
            "g=git; $g push",
        )
    ),
]
# (Accepted as the limits of Bash deny rules: another program that does the same (`busybox rm`, `unlink`, `find
# -delete` are not `rm`), and a program agentui cannot read (sed's `e` command, python) running a denied command;
# what the Edit deny rules cover, the guard now keeps read-only whatever program writes, through a link made
# first (`ln -s src s2; echo x > s2/a.py`) included.)


@pytest.mark.parametrize("attack", BYPASS_DENY_RULES, ids=named)
def test_bypass_mode_holds_deny_rules_and_protected_files(plain_project: Path, attack: Attack) -> None:
    assert_not_allowed(plain_project, attack)


# grep --include patterns are globs that match .env however they are spelt.
GREP_INCLUDE = [
    Attack("grep -r --include='[.]env' KEY ."),
    Attack("grep -r --include='.en[v]' KEY ."),
    Attack("grep -r --include='.e\\nv' KEY ."),
    Attack("grep -r --include='*env' KEY ."),
    Attack("grep -r --include='.[a-z]nv' KEY ."),
    Attack("grep -r --exclude='x' --include='.en[v]' KEY ."),
    Attack("grep -rh --include '[.]*' KEY"),
    Attack("grep -r --include='[!a]env' KEY ."),
    Attack("grep -r --exclude-dir='[s]rc' KEY ."),
    Attack("grep -r --exclude-dir=* --include=.en? KEY ."),
    Attack("grep -r --include='.env/' KEY .", refused=True),
    Attack("grep -r --include=*/.env KEY .", refused=True),
]


@pytest.mark.parametrize("attack", GREP_INCLUDE, ids=named)
def test_grep_include_globs_do_not_hide_a_denied_file(plain_project: Path, attack: Attack) -> None:
    assert_not_allowed(plain_project, attack)


# git reading outside the project: --no-index, pathspecs, -C, blame's and ls-files' file options.
GIT_OUTSIDE = [
    "git grep --no-index SECRET ../outside",
    "git grep --no-index SECRET -- ../outside",
    "git grep --no-index SECRET linkdir",
    "git grep --no-index -e SECRET -- linkdir/secret.txt",
    "git grep --untracked SECRET linkdir",
    "git grep --no-index -f linkdir/secret.txt x",
    "git grep --no-index SECRET ~/.ssh",
    "git -C linkdir status",
    "git -C .. status",
    "git blame linkdir/secret.txt",
    "git blame --contents=linkdir/secret.txt README.md",
    "git ls-files -X linkdir/secret.txt -o",
    "git diff --no-index README.md linkdir/secret.txt",
    "git show HEAD:../outside/secret.txt",
    "git grep --no-index SECRET",
    "git grep --no-index -r SECRET .",
]


@pytest.mark.parametrize("command", GIT_OUTSIDE)
def test_git_does_not_read_outside_the_project_unasked(plain_project: Path, command: str) -> None:
    assert_not_allowed(plain_project, Attack(command))


def test_rg_following_links_out_of_the_project_asks(evil_link_project: Path) -> None:
    assert_not_allowed(evil_link_project, Attack("rg -L SECRET", deny=("Read(~/.ssh/**)",)))


# Prefix allow rules, one project for all: abbreviated options and globs naming denied files.
RULES_PROJECT = [
    Attack("cat --number-n ~/.ssh/*", mode="rules", refused=True),
    Attack("cat --number-n $HOME/.ssh/id_rsa", mode="rules", refused=True),
    Attack("cat --number-n ~/.ss?/id_rsa", mode="rules", refused=True),
    Attack("cat --number-n .en?", mode="rules", refused=True),
    Attack("cat --number-n .e*", mode="rules", refused=True),
    Attack('cat --number-n "$PWD/.env"', mode="rules", refused=True),
    Attack("cat --number-n ~+/.env", mode="rules", refused=True),
    Attack("cat --number-n srclink/../.env", mode="rules", refused=True),
    Attack("cat --show-a < .env", mode="rules", refused=True),
    Attack("cat --number-n .[e]nv", mode="rules", refused=True),
    Attack("ls --almost-all -R ~/.ssh", mode="rules"),
    Attack("cat --number-n linkdir/*", mode="rules"),
    Attack("echo x > .git/x", mode="rules"),
    Attack("cat --number-n /proc/self/cwd/.env", mode="rules"),
]


@pytest.mark.parametrize("attack", RULES_PROJECT, ids=named)
def test_a_cat_rule_never_reads_a_denied_or_outside_file(plain_project: Path, attack: Attack) -> None:
    assert_not_allowed(plain_project, attack)


# Hashes: a blob's hash names the denied file's content wherever a revision is accepted.
BLOB_HASHES = [
    "git show --stat <blob>",
    "git show --name-only <blob7>",
    "git log --stat -1 <blob>",
    "git show -s <blob>",
    "git show --no-patch <blob>",
    "git diff --stat <blob> <blob>",
    "git show --raw <blob>",
    "git show --shortstat <blob>",
]


@pytest.mark.parametrize("command", BLOB_HASHES)
def test_a_revision_that_may_be_a_denied_blob_s_hash_asks(blob_project: Path, command: str) -> None:
    blob = git(blob_project, "rev-parse", "HEAD~1:.env").strip()
    command = command.replace("<blob7>", blob[:7]).replace("<blob>", blob)
    assert_not_allowed(blob_project, Attack(command))


# The fuzzers' findings: sed labels and branches end at a blank (GNU sed), so what follows is a command.
SED_LABELS = [
    f"sed -e '{label}{blank}{command}' in"
    for label in (":L", ": L", "bL", "b L", "tL", "TL")
    for blank, command in (
        (" ", "w CW"),
        (" ", "W CW"),
        (" ", "r CR"),
        (" ", "R CR"),
        (" ", "e touch CE"),
        ("\t", "w CW"),
    )
]

# awk goes on after a comma, && or || at the end of a line (the print's redirection is part of the same statement),
# and after ++ or -- a slash divides (`a++ / 1; print /a/` holds no regular expression `/ 1; print /`).
AWK_CONTINUED = [
    f"{awk} '{program}'"
    for awk in ("gawk", "mawk")
    for before, first, between in (
        ("", '"x"', ",\n"),
        ("", '"x"', " &&\n"),
        ("", '"x"', " ||\n"),
        ("a++ / 1; ", "/a/", ", "),
        ("a-- / 2; ", "/a/", ", "),
    )
    for keyword, last in (("print", '"y"'), ("printf", '"%s"'))
    for redirect in ('> "CW"', '>> "CW"', '| "touch CE"')
    for program in ["BEGIN { " + before + keyword + " " + first + between + last + " " + redirect + " }"]
]


@pytest.mark.parametrize("command", SED_LABELS + AWK_CONTINUED)
def test_a_fuzzed_script_that_writes_or_runs_is_not_allowed(fuzz_project: Path, command: str) -> None:
    assert_not_allowed(fuzz_project, Attack(command))


# The red team's sweeps of the allowlist, each over one project: denied files named in new ways (refused), and reads
# outside, writes, programs run, and words the checker cannot know (asked).
BATCH1_REFUSED = [
    "cat .e''nv",
    'cat .e""nv',
    "cat .e\\nv",
    "cat ./.en[v]",
    "cat .[e]nv",
    "cat .en*",
    "cat .[!a]nv",
    "cat .[^a]nv",
    "cat .*",
    "cat ./.*",
    "cat */../.env",
    "cat src/../.env",
    "cat srclink/../.env",
    "cat ~+/.env",
    "cat ~+/src/../.env",
    'cat "$PWD"/.env',
    "cat $PWD/.env",
    "cat ${PWD}/.env",
    "cat $HOME/.ssh/id_rsa",
    "cat ~/.ssh/id_rsa",
    "cat ~/.ssh/*",
    "cat ~/.ss?/*",
    "cat /dev/fd/0 < .env",
    "cat < .env",
    "cat 0<.env",
    "cat <.env",
    "< .env cat",
    "cat -- .env",
    "cat - < .env",
    "cat /dev/stdin <.env",
    "cat .env 2>/dev/null",
    "head -c1000 .env",
    "cat .en\\v",
    "cat '.'env",
    "cat .env/",
    "cat .env/.",
    "cat ./././.env",
    "cat .//.env",
    "cat .env > /dev/null",
]
BATCH1_ASKED = [
    "cat ~/.pypirc",
    "cat /etc/hostname",
    "cat /proc/self/root/etc/hostname",
    "cat $HOME/../../outside/secret.txt",
    "cat ~root/.bashrc",
    "cat ~nobody/x",
    "cat ../outside/secret.txt",
    "cat linkdir/secret.txt",
    "cat linkdir/*",
    "cat l*/s*",
    "cat srclink/../linkdir/secret.txt",
    "echo $SHELL",
    "echo $MAILCHECK",
    "echo $TERM",
    "echo $HISTFILE",
    "echo $OPTERR",
    "echo $BASH",
    "echo $PS4",
    "cat $MAILCHECK",
    "cat $HOSTTYPE",
    "cat $OSTYPE",
    "cat $MACHTYPE",
    "cat README.md ;# x\ntouch /tmp/rt/CANARY_nl",
    "cat README.md\ntouch /tmp/rt/CANARY_nl2",
    "cat README.md;touch /tmp/rt/CANARY3",
    "cat\xa0.env",
    "echo x > /dev/fd/1",
]
BATCH2_REFUSED = [
    "sort --random-source=.env README.md",
    "head -n5 .env",
    "head --lines=1 -- .env",
    "tail -n +1 README.md .env",
    "cut -d= -f2 .env",
    "nl -b a .env",
    "tac -s x .env",
]
BATCH2_ASKED = [
    "sort -o/tmp/rt/CANARY README.md",
    "sort -mo /tmp/rt/CANARY README.md",
    "sort -k1 -o x README.md",
    "sort --o=x README.md",
    "sort -S 1 -T/tmp README.md",
    "sort -R --random-source /etc/hostname README.md",
    "sort --files0-from=- README.md",
    "grep -R SECRET sub",
    "grep -r SECRET .",
    "grep -rl KEY --exclude=*.md .",
    "grep SECRET sub/*",
    "grep -r KEY --exclude-dir=src .",
    "grep -f sub/evil README.md",
    "grep -e x -f sub/evil README.md",
    "grep --file=sub/evil README.md",
    "grep -rD skip x .",
    "grep -hr KEY",
    "grep -r KEY",
    "grep KEY -r",
    "grep -E -r 'SECRET' .",
    "grep -rZ x .",
    "grep -r SECRET --exclude-dir=. .",
    "grep -r --exclude-dir=* SECRET .",
    "od -An -c sub/evil",
    "hexdump -f sub/evil README.md",
    "hexdump -e '\"%s\"' sub/evil",
    "strings -f sub/evil",
    "strings -- @README.md",
    "xxd -s 0 sub/evil",
    "xxd -r README.md x",
    "column -t sub/evil",
    "base64 -w0 sub/evil",
    "md5sum -c README.md",
    "sha256sum --check README.md",
    "cmp README.md sub/evil",
    "file -L sub/evil",
    "file -m README.md x",
    "file -f README.md",
    "file -s README.md",
    "file -z README.md",
    "file -Z README.md",
    "wc -l sub/evil",
    "wc --files0-from=README.md",
    "ls -lR linkdir",
    "ls -LR sub",
    "ls --dereference -R sub",
    "ls sub/evil/..",
    "stat -L sub/evil",
    "stat --printf=%n linkdir/secret.txt",
    "du -L sub",
    "du --files0-from=README.md",
    "realpath sub/evil",
    "readlink -f sub/evil",
    "tree -l sub",
    "tree -L 1 linkdir",
    "tree --fromfile README.md",
    "tree -R -H . sub",
    "date -f sub/evil",
    "date -r sub/evil",
    "date -s x",
    "printf -vx y",
    "hostname -F x",
    "hostname --file=x",
    "timeout 5 xargs cat",
    "timeout --foreground 5 cat sub/evil",
]
BATCH3_REFUSED = [
    "sed -n 1p .env",
]
BATCH3_ASKED = [
    "sed -n 'p;w /tmp/rt/CANARY1' README.md",
    "sed -n '1{p};:x w /tmp/rt/CANARY2' README.md",
    "sed -n ':x;w /tmp/rt/CANARY3' README.md",
    "sed -n '/a/ba; :a w /tmp/rt/CANARY4' README.md",
    "sed 'y/abc/xyz/;w /tmp/rt/CANARY5' README.md",
    "sed 'a\\' -e 'w /tmp/rt/CANARY6' README.md",
    "sed -e 'a x\\' -e 'w /tmp/rt/CANARY7' README.md",
    "sed 's/x/y/;e touch /tmp/rt/CANARY8' README.md",
    "sed 's/x/y/ w /tmp/rt/CANARY9' README.md",
    "sed 's/x/y/gw /tmp/rt/CANARY10' README.md",
    "sed 's/x/y/3pw /tmp/rt/CANARY11' README.md",
    "sed 's/x/y/m;W /tmp/rt/CANARY12' README.md",
    "sed -n '1p;# comment\nw /tmp/rt/CANARY14' README.md",
    "sed -n 's;x;y;w /tmp/rt/CANARY16' README.md",
    "sed 'sxaxbxw /tmp/rt/CANARY17' README.md",
    "sed 's a b w /tmp/rt/CANARY18' README.md",
    "sed 's\ta\tb\tw /tmp/rt/CANARY19' README.md",
    "sed 'y;a;b;;w /tmp/rt/CANARY20' README.md",
    "sed -n '} ;w /tmp/rt/CANARY21' README.md",
    "sed -i.bak -n 1p README.md",
    "sed -n p linkdir/secret.txt",
    "sed 's/x/y/e' README.md",
    "sed -n 'b;w /tmp/rt/CANARY22' README.md",
    "sed -n 'b};w /tmp/rt/CANARY23' README.md",
    "sed -n 'bw /tmp/rt/CANARY24' README.md",
]
BATCH4_REFUSED = [
    "jq --rawfile a .env -n '$a'",
    "jq --rawfile a README.md -n '$a' .env",
    "jq -n --arg x y '$x' .env",
    "jq . .env",
    "jq -R . .env",
    "jq --arg a b --rawfile c .env . data.json",
    "find . -samefile .env",
]
BATCH4_ASKED = [
    "jq -n 'import \"a\" as a; 1'",
    "jq -n 'include\"a\"; 1'",
    "jq -L . -n 1",
    "jq -Rn 'input' linkdir/secret.txt",
    "jq -n --slurpfile a linkdir/secret.txt 1",
    "jq -n --rawfile a linkdir/secret.txt '$a'",
    "jq -n 'modulemeta'",
    "jq -f data.json",
    "jq --from-file data.json",
    "find -L sub2",
    "find sub2 -follow",
    "find sub2 -H",
    "find . -newer linkdir/secret.txt",
    "find . -fprint x",
    "find . -fprintf x %p",
    "find . -exec cat {} +",
    "find . -execdir ls \\;",
    "find . -delete",
    "find . -ok ls \\;",
    "find / -maxdepth 0",
    "find .. -maxdepth 1",
    "find ~ -maxdepth 0",
    "find . -files0-from README.md",
    "find sub -name '*.txt' | xargs cat",
    "find sub2 | xargs cat",
    "find sub2 | xargs ls",
    "find sub2 -print0 | xargs -0 ls -l",
    "find sub2 | xargs -n1 cat",
    "find sub2 | xargs -P2 wc -l",
    "find sub2 | xargs -r cat",
    "find sub2 | xargs -x cat",
    "find sub2 | xargs -t cat",
    "find sub2 | xargs --verbose cat",
    "find sub2 | xargs -I{} cat {}",
    "find sub2 | xargs -a README.md cat",
    "find sub2 | xargs -d '\\n' cat",
    "find sub2 | xargs -E x cat",
    "find sub2 | xargs -L1 cat",
    "find sub2 | xargs -s 100 cat",
    "find sub2 | xargs --arg-file=README.md cat",
    "find sub2 | xargs cat README.md",
    "find sub2 | xargs grep x",
    "find sub2 | xargs grep -r x",
    "find sub2 | xargs grep -l x",
    "find sub2 | xargs -n1 grep -f",
    "find sub2 | xargs sed -n p",
    "find sub2 | xargs awk '{print}'",
    "find sub2 | xargs jq .",
    "find sub2 | xargs git -C",
    "find sub2 | xargs -n2 git -C",
    "find sub2 | xargs timeout 5",
    "find sub2 | xargs nice",
    "find sub2 | xargs -n1 nice",
    "find sub2 | xargs -n1 timeout",
    "find sub2 | xargs xargs",
    "find sub2 | xargs test -e",
    "find sub2 | xargs diff",
    "find sub2 | xargs cmp",
    "find sub2 | xargs du -L",
    "find sub2 | xargs ls -L",
    "find sub2 | xargs stat -L",
    "find sub2 | xargs tree -l",
    "find sub2 | xargs file -L",
    "find sub2 | xargs wc",
    "find sub2 | xargs cp -t src",
    "find sub2 | xargs date -r",
    "find sub2 | xargs touch -r",
    "find sub2 | xargs date -f",
    "find sub2 | xargs tail -f",
    "find sub2 -maxdepth 1 | xargs ls",
    "find sub2 |& xargs cat",
    "find sub2 2>&1 | xargs cat",
    "find . | xargs cat",
    "find src srclink | xargs cat",
    "find sub2 | sort | xargs cat",
    "find sub2 -print0 | xargs cat",
    "find sub2 | xargs -0 cat",
    "find sub2 -print | xargs cat",
    "find sub2 -print -print0 | xargs -0 cat",
]


@pytest.mark.parametrize("command", BATCH1_REFUSED + BATCH3_REFUSED)
def test_a_denied_file_named_in_another_way_is_refused(plain_project: Path, command: str) -> None:
    assert_not_allowed(plain_project, Attack(command, refused=True))


@pytest.mark.parametrize("command", BATCH1_ASKED + BATCH3_ASKED)
def test_reads_outside_writes_and_values_bash_fills_are_not_allowed(plain_project: Path, command: str) -> None:
    assert_not_allowed(plain_project, Attack(command))


@pytest.mark.parametrize("command", BATCH2_REFUSED)
def test_a_denied_file_named_as_a_reader_s_operand_is_refused(evil_link_project: Path, command: str) -> None:
    assert_not_allowed(evil_link_project, Attack(command, refused=True))


@pytest.mark.parametrize("command", BATCH2_ASKED)
def test_reader_options_that_write_run_or_read_through_a_link_are_not_allowed(
    evil_link_project: Path, command: str
) -> None:
    assert_not_allowed(evil_link_project, Attack(command))


@pytest.mark.parametrize("command", BATCH4_REFUSED)
def test_jq_and_find_naming_a_denied_file_are_refused(names_and_links_project: Path, command: str) -> None:
    assert_not_allowed(names_and_links_project, Attack(command, refused=True))


@pytest.mark.parametrize("command", BATCH4_ASKED)
def test_jq_modules_find_actions_and_xargs_over_links_are_not_allowed(
    names_and_links_project: Path, command: str
) -> None:
    assert_not_allowed(names_and_links_project, Attack(command))


# Questions the red team found needless, since answered without one: a program that looks at a named link itself
# (file, stat and du without -L), nice's -N, sed's l and Q with a number, git diff --no-index over links.
NEEDLESS_WITH_A_LINK_OUT = [
    "file sub/evil",
    "stat sub/evil",
    "stat -c %s sub/evil",
    "du -sh linkdir",
    "nice -5 cat README.md",
]
NEEDLESS_PLAIN = ["sed 'l 5' README.md", "sed 'Q 5' README.md"]


@pytest.mark.parametrize("command", NEEDLESS_WITH_A_LINK_OUT)
def test_a_program_that_looks_at_a_link_itself_runs_unasked(evil_link_project: Path, command: str) -> None:
    assert answer(evil_link_project, Attack(command)).behavior == "allow"


@pytest.mark.parametrize("command", NEEDLESS_PLAIN)
def test_sed_commands_with_a_number_run_unasked(plain_project: Path, command: str) -> None:
    assert answer(plain_project, Attack(command)).behavior == "allow"


def test_git_diff_no_index_of_a_directory_with_a_link_out_runs_unasked(evil_link_project: Path) -> None:
    found = answer(evil_link_project, Attack("git diff --no-index sub /dev/null", deny=("Read(~/.ssh/**)",)))
    assert found.behavior == "allow"


EVERYDAY = [
    "ls -la",
    "ls -lah src",
    "git status",
    "git status -sb",
    "git diff",
    "git diff HEAD~1 --stat",
    "git log --oneline -n 10",
    "git log --graph --oneline --all",
    "git log --oneline --decorate",
    "git show HEAD~1 --stat",
    "git show HEAD:README.md",
    "git log -p -- README.md",
    "git blame -L 1,2 README.md",
    "git branch -vv",
    "git branch --show-current",
    "git remote -v",
    "git rev-parse HEAD",
    "git rev-parse --abbrev-ref HEAD",
    "git log -n 5 --pretty=format:'%h %s'",
    "git log --since='2 weeks ago' --oneline",
    "git diff HEAD~1...HEAD",
    "git shortlog -sn",
    "git tag --sort=-creatordate",
    "git log -S TODO --oneline",
    "git grep -n TODO",
    "git ls-files | wc -l",
    "git diff --name-only HEAD~1",
    "git log --stat -1",
    "git stash list",
    "git log --author=t --oneline",
    "git log -1 --format=%cd",
    "git describe --tags --always",
    "git config user.email",
    "git log origin/main..HEAD",
    "git cherry -v",
    "git reflog -n 5",
    "git show --name-only HEAD",
    "git diff --cached --stat",
    "git log --oneline -- src",
    "git log --follow -- README.md",
    "git whatchanged -1",
    "cat package.json",
    "head -50 src/app.py",
    "tail -n 20 README.md",
    "sed -n '1,20p' src/app.py",
    "cat -n src/app.py",
    "wc -l src/*.py",
    "grep -rn TODO src/",
    "grep -rIl TODO src",
    "rg TODO",
    "rg -n TODO src",
    "rg --files",
    "rg -l TODO",
    "rg TODO -g '*.ts'",
    "find . -name '*.py' -not -path './node_modules/*'",
    "find . -type f -name '*.ts' | xargs grep -l TODO",
    "find src -type f | head",
    "find . -maxdepth 2 -type d",
    "find . -type f -newer README.md",
    "tree -L 2",
    "tree -I node_modules",
    "tree -a -L 1",
    "du -sh node_modules",
    "ls -lt | head",
    "stat -c %s README.md",
    "echo $PATH",
    "env | grep PATH",
    "printenv | sort",
    "which python3",
    "python3 --version",
    "node --version",
    "node -v",
    "git --version",
    "bash --version",
    "sort data.csv | uniq -c | sort -rn",
    "awk -F, 'NR>1 {print $2}' data.csv",
    "cut -d, -f2 data.csv",
    "jq '.scripts' package.json",
    "jq -r '.scripts | keys[]' package.json",
    "grep -c TODO src/util.ts",
    "diff -u README.md notes.md",
    "md5sum README.md notes.md",
    "ls -1 | wc -l",
    "cat README.md | head -5",
    "head -n 3 README.md notes.md",
    "ls src/ | grep py",
    "ls -la .git",
    "cat .gitignore",
    "cat .git/config",
    "cat .git/HEAD",
    "cd src && ls -la && cd ..",
    "cd src; grep -n print app.py",
    "test -d node_modules || echo missing",
    "[ -f package.json ] && cat package.json",
    "date -u",
    "uname -s",
    "whoami",
    "pwd",
    "id",
    "ps aux",
    "ls -la node_modules/.bin",
    "git log --oneline | head -20",
    "git log --format='%an' | sort | uniq -c",
    "git diff --word-diff",
    "git diff --color-words",
    "git log -p -1 --stat",
    "sed -n '/TODO/p' src/util.ts",
    "awk '/TODO/' src/util.ts",
    "grep -E 'a|b' -r src",
    "grep -rw a src",
    "xxd README.md | head -2",
    "od -c README.md | head -2",
    "nl -ba README.md",
    "realpath src",
    "readlink -f srclink",
    "basename $PWD",
    "dirname $PWD",
    'echo "$HOME"',
    "seq 5",
    "sleep 1",
    "true && echo ok",
    "echo done; ls",
    "git show --stat --oneline HEAD",
    "git log --no-merges --oneline",
    "git diff main",
    "git diff -- src",
    "git status --porcelain",
    "git ls-tree -r HEAD --name-only",
    "git cat-file -t HEAD",
    "git count-objects -vH",
    "git worktree list",
    "git rev-list --count HEAD",
    "git merge-base HEAD HEAD~1",
    "git name-rev HEAD",
    "git for-each-ref --format='%(refname)'",
    "git check-ignore -v node_modules",
    "sort -u README.md",
    "tr -d '\\r' < README.md",
    "column -t -s, data.csv",
    "cat data.csv | awk -F, '{s+=$2} END {print s}'",
    "git log --format='%H' -n 1",
    "git diff --stat HEAD~1 HEAD",
    "ls -R src",
    "find . -name '*.md' | wc -l",
    "find . -empty",
]


@pytest.mark.parametrize("command", EVERYDAY)
def test_an_everyday_command_runs_unasked(everyday: Path, command: str) -> None:
    found = answer(everyday, Attack(command))
    assert found.behavior == "allow", found.reason


# Inputs meant to crash the check (empty, huge, deeply nested, invalid text): every mode answers.
CRASH_CASES = [
    "",
    " ",
    "\n",
    ";",
    "#",
    "cat " + "a" * 9990,
    "cat " + "a " * 4995,
    "echo " + "$HOME" * 2000,
    "ls " + "*/" * 200,
    "cat " + "[" * 500,
    "cat " + "'" + "x" * 100,
    "x" * 10001,
    "echo \udcff",
    "echo \ud800",
    "cat\x00x",
    "ls -" + "l" * 5000,
    "git " + "--no-pager " * 1000 + "log",
    "cat " + " ".join(["*"] * 100),
    "find " + "( " * 500 + "-print" + " )" * 500,
    "cd " + " && cd ".join(["src"] * 50),
    "cd src || cd srclink || cd tools || cd . || cd ..",
    "timeout " * 200 + "5 ls",
    "nice " * 300 + "ls",
    "ls | " * 500 + "ls",
    "echo ~" + "x" * 300,
    "cat ~" + "a" * 5000,
    "echo ${" + "A" * 5000 + "}",
    "sed -n " + "'" + "{" * 2000 + "p" + "}" * 2000 + "'",
    "awk '" + "(" * 3000 + "1" + ")" * 3000 + "'",
    "jq '" + "." * 9000 + "'",
    "cat ~\x00",
    "cat ./" + "../" * 3000,
    "ls " + "/." * 4000,
    "cat /proc/self/fd/0",
    "cat /dev/stdin",
    "ls ~nonexistentuser12345/",
    "cat ~+",
    "test",
    "[",
    "[ ]",
    "test -e",
    "[ -e ]",
    "cd",
    "cd ''",
    "git",
    "git -C",
    "git -C . ",
    "git log -n",
    "xargs",
    "find | xargs",
    "sed",
    "awk",
    "jq",
    "sort -k",
    "head -n",
    "cp",
    "mv x",
    "rm",
    "date -d",
    'echo "$("',
    "echo $'",
    "echo `",
    "a=b",
    "[ -v x ]",
    "test ! ! !",
    "[ ( ]",
    "cat < ",
    "cat >",
    "echo >&",
    "echo 2>&",
    "echo >&-x",
    "echo x >& 3",
    "echo x 3>&-",
    "cat\u3000README.md",
    "ＣＡＴ README.md",
    "cat README.md\u2029",
    "cat README.md \u0085",
    "cat -- ''",
    "cat '' ''",
    "ls ''/",
    "cat $'",
    "du -sh ~/../..",
    "find . -name '*' -print0 | xargs -0 -n1 -P4 cat",
    "cat */*/*/*/*/*",
    "grep -r x " + " ".join(["."] * 300),
]


@pytest.mark.parametrize("command", [pytest.param(c, id=f"{i}-{c[:30]!r}") for i, c in enumerate(CRASH_CASES)])
def test_the_check_answers_whatever_the_command(plain_project: Path, command: str) -> None:
    for mode in MODES:
        assert check(engine_for(plain_project, mode), "Bash", command=command).behavior in ("allow", "ask", "deny")


# Findings open when these tests were written, since closed: each asked as the red team asked it, and expected not to
# be allowed.


def test_git_log_check_does_not_print_a_denied_file_s_lines_from_the_history(tmp_path: Path) -> None:
    attack = Attack("git log --check", setup=env_with_trailing_blank_committed_then_removed)
    assert_not_allowed(in_own_project(tmp_path, attack), attack)


RUSTUP = Path("/root/.cargo/bin")
"""Where the red team's rustup was (outside HOME); cargo and rustc ask whether or not it is there."""


@pytest.mark.parametrize("attack", [Attack("cargo --version"), Attack("rustc --version", mode="plan")], ids=named)
def test_a_version_query_through_a_toolchain_shim_outside_home_asks(tmp_path: Path, attack: Attack) -> None:
    root = make_project(tmp_path / "cases" / "c0", rust_toolchain_from_the_project)
    engine = engine_for(root, attack.mode)
    engine.bash_environ = {
        **engine.bash_environ,
        "PATH": f"{RUSTUP}:/usr/local/bin:/usr/bin:/bin",
        "RUSTUP_HOME": "/root/.rustup",
        "CARGO_HOME": "/root/.cargo",
    }
    assert check(engine, "Bash", command=attack.command).behavior != "allow"


@pytest.mark.parametrize("command", ["du -X sub/evil", "du --exclude-from=sub/evil"])
def test_du_exclude_file_is_read_through_a_link_out_of_the_project(evil_link_project: Path, command: str) -> None:
    assert_not_allowed(evil_link_project, Attack(command))


@pytest.mark.parametrize("command", ["cat ~:", "cat ~:fz/*"])
def test_a_tilde_before_a_colon_is_expanded_as_bash_expands_it(tmp_path: Path, command: str) -> None:
    attack = Attack(command, setup=directories_beside_home_named_with_a_colon)
    assert_not_allowed(in_own_project(tmp_path, attack), attack)


# The projects the sweeps share (the red team ran each sweep over one project).


def _shared(factory: pytest.TempPathFactory, setup: Setup | None = None) -> Path:
    return make_project(factory.mktemp("rt") / "cases" / "shared", setup)


@pytest.fixture(scope="module")
def plain_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _shared(tmp_path_factory)


@pytest.fixture(scope="module")
def evil_link_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _shared(tmp_path_factory, evil_link_in_sub)


@pytest.fixture(scope="module")
def names_and_links_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _shared(tmp_path_factory, names_with_blanks_and_a_directory_link)


@pytest.fixture(scope="module")
def blob_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _shared(tmp_path_factory, env_committed_then_removed)


@pytest.fixture(scope="module")
def fuzz_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _shared(tmp_path_factory, sed_and_awk_scratch_files)


@pytest.fixture(scope="module")
def everyday(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _shared(tmp_path_factory, everyday_project)
