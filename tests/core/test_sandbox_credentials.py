"""Credentials are hidden in the sandbox wherever they live: the home directory's, $XDG_CONFIG_HOME (but for the
harmless tool configs), the files environment variables point at, agentui's own state; a hidden path that is a link
hides where it leads and does not break the sandbox."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agentui.core.extend.mcp.config import approvals_file
from agentui.core.safety.trust import trust, trust_file
from tests.core.test_sandbox_setup import Box, boxed


@pytest.fixture
def box(tmp_path: Path) -> Iterator[Box]:
    yield from boxed(tmp_path)


SECRET = "CREDENTIAL-MATERIAL-7"


def write(path: Path, text: str = SECRET) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_home_xdg_and_pointed_at_credentials_are_hidden_and_tool_configs_are_not(box: Box) -> None:
    hidden = [
        write(box.home / ".ssh" / "id_ed25519"),
        write(box.home / ".config" / "gh" / "hosts.yml"),
        write(box.home / ".config" / "gcloud" / "credentials.db"),
        write(box.home / ".config" / "git" / "credentials"),
        write(box.home / ".netrc"),
        write(box.home / ".pgpass"),
        write(box.home / ".bash_history"),
        write(box.home / ".claude.json"),
        write(box.home / ".claude" / ".credentials.json"),
        write(box.home / ".claude" / "projects" / "-work-other" / "session.jsonl"),  # (other projects' tool results)
        write(box.home / ".claude" / "history.jsonl"),
        write(box.home / ".codex" / "history.jsonl"),
        write(box.home / ".dbt" / "profiles.yml"),
        write(box.home / ".android" / "adbkey"),
        write(box.home / ".cargo" / "credentials.toml"),
        write(box.home / ".local" / "share" / "keyrings" / "login.keyring"),
        write(box.home / ".mozilla" / "firefox" / "cookies.sqlite"),
        write(box.tmp / "elsewhere" / "aws-credentials"),
        write(box.tmp / "elsewhere" / "kube-a"),
        write(box.tmp / "elsewhere" / "kube-b"),
        write(box.tmp / "elsewhere" / "gcp.json"),
    ]
    box.env.update(
        AWS_SHARED_CREDENTIALS_FILE=str(box.tmp / "elsewhere" / "aws-credentials"),
        KUBECONFIG=f"{box.tmp}/elsewhere/kube-a:{box.tmp}/elsewhere/kube-b",
    )
    box.sandbox.env = {**box.sandbox.env, "GOOGLE_APPLICATION_CREDENTIALS": str(box.tmp / "elsewhere" / "gcp.json")}
    readable = [
        write(box.home / ".config" / "git" / "config", "[user]\n\tname = readable\n"),
        write(box.home / ".config" / "ruff" / "ruff.toml", "readable-ruff"),
        write(box.home / ".bashrc", "readable-bashrc"),
    ]
    box.snapshot()
    done = box.run("; ".join(f"cat {path}" for path in [*hidden, *readable]) + "; ls ~/.ssh ~/.config")
    assert SECRET not in done.text
    assert "readable" in done.out and "readable-ruff" in done.out and "readable-bashrc" in done.out
    listed = box.run("ls -A ~/.config").out.split()
    assert "gh" not in listed and "gcloud" not in listed and {"git", "ruff"} <= set(listed)


def test_agentuis_own_state_is_hidden(box: Box) -> None:
    trust(box.project, box.env)
    write(approvals_file(box.env), '{"approved": "' + SECRET + '"}')
    write(Path(box.env["AGENTUI_CONFIG_DIR"]) / "config.json", '{"key": "' + SECRET + '"}')
    box.snapshot()
    done = box.run(f"cat {trust_file(box.env)} {approvals_file(box.env)} {box.env['AGENTUI_CONFIG_DIR']}/config.json")
    assert SECRET not in done.text and str(box.project) not in done.out


def test_a_credentials_directory_that_is_a_link_is_hidden_where_it_leads(box: Box) -> None:
    data = box.tmp / "data" / "ssh"
    write(data / "id_rsa")
    (box.home / ".ssh").symlink_to(data)
    (box.home / ".netrc").symlink_to(write(box.tmp / "data" / "netrc"))
    box.snapshot()
    done = box.run(f"cat ~/.ssh/id_rsa {data}/id_rsa ~/.netrc; echo still-works")
    assert SECRET not in done.text and "still-works" in done.out


def test_as_root_the_systems_password_hashes_and_roots_own_credentials_are_hidden(box: Box) -> None:
    """Root (in a container, on CI) owns /etc/shadow and /root: with capabilities dropped, a sandboxed command still
    reads its own files, so they are hidden as the home's credentials are."""
    import os
    import pwd

    if os.geteuid() != 0:
        assert box.run("cat /etc/shadow").code != 0  # (not root: the kernel keeps them, nothing to hide)
        return
    assert box.run("cat /etc/shadow").out == ""
    assert box.run("cat /etc/gshadow 2>/dev/null").out == ""
    root_home = Path(pwd.getpwuid(0).pw_dir)
    assert root_home != box.home
    ssh = root_home / ".ssh"
    made = not ssh.exists()
    if made:
        ssh.mkdir(mode=0o700)
    key = ssh / "agentui-test-key"
    key.write_text("ROOT-KEY-TEXT\n")
    try:
        done = box.run(f"cat {key}; ls {ssh}")
        assert "ROOT-KEY-TEXT" not in done.text and "agentui-test-key" not in done.out
        assert box.run("cat /etc/passwd").out.startswith("root:")  # (what is not a secret stays readable)
    finally:
        key.unlink()
        if made:
            ssh.rmdir()
