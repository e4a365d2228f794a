"""The red team's findings against the allowlist (issue 30), each kept as a regression: the walk-arounds it found
never run unasked again in any mode that lets anything through, and the needless questions it found stay answered
without one."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agentui.core.safety.permissions.engine import PermissionEngine
from agentui.core.safety.permissions.rules import parse_rule
from agentui.core.workspace import Workspace
from tests.core.test_allowlist import MODES, engine_for, project, verdict
from tests.support.permissions import check

__all__ = ["project"]  # (the fixture, shared with the allowlist's own tests)

GIT = ("git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgSign=false")


def git(root: Path, *args: str) -> str:
    return subprocess.run([*GIT, "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def commit_readme(root: Path) -> None:
    git(root, "add", "README.md")
    git(root, "commit", "-qm", "readme")


def commit_then_remove_env(root: Path) -> str:
    """Commits the denied .env, then removes it from the tree: it stays in the history. Returns its blob's hash."""
    commit_readme(root)
    git(root, "add", "-f", ".env")
    git(root, "commit", "-qm", "env")
    blob = git(root, "rev-parse", "HEAD:.env").strip()
    git(root, "rm", "-q", "--cached", ".env")
    git(root, "commit", "-qm", "no env")
    return blob


def never_allowed(engine_of: object, command: str) -> None:
    for mode in MODES:
        engine = engine_of(mode)  # type: ignore[operator]
        assert verdict(engine, command) != "allow", (mode, command)


# Scripts read by hand where the program's own reader differs from a simple one.
SCRIPTS = [
    "sed -n ':x w ../canary' README.md",  # (GNU sed ends a label at a blank; `w ../canary` is a command)
    "sed -n ':x;w ../canary' README.md",
    "awk '{ x = n++ /1; system(\"touch ../canary\"); y = 1/1 }' README.md",  # (after ++ a slash divides)
    "awk '{ x = n-- /1; system(\"touch ../canary\"); y = 1/1 }' README.md",
    "awk '{ print }\n{ system(\"touch ../canary\") }' README.md",
    "tree -o ../canary",
    "tree -Lo 1 ../canary",  # (tree gives each value letter the next word: -o takes ../canary)
    "tree -oL ../canary 1",
]

# Names a program visits that its operands do not show.
VISITS = [
    "find -L . | xargs cat",
    "find . -follow | xargs cat",
    "find . |& xargs cat",  # (find's error messages would reach xargs as names)
    "find . 2>&1 | xargs cat",
    "find linkdir/ | xargs cat",
    "diff -r . /etc",
    "diff -r src linkdir",
    "diff src/app.py linkdir",  # (a directory operand: diff reads linkdir/app.py)
    "diff -r src .",
    "grep -r --include=.env KEY .",
    "grep -r KEY .",
    "rg --hidden KEY",
    "rg -uu KEY",
    "cat .e*",
    "cat .en?",
    "jq -r . .e*",
    "xxd .e*",
    "jq -n --rawfile x .env '$x'",
]

# Paths the kernel reads differently from their text.
KERNEL_PATHS = [
    "cat /proc/self/cwd/.env",
    "cat /proc/self/root/etc/passwd",
    "cat /proc/self/cwd/../outside/secret.txt",
    "cd linkdir/../outside && cat secret.txt",  # (bash falls back to the physical path when the logical one fails)
    "cd srclink/.. && cat ../outside/secret.txt",
]

# Words bash fills or splits on its own.
SHELL_WORDS = [
    "cat $TERM",  # (unset here; bash may set it itself)
    "echo $(printf '\\udcff')",
    "git 2>/dev/null push origin",  # (bash passes the words after a redirection's target to git)
    "cat " + "$(" * 200 + ")" * 200,
]


@pytest.mark.parametrize("command", SCRIPTS + VISITS + KERNEL_PATHS + SHELL_WORDS)
def test_a_red_team_walk_around_is_never_allowed(project: Path, command: str) -> None:
    never_allowed(lambda mode: engine_for(project, mode), command)


GIT_HISTORY = [
    "git reflog -p",
    "git log -g -p",
    "git log --all -p",
    "git show HEAD~1",
    "git show BLOB",
    "git cat-file -p BLOB",
    "git cat-file blob BLOB",
    "git diff --check HEAD~2",  # (prints the lines it complains about)
    "git archive HEAD~1",
    "git format-patch -1 HEAD~1 --stdout",
    "git grep KEY HEAD~1",
    "git blame HEAD~1 -- .env",
]


@pytest.mark.parametrize("command", GIT_HISTORY)
def test_git_never_shows_a_denied_file_from_the_history_unasked(project: Path, command: str) -> None:
    blob = commit_then_remove_env(project)
    never_allowed(lambda mode: engine_for(project, mode), command.replace("BLOB", blob[:10]))


def test_git_names_and_hashes_from_a_history_with_a_denied_file_still_run_unasked(project: Path) -> None:
    commit_then_remove_env(project)
    engine = engine_for(project, "default")
    for command in ("git log --stat", "git log --oneline", "git log -g --oneline", "git cherry",
                    "git ls-tree -r HEAD~1", "git rev-list --all --objects",
                    "git diff HEAD~2 HEAD~1 --stat"):  # fmt: skip
        assert verdict(engine, command) == "allow", command


def test_git_stash_and_reflog_are_part_of_the_history(project: Path) -> None:
    commit_readme(project)
    engine = engine_for(project, "default")
    assert verdict(engine, "git stash show -p") == "allow"
    git(project, "add", "-f", ".env")
    git(project, "stash", "-q")  # (the denied file's content now lives only in the stash)
    assert (project / ".env").exists() is False
    fresh = engine_for(project, "default")  # (caches are stamped by refs; a new engine sees the same)
    for command in ("git stash show -p", "git log --all -p", "git reflog -p", "git log -g -p stash"):
        assert verdict(engine, command) != "allow", command
        assert verdict(fresh, command) != "allow", command


def test_git_gpg_formats_and_repositories_outside_ask(project: Path) -> None:
    commit_readme(project)
    for command in ("git log --format=%G? -1", "git log --format='%h %GS' -1", "git -C ../outside log",
                    "git --git-dir=../outside/.git log"):  # fmt: skip
        never_allowed(lambda mode: engine_for(project, mode), command)
    git(project, "config", "log.showSignature", "true")
    never_allowed(lambda mode: engine_for(project, mode), "git log -1")


@pytest.mark.parametrize(
    "config",
    [
        "[mailmap]\n\tfile = .env\n",
        "[core]\n\texcludesFile = .env\n",
        "[core]\n\tattributesFile = ../outside/secret.txt\n",
        "[blame]\n\tignoreRevsFile = .env\n",
        "[include]\n\tpath = ../.env\n",
    ],
)
def test_git_configuration_naming_a_file_it_reads_must_name_a_readable_one(project: Path, config: str) -> None:
    commit_readme(project)
    with (project / ".git" / "config").open("a") as file:
        file.write(config)
    for command in ("git status", "git log -1", "git blame README.md", "git check-attr -a README.md"):
        never_allowed(lambda mode: engine_for(project, mode), command)


def test_git_config_that_would_print_a_denied_file_asks(project: Path) -> None:
    never_allowed(lambda mode: engine_for(project, mode), "git config --file .env --list")
    never_allowed(lambda mode: engine_for(project, mode), "git config -f ~/.ssh/id_rsa -l")
    assert verdict(engine_for(project, "default"), "git config --get user.name") == "allow"


def test_git_deny_rules_hold_whatever_global_options_come_first(project: Path) -> None:
    home = project.parent / "home"
    rules = [parse_rule("Bash(git push:*)", "deny", "test", project_root=project, home=home)]
    engine = PermissionEngine(Workspace(root=project), rules, "bypassPermissions", home=home)
    engine.bash_environ = {"PATH": "/usr/bin:/bin", "HOME": str(home)}
    for command in ("git push", "git -C . push", "git --no-pager push origin", "git -c a.b=c push",
                    "git 2>/dev/null push origin", "git push $(echo origin)", "git --git-dir=.git push"):  # fmt: skip
        assert verdict(engine, command) == "deny", command
    assert verdict(engine, "git -C . status") == "allow"


def test_an_allow_rule_for_a_program_read_loosely_still_checks_its_file_arguments(project: Path) -> None:
    # The rule is the person's word for what npm does with its words, but never for a denied or protected file.
    engine = engine_for(project, "rules")  # (Bash(npm test:*), Bash(echo:*)...)
    assert verdict(engine, "npm test -- src") == "allow"
    for command in ("npm test .env", "npm test ~/.ssh/id_rsa", "npm test --unknown-option=.env", "npm test ./.e*"):
        assert verdict(engine, command) == "deny", command
    for command in ("npm test -- .git/config", "npm test .claude/settings.json", "npm test --x .bashrc"):
        assert verdict(engine, command) == "ask", command


def test_accept_edits_checks_where_cp_and_mv_really_create(project: Path) -> None:
    home = project.parent / "home"
    rules = [parse_rule("Edit(./src/**)", "deny", "test", project_root=project, home=home)]
    engine = PermissionEngine(Workspace(root=project), rules, "acceptEdits", home=home)
    engine.bash_environ = {"PATH": "/usr/bin:/bin", "HOME": str(home)}
    assert verdict(engine, "cp README.md r2.md") == "allow"
    for command in ("cp README.md src", "mv notes.md src/", "cp -r tools src", "mv tools src", "cp README.md linkdir",
                    "cp -r tools .git", "mv notes.md .claude", "rm -rf src", "rm -rf srclink/"):  # fmt: skip
        assert verdict(engine, command) != "allow", command


def test_a_file_command_runs_unasked_only_as_the_last_step(project: Path) -> None:
    # Later steps are checked against the disk as it is before the command runs; a file command before them could
    # change what their paths mean.
    engine = engine_for(project, "acceptEdits")
    for command in ("mv linkdir d && cat d/secret.txt", "rm -rf src && mv linkdir src && cat src/secret.txt",
                    "mkdir x; cat x/../.env", "cp -P linkdir l; ls l/"):  # fmt: skip
        assert verdict(engine, command) != "allow", command
    assert verdict(engine, "cat README.md && mkdir -p build") == "allow"


def test_ask_rules_hold_inside_a_walk_over_a_tree(project: Path) -> None:
    home = project.parent / "home"
    rules = [parse_rule("Read(./src/**)", "ask", "test", project_root=project, home=home)]
    engine = PermissionEngine(Workspace(root=project), rules, "default", home=home)
    engine.bash_environ = {"PATH": "/usr/bin:/bin", "HOME": str(home)}
    for command in ("grep -r print .", "cat src/app.py", "find . -type f | xargs cat", "head src/*", "wc -l */*.py"):
        assert verdict(engine, command) == "ask", command
    assert verdict(engine, "cat README.md") == "allow"


def test_a_version_query_asks_when_the_program_on_path_is_a_shim_under_home(project: Path) -> None:
    home = project.parent / "home"
    shims = home / "bin"
    shims.mkdir()
    shim = shims / "python3"
    shim.write_text("#!/bin/sh\ntouch ../canary\n")
    shim.chmod(0o755)
    engine = engine_for(project, "default")
    assert verdict(engine, "python3 --version") == "allow"
    engine.bash_environ = {**engine.bash_environ, "PATH": f"{shims}:/usr/bin:/bin"}
    assert verdict(engine, "python3 --version") != "allow"


# Everyday commands the red team found asked for no reason.
NEEDLESS = [
    "cd src && cd .. && ls",
    "cd src && ls && cd .. && cat README.md",
    "rg print",
    "rg -n print src",
    "find . -name '*.py'",
    "find src -type f -name '*.py' | xargs wc -l",
    "du -sh *",
    "file *",
    "git log -g --oneline -3",
    "cat README.md 2>/dev/null < /dev/null",
    "sed -n 'l 5' README.md",
    "nice -n 5 ls",
    "seq -1 1",
    "seq 5 -1 1",
    "jq .a data.json",
    "tee < README.md",
]


@pytest.mark.parametrize("command", NEEDLESS)
def test_an_everyday_command_the_red_team_found_asked_needlessly_runs_unasked(project: Path, command: str) -> None:
    commit_readme(project)
    found = verdict(engine_for(project, "default"), command)
    assert found == "allow", command


def test_a_nested_repository_or_submodule_config_is_checked_before_git_runs_there(project: Path) -> None:
    commit_readme(project)
    nested = project / "src" / "inner"
    subprocess.run(["git", "init", "-q", str(nested)], check=True)
    (nested / ".git" / "config").write_text("[core]\n\tpager = touch ../canary\n")
    os.symlink(nested, project / "innerlink")
    for command in ("git -C src/inner log", "cd src/inner && git log", "cd innerlink && git diff"):
        never_allowed(lambda mode: engine_for(project, mode), command)


def test_ps_lists_processes_unasked_but_never_their_environments(project: Path) -> None:
    engine = engine_for(project, "default")
    for command in ("ps aux", "ps -ef | grep python", "ps -eo pid,args --sort=-%mem", "ps axjf", "ps -p 1 -o comm="):
        assert verdict(engine, command) == "allow", command
    for command in ("ps eww", "ps auxe", "ps 1", "ps --unknown", "ps -eo pid,environ", "ps -o environ=",
                    "ps --format pid,env", "ps -O environ"):  # fmt: skip
        assert verdict(engine, command) == "ask", command


PYENV_SHIM = """#!/usr/bin/env bash
set -e
[ -n "$PYENV_DEBUG" ] && set -x

program="${{0##*/}}"

export PYENV_ROOT="{root}"
exec "{root}/libexec/pyenv" exec "$program" "$@"
"""


@pytest.mark.parametrize("safe_pyenv", [True, False])
def test_a_pyenv_shim_answers_its_version_unasked_only_where_pyenv_reads_names_not_paths(
    project: Path, safe_pyenv: bool
) -> None:
    home = project.parent / "home"
    root = home / ".pyenv"
    (root / "libexec").mkdir(parents=True)
    (root / "shims").mkdir()
    (root / "libexec" / "pyenv").write_text("#!/bin/sh\n")
    refusal = '  if [[ "$version" == ".." || "$version" == */* ]]; then\n' if safe_pyenv else "  true\n"
    (root / "libexec" / "pyenv-version-file-read").write_text(f"#!/usr/bin/env bash\n{refusal}")
    shim = root / "shims" / "python3"
    shim.write_text(PYENV_SHIM.format(root=root))
    shim.chmod(0o755)
    real = root / "versions" / "3.11.7" / "bin"
    real.mkdir(parents=True)
    (real / "python3").write_bytes(b"\x7fELF")
    (real / "python3").chmod(0o755)
    engine = engine_for(project, "default")
    engine.bash_environ = {**engine.bash_environ, "PATH": f"{root / 'shims'}:/usr/bin:/bin"}
    assert verdict(engine, "python3 --version") == ("allow" if safe_pyenv else "ask")
    engine.bash_environ = {**engine.bash_environ, "PATH": f"{real}:/usr/bin:/bin"}
    assert verdict(engine, "python3 --version") == "allow"  # (the real binary pyenv installed)
    shim.write_text(PYENV_SHIM.format(root=root) + "touch ../canary\n")  # (not pyenv's shim: something else)
    engine.bash_environ = {**engine.bash_environ, "PATH": f"{root / 'shims'}:/usr/bin:/bin"}
    assert verdict(engine, "python3 --version") == "ask"


def test_git_config_prints_the_persons_own_configuration_only_where_it_holds_no_secret(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = project.parent / "home"
    (home / ".gitconfig").write_text(
        '[user]\n\tname = P\n\temail = p@example.com\n[url "https://token@example.com/"]\n\tinsteadOf = https://e/\n'
    )
    monkeypatch.setenv("HOME", str(home))  # (git, run by the check itself, reads the person's config from here)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    git(project, "config", "core.bare", "false")
    engine = engine_for(project, "default")
    for command in ("git config --get user.name", "git config user.email", "git config --local --list",
                    "git config --get core.bare"):  # fmt: skip
        assert verdict(engine, command) == "allow", command
    for command in ("git config --list", "git config --global --list", "git config -l --show-origin",
                    "git config --get-regexp url",
                    "git config --get url.https://token@example.com/.insteadof"):  # fmt: skip
        assert verdict(engine, command) == "ask", command


# Round 2 of the red team


def bypass_engine(root: Path, *rules: tuple[str, str]) -> PermissionEngine:
    home = root.parent / "home"
    parsed = [parse_rule("Read(./.env)", "deny", "test", project_root=root, home=home)]
    parsed += [parse_rule(text, behavior, "test", project_root=root, home=home) for text, behavior in rules]
    engine = PermissionEngine(Workspace(root=root), parsed, "bypassPermissions", home=home)
    engine.bash_environ = {"PATH": "/usr/bin:/bin", "HOME": str(home)}
    engine.guard_available = lambda: True
    return engine


QUOTED_DENIED = [
    "git 'push' origin",
    'git p"ush"',
    "git \\push",
    "git --no-pager 'push'",
    "git -C . 'push'",
    "npm 'publish'",
    "rm '-rf' src",
    "/usr/bin/git 'push'",
    "git -c alias.p=push p origin",  # (an alias on the command line can stand for anything)
    "git --config-env=alias.p=HOME p",
    "echo push | xargs git",  # (xargs adds words: `git` can grow into `git push`)
    "git submodule foreach git push",  # (git runs the command for you)
    "git rebase --exec 'git push' HEAD",
    "git rebase -x 'npm publish' HEAD",
    "git bisect run rm -rf /",
]


@pytest.mark.parametrize("command", QUOTED_DENIED)
def test_deny_rules_see_commands_as_bash_runs_them_even_in_bypass_mode(project: Path, command: str) -> None:
    engine = bypass_engine(project, ("Bash(git push:*)", "deny"), ("Bash(npm publish:*)", "deny"),
                           ("Bash(rm -rf:*)", "deny"))  # fmt: skip
    assert verdict(engine, command) == "deny", command
    for allowed in ("git status", "git -c core.x=y status", "git rebase -i HEAD~2", "find src | xargs wc -l"):
        assert verdict(engine, allowed) == "allow", allowed


def test_a_deny_rule_on_a_link_keeps_the_file_it_leads_to(project: Path) -> None:
    (project / ".env").unlink()
    (project / "config" / "secrets").mkdir(parents=True)
    (project / "config" / "dev.env").write_text("KEY=secret\n")
    (project / "config" / "secrets" / "key").write_text("KEY\n")
    os.symlink("config/dev.env", project / ".env")
    os.symlink("config/secrets", project / "secrets")
    engine = engine_for(project, "default", deny=("Read(./.env)", "Read(./secrets/**)"))
    for command in ("cat config/dev.env", "cat config/*", "cat config/secrets/key"):
        assert verdict(engine, command) == "deny", command
    for command in ("rg KEY", "grep -r KEY config", "find config -type f | xargs cat"):
        assert verdict(engine, command) != "allow", command
    for path in ("config/dev.env", "config/secrets/key"):
        answer = check(engine, "Read", file_path=str(project / path))
        assert answer.behavior == "deny", (path, answer.reason)
    assert "Read(./secrets/**)" in check(engine, "Read", file_path=str(project / "config/secrets/key")).reason
    assert check(engine, "Read", file_path=str(project / "README.md")).behavior == "allow"


def test_bypass_asks_before_what_it_cannot_read_exactly_where_a_denied_file_has_a_hard_link(project: Path) -> None:
    # The masks cover the denied file's name; a hard link made before (src/hl) is the same file under a name no
    # enumeration finds: only the person can let an opaque program run.
    from agentui.core.safety.denied_files import DeniedFinder
    from agentui.core.safety.permissions.rules import READ_FAMILY

    engine = bypass_engine(project)
    finder = DeniedFinder()
    patterns = [rule.path for rule in engine.rules if rule.behavior == "deny" and rule.tool in READ_FAMILY]
    engine.denied_files = lambda: finder.find([pattern for pattern in patterns if pattern is not None])
    assert verdict(engine, "python3 -c 'print(1)'") == "allow"
    os.link(project / ".env", project / "src" / "hl")
    answer = check(engine, "Bash", command="python3 -c \"print(open('src/hl').read())\"")
    assert answer.behavior == "ask" and answer.hard, answer.reason
    assert verdict(engine, "ls src") == "allow"


def test_outside_a_utf8_locale_a_glob_matching_by_character_asks_where_a_name_is_not_ascii(project: Path) -> None:
    # (bash in the C locale matches `?` against one byte: `??` matches `é`, a link out of the project here)
    os.symlink(project.parent / "outside", project / "é")
    engine = engine_for(project, "default")
    engine.bash_environ = {k: v for k, v in engine.bash_environ.items() if k != "LANG"}
    for command in ("cat ??/secret.txt", "ls ??", "cat [^a]?/secret.txt"):
        assert verdict(engine, command) == "ask", command
    assert verdict(engine, "cat *.md") == "allow"
    engine.bash_environ = {**engine.bash_environ, "LANG": "C.UTF-8"}
    assert verdict(engine, "ls ?") == "ask"  # (the link leads out: asked for that, by character)


def test_a_program_an_allow_rule_lets_run_is_checked_for_every_way_its_words_can_name_a_denied_file(
    project: Path,
) -> None:
    home = project.parent / "home"
    rules = [parse_rule(text, "allow", "test", project_root=project, home=home)
             for text in ("Bash(make:*)", "Bash(npm test:*)")]  # fmt: skip
    rules.append(parse_rule("Read(./.env)", "deny", "test", project_root=project, home=home))
    engine = PermissionEngine(Workspace(root=project), rules, "default", home=home)
    engine.bash_environ = {"PATH": "/usr/bin:/bin", "HOME": str(home)}
    for command in ("make -pf.env", "make -f.env -p", "make -pf./.env"):  # (getopt: -p, then -f with `.env`)
        assert verdict(engine, command) == "deny", command
    assert verdict(engine, "find . | xargs npm test") == "ask"
    assert verdict(engine, "make -j4 build") == "allow"


def test_round_two_metadata_outside_asks_and_the_needless_questions_are_gone(project: Path) -> None:
    engine = engine_for(project, "default")
    for command in ("find . -newerma /etc/shadow", "realpath --relative-to=/root .", "readlink -f linkdir",
                    "ulimit -n 100"):  # fmt: skip
        assert verdict(engine, command) == "ask", command
    for command in ("find . -newermt 2024-01-01", "readlink linkdir", "readlink -f srclink", "ulimit -a", "locale",
                    "locale -a", "getconf PAGE_SIZE"):  # fmt: skip
        assert verdict(engine, command) == "allow", command


def test_ripgreps_globs_and_types_read_the_hidden_files_they_match(project: Path) -> None:
    (project / ".profile").write_text("TOKEN=x\n")
    engine = engine_for(project, "default", deny=("Read(./.env)", "Read(./.profile)"))
    for command in ("rg -g '*' KEY", "rg --glob=.env KEY .", "rg --iglob .ENV KEY", "rg -t sh TOKEN",
                    "rg -g 'src/*' -g '.e*' KEY"):  # fmt: skip
        assert verdict(engine, command) != "allow", command
    for command in ("rg TODO -g '*.py'", "rg -t py print", "rg -g '!*.md' print", "rg print"):
        assert verdict(engine, command) == "allow", command


def test_git_never_shows_a_blob_named_on_standard_input_or_by_cat_file(project: Path) -> None:
    commit_readme(project)
    git(project, "add", "-f", ".env")
    git(project, "reset", "-q", "--", ".env")  # (a dangling blob: no listing names it)
    blob = git(project, "hash-object", ".env").strip()
    for command in (f"echo {blob} | git show --stdin", "git show --stdin < notes.md", "git log --stdin -p",
                    f"git cat-file -p {blob}", f"git cat-file blob {blob}", f"git cat-file -p {blob[:8]}"):  # fmt: skip
        never_allowed(lambda mode: engine_for(project, mode), command)
    assert verdict(engine_for(project, "default"), f"git cat-file -t {blob}") == "allow"  # (its type only)


@pytest.mark.parametrize("config", ["[format]\n\tpretty = %h %G? %s\n", "[pretty]\n\tsig = %h %GS\n"])
def test_a_pretty_format_in_the_repository_that_checks_signatures_makes_git_ask(project: Path, config: str) -> None:
    commit_readme(project)
    with (project / ".git" / "config").open("a") as file:
        file.write(config)
    for command in ("git log -1", "git show", "git log --pretty=sig"):
        never_allowed(lambda mode: engine_for(project, mode), command)


def test_a_relative_path_entry_is_searched_from_the_commands_directory(project: Path) -> None:
    tools = project / "src" / "node_modules" / ".bin"
    tools.mkdir(parents=True)
    (tools / "jq").write_text("#!/bin/sh\ntouch ../canary\n")
    (tools / "jq").chmod(0o755)
    engine = engine_for(project, "default")
    engine.bash_environ = {**engine.bash_environ, "PATH": "./node_modules/.bin:/usr/bin:/bin"}
    assert verdict(engine, "cd src && jq . ../data.json") == "ask"
    engine.bash_environ = {**engine.bash_environ, "PATH": ":/usr/bin:/bin"}  # (an empty entry is the directory)
    assert verdict(engine, "cd src/node_modules/.bin && jq . ../../../data.json") == "ask"


def test_cp_r_asks_where_a_link_already_sits_in_what_it_copies_over(project: Path) -> None:
    home = project.parent / "home"
    (home / ".bashrc").write_text("# mine\n")
    (project / "build" / "tools").mkdir(parents=True)
    os.symlink(home / ".bashrc", project / "build" / "tools" / "build.sh")
    (project / "dest").mkdir()
    os.symlink(home / ".bashrc", project / "dest" / "app.py")
    engine = engine_for(project, "acceptEdits")
    for command in ("cp -r tools build", "cp -rf tools build", "cp -r src/. dest", "cp -rT src dest"):
        assert verdict(engine, command) == "ask", command
    assert verdict(engine, "cp -r tools fresh") == "allow"


def test_git_reads_its_file_operands_from_the_c_directory_and_walks_what_it_is_given(project: Path) -> None:
    commit_readme(project)
    os.symlink("..", project / "src" / "up")
    for command in ("git -C src diff --no-index app.py up/../outside/secret.txt",
                    "git -C src blame --contents up/../outside/secret.txt app.py",
                    "cd src && git grep --no-index KEY ..", "git -C src grep --untracked KEY ..",
                    "git -C src grep --no-index KEY ..", "git grep --no-index KEY ../outside"):  # fmt: skip
        never_allowed(lambda mode: engine_for(project, mode), command)
    assert verdict(engine_for(project, "default"), "git -C src diff --no-index app.py ../README.md") == "allow"


def test_a_file_command_that_moves_nothing_may_come_before_more_and_others_may_not(project: Path) -> None:
    """rm, rmdir, touch and sed -i leave every later path leading where the check saw it lead; a copy, a move, a link
    or a new directory may not, nor may anything before git (removing a `.git` file changes the repository)."""
    (project / "draft.txt").write_text("draft\n")
    engine = engine_for(project, "acceptEdits")
    for command in ("rm draft.txt && sed -i 's/print/log/' src/app.py", "touch ran.txt && ls", "rm -f x; cat notes.md"):
        assert verdict(engine, command) == "allow", command
    for command in ("rm draft.txt && git status", "mv draft.txt d && cat d", "cp -P srclink d && cat d/app.py",
                    "ln -s ../outside d && cat d/secret.txt", "mkdir d && ls d",
                    "touch src/.git && git -C src log",
                    # (files the check reads to judge what follows: which files ripgrep reads)
                    "sed -i 's/x/!.env/' .gitignore && rg KEY", "rm .gitignore && rg KEY",
                    "touch .ignore && rg KEY"):  # fmt: skip
        assert verdict(engine, command) == "ask", command


def test_a_file_command_never_comes_before_a_glob_nor_beside_anything_in_a_pipeline(project: Path) -> None:
    """The third red team's finds: a name `touch` makes joins a later glob's expansion as an option; a name `rm`
    takes away leaves a later glob to bash as the literal pattern (a link the check never resolved); a pipeline runs
    its parts at once."""
    (project / "x.txt").write_text("x\n")
    (project / "hooks").mkdir()
    (project / "hooks" / "pre-commit").write_text("touch pwned\n")
    (project / "d").mkdir()
    os.symlink("../outside/secret.txt", project / "x[.]txt")
    engine = engine_for(project, "acceptEdits")
    attacks = [
        "touch './-e1eecho touch PWNED|sh #.txt' && sed -n p *.txt",
        "touch -- -t.git && cp -r hooks *t.git",
        "touch -- -t.claude && cp notes.md *t.claude",
        "cd d && touch ./-o.envrc && sort *",
        "touch ./--files0-from=.env && wc *from*",
        "touch ./-f.env && file *f.env",
        "rm x.txt && cat x[.]txt",
        "rm x.txt && cp -r hooks x[.]txt",
        "touch './-e1eecho touch PWNED|sh #.txt' | sed -n p *.txt",
        "sed -n p *.txt | touch a",
        "touch ./-printf && find . -name x.txt | xargs cat",
        # (a redirection makes a name as touch does)
        "echo x > ./-t.git && cp -r hooks *t.git",
        "cat x.txt > ./-n; cat *",
        "echo '!.env' >> .gitignore && rg KEY",
        # (the fourth red team's: the same words again after the write, judged against the disk before it)
        "rg x * > --pre=sh; rg x *",
        "diff *.md > --from-file=.env; diff *.md",
        "sort *.md > --output=CLAUDE.md && sort *.md",
        "rg --no-filename -N . > .ignore; rg --no-filename -N .",
        "git status > out && git status",
    ]
    for command in attacks:
        assert verdict(engine, command) != "allow", command
    assert verdict(engine, "cat x[.]txt") == "allow"  # (alone, the glob means x.txt then too)
    for command in ("echo hi > out.txt && cat out.txt", "ls > /dev/null && cat *.md", "cat *.md > ./-n"):
        assert verdict(engine, command) == "allow", command
