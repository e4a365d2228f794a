"""What runs without a question is what agentui understands completely (issue 30): each class of construct, option
and path trick, in every mode that lets anything through — default (read-only commands), plan, acceptEdits (file
commands), and prefix allow rules — never allowed; and the everyday read-only commands never asked."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agentui.core.safety.permissions.engine import PermissionEngine
from agentui.core.safety.permissions.rules import parse_rule
from agentui.core.workspace import Workspace
from tests.support.permissions import PREFIX_RULES, check

MODES = ["default", "plan", "acceptEdits", "rules"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "README.md").write_text("# readme\nline two\n")
    (root / "notes.md").write_text("notes\n")
    (root / "data.json").write_text('{"a": 1}\n')
    (root / ".env").write_text("KEY=secret\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print(1)\n")
    (root / "tools").mkdir()
    (root / "tools" / "build.sh").write_text("touch ../canary\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    os.symlink(outside, root / "linkdir")
    os.symlink(root / "src", root / "srclink")
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / ".ssh").mkdir()
    (tmp_path / "home" / ".ssh" / "id_rsa").write_text("KEY")
    return root


def engine_for(
    root: Path, mode: str, *, deny: tuple[str, ...] = ("Read(./.env)", "Read(~/.ssh/**)")
) -> PermissionEngine:
    home = root.parent / "home"
    rules = [parse_rule(text, "deny", "test", project_root=root, home=home) for text in deny]
    if mode == "rules":
        rules += [parse_rule(text, "allow", "test", project_root=root, home=home) for text in PREFIX_RULES]
    engine = PermissionEngine(Workspace(root=root), rules, "default" if mode == "rules" else mode, home=home)  # type: ignore[arg-type]
    engine.bash_environ = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
    return engine


def verdict(engine: PermissionEngine, command: str) -> str:
    return check(engine, "Bash", command=command).behavior


# Every construct outside the small grammar asks (or, in plan mode, is refused).
GRAMMAR = [
    "echo $(touch ../canary)",
    "echo `touch ../canary`",
    "cat <(touch ../canary)",
    "echo $((1+2))",
    "(( x = 1 ))",
    "echo $[1+2]",
    "x=1",
    "x=1 ls",
    "export PATH=.",
    "declare -i x=1",
    "echo ${a[0]}",
    "echo ${#HOME}",
    "echo ${HOME#/}",
    "echo ${HOME%/}",
    "echo ${HOME/a/b}",
    "echo ${HOME^^}",
    "echo ${HOME,,}",
    "echo ${HOME@Q}",
    "echo ${!HOME}",
    "echo ${HOME:-x}",
    "echo ${HOME:0:2}",
    "cat <<EOF\nx\nEOF",
    "cat <<< x",
    "f() { touch ../canary; }; f",
    "[[ -f README.md ]]",
    "test -v 'a[$(touch ../canary)]'",
    "printf -v PATH x",
    "read x < README.md",
    "echo a \\\nb",
    "ls &",
    "(ls)",
    "{ ls; }",
    "if true; then ls; fi",
    "for f in *.md; do cat $f; done",
    "while false; do ls; done",
    "case x in x) ls;; esac",
    "! ls",
    "echo {a,b}",
    "echo {1..3}",
    "echo $'\\x41'",
    'echo $"x"',
    "echo $1",
    "echo $@",
    "echo $?",
    "echo $$",
    "echo $RANDOM",
    "echo ~-",
    "time ls",
    "coproc ls",
    "ls\rrm -rf ../canary",
    "ls\r\ncat README.md",
    "echo a\x0bb",
]


@pytest.mark.parametrize("command", GRAMMAR)
@pytest.mark.parametrize("mode", MODES)
def test_a_construct_outside_the_grammar_is_never_allowed(project: Path, command: str, mode: str) -> None:
    assert verdict(engine_for(project, mode), command) == ("deny" if mode == "plan" else "ask"), command


# Options that write, run, or read a file named in the option; an option not in a program's table asks.
OPTIONS = [
    "sort -o /tmp/x README.md",
    "sort -ro/tmp/x README.md",
    "sort --output=/tmp/x README.md",
    "sort --outp=/tmp/x README.md",
    "sort --compress-program=sh README.md",
    "sort -T /tmp README.md",
    "sort --files0-from=list README.md",
    "uniq README.md out.txt",
    "xxd README.md out.txt",
    "xxd -r README.md",
    "tree -o out.txt",
    "find . -delete",
    "find . -exec rm {} ;",
    "find . -execdir rm {} +",
    "find . -ok rm {} ;",
    "find . -fprint /tmp/x",
    "find . -fls /tmp/x",
    "find . -files0-from list",
    "find -D exec .",
    "file -C -m magic",
    "file -z README.md",
    "strings @README.md",
    "hexdump -f .env README.md",
    "git blame -S .env README.md",
    "git blame --contents .env README.md",
    "diff --from-file=.env README.md",
    "diff -X .env src README.md",
    "diff --paginate README.md notes.md",
    "wc --files0-from=.env",
    "du --files0-from=.env",
    "jq --rawfile x .env -n $x",
    "jq --slurpfile x .env -n $x",
    "jq -f prog.jq data.json",
    "jq -L lib . data.json",
    "jq 'import \"x\" as y; .' data.json",
    "jq -n 'include \"x\"; 1'",
    "awk '{print ARGV[1]}' README.md",
    "awk 'BEGIN{ARGV[1]=\".env\"} {print}' README.md",
    "awk -v ARGC=3 '{print}' README.md",
    "awk '{system(\"touch ../canary\")}' README.md",
    "awk '{print > \"/tmp/x\"}' README.md",
    "awk '{print | \"sh\"}' README.md",
    "awk '{\"id\" | getline x; print x}' README.md",
    "awk 'BEGIN{getline < \".env\"; print}'",
    "awk -f prog.awk README.md",
    "awk '@include \"x\"' README.md",
    "sed -n 'w /tmp/x' README.md",
    "sed 's/a/b/w /tmp/x' README.md",
    "sed 's/a/b/e' README.md",
    "sed '1e touch ../canary' README.md",
    "sed 'r .env' README.md",
    "sed -f script.sed README.md",
    "sed 's/[/]/p;p/w /tmp/x' README.md",
    "grep -f .env README.md",
    "grep --exclude-from=.env x README.md",
    "grep -r --include=.env KEY .",
    "rg --pre=sh x",
    "rg --pre sh x",
    "rg -z x",
    "rg --search-zip x",
    "rg --hostname-bin=sh x",
    "git grep -O'touch ../canary' x",
    "git grep --open-files-in-pager=sh x",
    "git -c core.pager=sh log",
    "git --git-dir=/tmp/x log",
    "git --work-tree=/ status",
    "git --exec-path=. status",
    "git log --output=/tmp/x",
    "git log --ext-diff -p",
    "git diff --textconv",
    "git show --show-signature",
    "git ls-remote",
    "git remote show origin",
    "git fetch",
    "git branch evil",
    "git tag evil",
    "git stash",
    "git config user.name x",
    "git config --file .env --list",
    "git reflog expire --all",
    "git cat-file --batch",
    "git help log",
    "shuf -o out.txt README.md",
    "shuf --output=out.txt README.md",
    "shuf README.md out.txt",
    "shuf --random-source=../canary README.md",
    "lscpu",  # (it reads /sys and /proc files no rule makes public)
    "date -s 2020-01-01",
    "date --set=2020-01-01",
    "date 010100002020",
    "hostname evil",
    "env -S 'touch ../canary'",
    "env touch ../canary",
    "command touch ../canary",
    "xargs touch < README.md",
    "timeout 5 touch ../canary",
    "nice touch ../canary",
    "nohup touch ../canary",
    "tail --pid=1 README.md",
    "ls --hyperlink=always --color=always -l | sh",
    'python3 -c \'open("../canary", "w")\'',
    "node -e 1",
    "bash tools/build.sh",
    "sh -c 'touch ../canary'",
    "./tools/build.sh",
    "/usr/bin/touch ../canary",
]


@pytest.mark.parametrize("command", OPTIONS)
@pytest.mark.parametrize("mode", MODES)
def test_an_option_outside_a_programs_table_is_never_allowed(project: Path, command: str, mode: str) -> None:
    assert verdict(engine_for(project, mode), command) in ("ask", "deny"), command
    if mode == "plan":
        assert verdict(engine_for(project, mode), command) == "deny", command


# Paths are resolved as the kernel resolves them, with every way bash names a file, before deny and containment.
PATHS = [
    "cat .env",
    "cat ./.env",
    "cat src/../.env",
    "cat srclink/../.env",
    "cat '.env'",
    "cat .en?",
    "cat .e*",
    "cat .[e]nv",
    "cat .[!x]nv",
    "cat .[^x]nv",
    "head -c 99 ~+/.env",
    'cat "$PWD/.env"',
    "cat $HOME/.ssh/id_rsa",
    "cat ~/.ssh/id_rsa",
    "cat ~/.ssh/*",
    "cat linkdir/secret.txt",
    "cat link*/secret.txt",
    "cat ../outside/secret.txt",
    "cat /etc/passwd",
    "base64 .env",
    "xxd .env",
    "od -c .env",
    "cut -c1- .env",
    "sort .env",
    "diff .env README.md",
    "cp .env copied",
    "mv .env moved",
    "cd .. && cat outside/secret.txt",
    "cd linkdir && cat secret.txt",
    "cd src && cat ../.env",
    "cat < .env",
    "grep -r KEY .",
    "grep -R x .",
    "grep KEY -r .",
    "grep -d recurse KEY .",
    "rg --hidden KEY",
    "rg -L x .",
    "find . | xargs cat",
    "find . -name '.env' | xargs cat",
    "find . -print0 | xargs -0 cat",
    "find linkdir | xargs cat",
    "ls -R linkdir",
    "ls -la /",
    "du -sh ~",
    "find / -name secret.txt",
    "find -L . -name x",
    "git -C .. status",
    "test -e ~/.ssh/id_rsa",
    "stat ../outside",
    "ls ~root",
    "ls -R ~",
    "ls ~/.ssh",
    "ls /",
    "ls /tmp",
    "cat /etc/passwd",
    "cat /etc/shadow",
    "cat /proc/self/environ",
    "cat /proc/1/cmdline",
    "cat /usr/../etc/passwd",
    "grep -r x /usr/include",
    "find . -exec cat {} + -name x",
    "find . linkdir -exec cat {} +",
    "find linkdir -exec cat {} +",
    "find .. -exec cat {} +",
    "find . -name .env -exec cat {} +",
    "find . -exec cat {} \\; -exec cat {} \\;",
    "find . -exec cat {}.bak \\;",
    "find . -exec cat {} {} +",
    "find . -execdir cat {} +",
    "find . -ok cat {} \\;",
    "find . -exec sh -c 'cat $0' {} \\;",
    "find . -name '*.md' -exec rm {} +",
    "find . -exec cat {} + | xargs cat",
    "git ls-files --full-name | xargs cat",
    "git ls-files -s | xargs cat",
    "git ls-files .. | xargs cat",
    "git -C .. ls-files | xargs cat",
    "git ls-files -z | xargs cat",
    "git ls-files | xargs rm",
]


@pytest.mark.parametrize("command", PATHS)
@pytest.mark.parametrize("mode", MODES)
def test_a_path_is_checked_where_the_kernel_takes_it(project: Path, command: str, mode: str) -> None:
    assert verdict(engine_for(project, mode), command) != "allow", command


def test_a_deny_rule_denies_whatever_names_the_file(project: Path) -> None:
    engine = engine_for(project, "default")
    for command in (
        "cat src/../.env",
        "cat srclink/../.env",
        "cat .en?",
        "cat ~+/.env",
        'cat "$PWD/.env"',
        "cat ~/.ssh/id_rsa",
    ):
        assert verdict(engine, command) == "deny", command


def test_a_hard_link_to_a_denied_file_is_denied_too(project: Path) -> None:
    os.link(project / ".env", project / "innocent.txt")
    assert verdict(engine_for(project, "default"), "cat innocent.txt") == "deny"
    assert verdict(engine_for(project, "default"), "grep -r x src innocent.txt") == "deny"


def test_a_program_inside_the_project_on_path_never_runs_unasked(project: Path) -> None:
    (project / "bin").mkdir()
    fake = project / "bin" / "cat"
    fake.write_text("#!/bin/sh\ntouch ../canary\n")
    fake.chmod(0o755)
    engine = engine_for(project, "default")
    engine.bash_environ = {**engine.bash_environ, "PATH": f"{project / 'bin'}:/usr/bin:/bin"}
    assert verdict(engine, "cat README.md") == "ask"


def test_an_environment_that_changes_how_bash_reads_commands_makes_everything_ask(project: Path) -> None:
    engine = engine_for(project, "default")
    for variable in ("BASH_ENV", "SHELLOPTS", "BASHOPTS", "GLOBIGNORE", "POSIXLY_CORRECT", "BASH_FUNC_cat%%"):
        engine.bash_environ = {"PATH": "/usr/bin:/bin", variable: "x"}
        assert verdict(engine, "cat README.md") == "ask", variable


def test_names_xargs_would_split_make_find_xargs_ask(project: Path) -> None:
    (project / "src" / "a b.py").write_text("x")
    engine = engine_for(project, "default")
    assert verdict(engine, "find src -name '*.py' | xargs wc -l") == "ask"
    assert verdict(engine, "find src -name '*.py' -print0 | xargs -0 wc -l") == "allow"


# Everyday read-only commands: none of them asks, in default or plan mode.
EVERYDAY = [
    "command -v git",
    "env | sort",
    "base64 README.md",
    "xxd README.md | head",
    "stat README.md",
    "du -sh",
    "du -sh src",
    "df -h",
    "file README.md",
    "git log",
    "git log --oneline -10",
    "git log -p -2",
    "git show",
    "git show --stat HEAD",
    "git diff",
    "git diff --stat",
    "git diff --cached",
    "git blame README.md",
    "git branch",
    "git branch -a",
    "git status",
    "git status --short",
    "git rev-parse --show-toplevel",
    "git ls-files",
    "git remote -v",
    "git stash list",
    "git tag -l",
    "git config --get user.name",
    "ls",
    "ls -la",
    "ls -la src",
    "ls *.md",
    "tree",
    "jq . data.json",
    "jq -r .a data.json",
    "sed -n 1,5p README.md",
    "sed -n '/readme/p' README.md",
    "sed 's/a/b/g' README.md",
    "awk '{print $1}' README.md",
    "awk -F: '{print $1}' README.md",
    "awk 'NR==1' README.md",
    "sort README.md | uniq -c",
    "sort -n -k2 README.md",
    "cut -d' ' -f1 README.md",
    "diff README.md notes.md",
    "wc -l README.md",
    "head -20 README.md",
    "head -n 5 README.md",
    "tail -5 README.md",
    "cat README.md",
    "cat README.md | grep -i readme",
    "grep -n readme README.md",
    "grep -rn print src",
    "grep -rn --include=*.py print .",
    "grep -E 'a|b' README.md",
    "find . -name '*.py'",
    "find . -type f | wc -l",
    "find src -name '*.py' | xargs wc -l",
    "echo hello",
    "echo $HOME",
    'echo "$PATH"',
    "printf '%s\\n' a b",
    "pwd",
    "whoami",
    "uname -a",
    "date",
    "date +%Y-%m-%d",
    "which git",
    "type ls",
    "printenv PATH",
    "nproc",
    "realpath README.md",
    "readlink -f srclink",
    "basename /a/b.txt",
    "dirname /a/b.txt",
    "sha256sum README.md",
    "md5sum README.md",
    "tr a-z A-Z < README.md",
    "od -c README.md | head",
    "hexdump -C README.md | head",
    "strings README.md",
    "column -t README.md",
    "nl README.md",
    "tac README.md",
    "rev README.md",
    "python3 --version",
    "test -f README.md && echo yes",
    "[ -d src ] && ls src",
    "cd src && ls",
    "cd src && cat app.py",
    "ls 2>/dev/null",
    "cat README.md > /dev/null 2>&1",
    "git --no-pager log -1",
    "git log --format='%h %s' -n 5",
    "seq 1 10",
    "true",
    "find . -name '*.py' -exec grep -n print {} +",
    "find src -name '*.py' -exec wc -l {} \\;",
    "git ls-files | xargs wc -l",
    "git ls-files -z | xargs -0 wc -l",
    "cat /etc/os-release",
    "head -5 /proc/cpuinfo",
    "ls /usr/bin | head",
    "groups",
    "tty",
    "shuf README.md | head -1",
    "shuf -e a b c",
    "shuf -i 1-10 -n 3",
]


@pytest.mark.parametrize("command", EVERYDAY)
@pytest.mark.parametrize("mode", ["default", "plan", "acceptEdits"])
def test_everyday_read_only_commands_run_without_a_question(project: Path, command: str, mode: str) -> None:
    subprocess.run(["git", "-C", str(project), "add", "README.md"], check=True)
    subprocess.run(
        ["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"], check=True
    )
    found = check(engine_for(project, mode), "Bash", command=command)
    assert found.behavior == "allow", (command, found.reason)


# The file commands acceptEdits runs without a question, and what they may never touch.
def test_accept_edits_runs_file_commands_inside_the_project_only(project: Path) -> None:
    engine = engine_for(project, "acceptEdits")
    for command in ("mkdir -p build/x", "touch new.txt", "cp README.md r2.md", "mv notes.md n.md", "rm -f notes.md",
                    "rm -rf src", "sed -i 's/a/b/' README.md", "echo x > out.txt", "rmdir build"):  # fmt: skip
        assert verdict(engine, command) == "allow", command
    for command in ("touch /tmp/x", "cp README.md ../x", "rm -rf .git", "mv .git g", "touch .envrc", "mkdir .claude",
                    "cp -r src .vscode", "rm -rf .", "cp .env x", "mv .env x", "sed -i s/a/b/ linkdir/secret.txt",
                    "cp -l README.md x", "cp -s README.md x", "ln README.md x"):  # fmt: skip
        assert verdict(engine, command) != "allow", command
    assert verdict(engine_for(project, "default"), "touch new.txt") == "ask"


def test_prefix_rules_cover_only_commands_understood_whole(project: Path) -> None:
    engine = engine_for(project, "rules")
    assert verdict(engine, "npm test -- --watch") == "allow"
    assert verdict(engine, "npm test $(touch ../canary)") == "ask"
    assert verdict(engine, "npm test && touch ../canary") == "ask"
    assert verdict(engine, "npm test > out.txt") == "ask"
    assert verdict(engine, "timeout 60 npm test") == "allow"
    assert verdict(engine, "git status; git push") == "ask"


# git runs without a question only where nothing it would read names a program the repository configured.
GIT_CONFIGS = [
    "[core]\n\tfsmonitor = touch ../canary\n",
    "BOM",
    '[diff "x"]\n\ttextconv = touch ../canary\n',
    '[diff "x"]\n\tcommand = touch ../canary\n',
    "[diff]\n\texternal = touch ../canary\n",
    '[filter "x"]\n\tclean = touch ../canary\n',
    '[filter "x"]\n\tprocess = touch ../canary\n',
    "[core]\n\tpager = touch ../canary\n",
    "[core]\n\tworktree = /\n",
    "[core]\n\thooksPath = hooks\n",
    "[gpg]\n\tprogram = touch ../canary\n[log]\n\tshowSignature = true\n",
    "[include]\n\tpath = ../included.cfg\n",
    '[includeIf "gitdir:/"]\n\tpath = ../included.cfg\n',
    "[extensions]\n\tpartialClone = origin\n",
]


@pytest.mark.parametrize("config", GIT_CONFIGS)
@pytest.mark.parametrize("command", ["git status", "git diff", "git log -p", "git log --oneline"])
def test_git_asks_where_the_repository_configures_a_program(project: Path, config: str, command: str) -> None:
    (project / "included.cfg").write_text("[core]\n\tfsmonitor = touch ../canary\n")
    config_file = project / ".git" / "config"
    if config == "BOM":  # (git skips a UTF-8 byte order mark at the start of a config file)
        config_file.write_text("\ufeff[core]\n\tfsmonitor = touch ../canary\n" + config_file.read_text())
    else:
        with config_file.open("a", encoding="utf-8") as file:
            file.write(config)
    for mode in ("default", "plan", "acceptEdits", "rules"):
        assert verdict(engine_for(project, mode), command) != "allow", (config, command, mode)


def test_git_asks_for_worktree_config_submodules_and_a_nested_repository(project: Path) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "protocol.file.allow=always"]
    subprocess.run([*git, "-C", str(project), "commit", "-q", "--allow-empty", "-m", "x"], check=True, env=env)
    # worktree config
    subprocess.run(["git", "-C", str(project), "config", "extensions.worktreeConfig", "true"], check=True)
    (project / ".git" / "config.worktree").write_text("[core]\n\tfsmonitor = touch ../canary\n")
    assert verdict(engine_for(project, "default"), "git status") == "ask"
    (project / ".git" / "config.worktree").unlink()
    assert verdict(engine_for(project, "default"), "git status") == "allow"
    # a submodule whose own config names a program
    library = project.parent / "library"
    subprocess.run(["git", "init", "-q", str(library)], check=True)
    subprocess.run([*git, "-C", str(library), "commit", "-q", "--allow-empty", "-m", "x"], check=True, env=env)
    subprocess.run([*git, "-C", str(project), "submodule", "add", "-q", str(library), "lib"], check=True, env=env)
    assert verdict(engine_for(project, "default"), "git status") == "allow"
    subprocess.run(["git", "-C", str(project / "lib"), "config", "core.fsmonitor", "touch ../canary"], check=True)
    assert verdict(engine_for(project, "default"), "git status") == "ask"
    # a nested repository: git run inside it reads its config
    nested = project / "src" / "nested"
    subprocess.run(["git", "init", "-q", str(nested)], check=True)
    subprocess.run(["git", "-C", str(nested), "config", "core.fsmonitor", "touch ../canary"], check=True)
    assert verdict(engine_for(project, "default"), "cd src/nested && git status") == "ask"
    assert verdict(engine_for(project, "default"), "git -C src/nested log") == "ask"


def test_git_asks_when_the_environment_redirects_it(project: Path) -> None:
    engine = engine_for(project, "default")
    for variable in ("GIT_DIR", "GIT_CONFIG_PARAMETERS", "GIT_EXTERNAL_DIFF", "GIT_CONFIG_GLOBAL", "GIT_EXEC_PATH"):
        engine.bash_environ = {"PATH": "/usr/bin:/bin", variable: "x"}
        assert verdict(engine, "git status") == "ask", variable


def test_git_showing_contents_asks_when_a_denied_file_is_in_the_history(project: Path) -> None:
    git = ["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "add", "README.md"], check=True)
    subprocess.run([*git, "commit", "-qm", "x"], check=True)
    engine = engine_for(project, "default")
    assert verdict(engine, "git log -p") == "allow"
    assert verdict(engine, "git show HEAD:README.md") == "allow"
    subprocess.run([*git, "add", "-f", ".env"], check=True)
    subprocess.run([*git, "commit", "-qm", "y"], check=True)
    subprocess.run([*git, "rm", "-q", "--cached", ".env"], check=True)
    subprocess.run([*git, "commit", "-qm", "z"], check=True)
    for command in ("git log -p", "git show HEAD~1:.env", "git diff HEAD~2", "git grep KEY HEAD~1"):
        assert verdict(engine, command) == "ask", command
    assert verdict(engine, "git log --oneline") == "allow"  # (names and messages only)


def test_git_remote_subcommands_that_contact_a_remote_ask(project: Path) -> None:
    engine = engine_for(project, "default")
    for command in ("git remote show origin", "git ls-remote origin", "git fetch", "git pull", "git remote update"):
        assert verdict(engine, command) == "ask", command


def test_plan_mode_runs_what_the_allowlist_lets_through_and_nothing_else(project: Path) -> None:
    engine = engine_for(project, "plan")
    assert verdict(engine, "git status && ls src && cat README.md") == "allow"
    for command in ("npm test", "touch x", "echo x > out.txt", "mkdir x", "make", "git commit -m x"):
        assert verdict(engine, command) == "deny", command


def test_ripgrep_with_a_config_file_from_the_environment_asks_unless_told_to_ignore_it(project: Path) -> None:
    engine = engine_for(project, "default")
    assert verdict(engine, "rg print src") == "allow"
    engine.bash_environ = {**engine.bash_environ, "RIPGREP_CONFIG_PATH": str(project / ".ripgreprc")}
    assert verdict(engine, "rg print src") == "ask"
    assert verdict(engine, "rg --no-config print src") == "allow"


def test_names_git_lists_are_read_unasked_only_where_no_link_leads_to_a_directory(project: Path) -> None:
    """A tracked directory replaced by a link: `git ls-files` still prints `docs/id_rsa` from the index, and xargs
    opens it through the link, where a walk of the working tree never goes."""
    (project / "docs").mkdir()
    (project / "docs" / "id_rsa").write_text("public notes\n")
    subprocess.run(["git", "-C", str(project), "add", "docs"], check=True)
    engine = engine_for(project, "default")
    assert verdict(engine, "git ls-files | xargs cat") == "allow"
    (project / "docs" / "id_rsa").unlink()
    (project / "docs").rmdir()
    os.symlink(project.parent / "home" / ".ssh", project / "docs")
    for command in ("git ls-files | xargs cat", "git ls-files -z | xargs -0 cat", "git ls-files -co | xargs cat"):
        assert verdict(engine, command) == "ask", command
    os.unlink(project / "docs")
    os.symlink(project / "src", project / "docs")  # (each name is checked where it leads: here, inside)
    (project / "src" / "id_rsa").write_text("more notes\n")
    assert verdict(engine, "git ls-files | xargs cat") == "allow"
    os.link(project / ".env", project / "src" / "id_rsa2")
    (project / "src" / "id_rsa").unlink()
    os.rename(project / "src" / "id_rsa2", project / "src" / "id_rsa")  # (now another name for the denied .env)
    assert verdict(engine, "git ls-files | xargs cat") == "ask"


def test_a_name_git_would_quote_is_not_handed_to_xargs_unasked(project: Path) -> None:
    (project / "caf\u00e9.txt").write_text("x\n")
    subprocess.run(["git", "-C", str(project), "add", "caf\u00e9.txt"], check=True)
    engine = engine_for(project, "default")
    assert verdict(engine, "git ls-files | xargs wc -l") == "ask"
    found = check(engine, "Bash", command="git ls-files -z | xargs -0 wc -l")
    assert found.behavior == "allow", found.reason


def test_system_files_outside_the_project_are_read_only_where_every_user_may_read_them(
    project: Path, tmp_path: Path
) -> None:
    """Installed software and the files naming the system: owned by root along the whole path, readable by others.
    A file of another owner under /usr, or one only root may read, asks."""
    engine = engine_for(project, "default")
    readable = Path("/etc/os-release")
    assert readable.exists()
    assert verdict(engine, f"cat {readable}") == "allow"
    if os.geteuid() == 0:
        private = Path("/usr/local/share") / f"agentui-test-{os.getpid()}"
        private.mkdir(parents=True)
        try:
            (private / "mine.txt").write_text("x\n")
            (private / "mine.txt").chmod(0o600)
            (private / "theirs.txt").write_text("x\n")
            os.chown(private / "theirs.txt", 65534, 65534)
            assert verdict(engine, f"cat {private}/mine.txt") == "ask"
            assert verdict(engine, f"cat {private}/theirs.txt") == "ask"
            (private / "mine.txt").chmod(0o644)
            assert verdict(engine, f"cat {private}/mine.txt") == "allow"
            private.chmod(0o700)
            assert verdict(engine, f"cat {private}/mine.txt") == "ask"
        finally:
            private.chmod(0o755)
            for child in private.iterdir():
                child.unlink()
            private.rmdir()


def test_the_read_tool_reads_installed_software_and_system_files_as_bash_does(project: Path) -> None:
    engine = engine_for(project, "default")
    assert check(engine, "Read", file_path="/etc/os-release").behavior == "allow"
    assert check(engine, "Read", file_path="/etc/passwd").behavior == "ask"
    assert check(engine, "Read", file_path=str(project.parent / "outside" / "secret.txt")).behavior == "ask"
    assert check(engine, "Read", file_path=str(project.parent / "home" / ".ssh" / "id_rsa")).behavior == "deny"


def test_pip_is_asked_only_for_its_version(project: Path, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("pip", "pip3"):
        (bin_dir / name).write_text("#!/bin/sh\necho pip 1.0\n")
        (bin_dir / name).chmod(0o755)
    engine = engine_for(project, "default")
    engine.bash_environ = {**engine.bash_environ, "PATH": f"{bin_dir}:/usr/bin:/bin"}
    for command in ("pip --version", "pip3 -V"):
        assert verdict(engine, command) == "allow", command
    for command in ("pip list", "pip install x", "pip --version --isolated", "pip3 -V -r req.txt"):
        assert verdict(engine, command) == "ask", command


def test_a_name_git_lists_is_never_taken_for_an_option(project: Path) -> None:
    """find's names start with where it started (`./x`); git's are bare, so a tracked `-fevil.sed` or `-i` would be
    an option of the program xargs runs (found by attacking the change that let `git ls-files | xargs` through)."""
    (project / "evil.sed").write_text("1e touch ../canary\n")
    for name in ("-fevil.sed", "-i", "-o..", "--files0-from=x"):
        (project / name).write_text("x\n")
    subprocess.run(["git", "-C", str(project), "add", "--", "evil.sed", "-fevil.sed"], check=True)
    engine = engine_for(project, "default")
    for command in ("git ls-files | xargs sed -n 1p", "git ls-files -z | xargs -0 file", "git ls-files | xargs sort"):
        assert verdict(engine, command) == "ask", command
    assert not (project.parent / "canary").exists()


def test_a_listing_outside_the_project_is_of_installed_software_only(project: Path) -> None:
    """`ls /usr/bin` lists installed software; the home is the person's (`ls ~` asks), and `git -C /usr status` or
    `du -s /usr/bin` walk all below."""
    home = project.parent / "home"
    subprocess.run(["git", "init", "-q", str(home)], check=True)
    engine = engine_for(project, "default")
    for command in ("ls /usr/bin", "ls -la /usr/share", "stat /usr"):
        assert verdict(engine, command) == "allow", command
    for command in ("ls ~", "ls -la ~/", "git -C ~ status", "git -C ~ ls-files -o", "git -C /usr status",
                    "du -s /usr/bin", "ls /tmp"):  # fmt: skip
        assert verdict(engine, command) == "ask", command


def test_a_hard_link_into_a_denied_directory_too_large_to_list_is_still_another_name(project: Path) -> None:
    secrets = project / "secrets"
    (secrets / "z").mkdir(parents=True)
    for n in range(10_001):
        (secrets / f"f{n:05}").touch()
    (secrets / "z" / "key").write_text("TOPSECRET\n")
    os.link(secrets / "z" / "key", project / "notes2.txt")
    engine = engine_for(project, "default", deny=("Read(./secrets/**)",))
    for command in ("cat notes2.txt", "grep -rn SECRET ."):
        assert verdict(engine, command) != "allow", command
    assert check(engine, "Read", file_path=str(project / "notes2.txt")).behavior == "deny"


def test_a_hard_link_past_a_denied_pattern_walk_cut_short_is_refused(project: Path) -> None:
    # A glob deny rule whose files could not all be listed: a file with two names may be one of those never listed.
    from agentui.core.safety.denied_files import DeniedFinder
    from agentui.core.safety.permissions.rules import READ_FAMILY

    (project / "aaa").mkdir()
    for n in range(40):
        (project / "aaa" / f"f{n:03}").touch()
    (project / "zzz").mkdir()
    (project / "zzz" / "key.pem").write_text("PRIVATE\n")
    os.link(project / "zzz" / "key.pem", project / "notes.txt")
    engine = engine_for(project, "default", deny=("Read(**/*.pem)",))
    finder = DeniedFinder(limit=10)  # (as 100,000 files would cut the real one short)
    patterns = [rule.path for rule in engine.rules if rule.behavior == "deny" and rule.tool in READ_FAMILY]
    engine.denied_files = lambda: finder.find([pattern for pattern in patterns if pattern is not None])
    assert check(engine, "Read", file_path=str(project / "notes.txt")).behavior == "deny"
    assert check(engine, "Read", file_path=str(project / "aaa" / "f001")).behavior == "allow"  # (one name: fine)


def test_a_public_file_read_through_a_link_is_read_where_it_was_checked(project: Path) -> None:
    engine = engine_for(project, "default")
    (project.parent / "elsewhere-hosts-link").symlink_to("/etc/hosts")
    answer = check(engine, "Read", file_path=str(project.parent / "elsewhere-hosts-link"))
    assert answer.behavior == "allow" and answer.path == Path("/etc/hosts")  # (not resolved again at read time)
