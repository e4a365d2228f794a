"""What the sandbox (and the guard) hide, made by the mount helper and by bubblewrap alike: masks inside masks, a deny
rule inside a hidden directory or over a tool directory shown again, a project inside a hidden directory, a link
planted where a tool directory is shown again, a credential inside one, and an `env` setting that points elsewhere.
Each command runs (a mask the helper cannot make would refuse it) and shows nothing hidden."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agentui.core.safety import mount_helper
from agentui.core.safety.permissions.rules import PathPattern, path_pattern
from agentui.core.safety.sandbox import Sandbox, SandboxConfig
from agentui.core.workspace import Workspace
from tests.core.test_sandbox_setup import Box, boxed, git, run_confined

SECRET = "SECRET-VALUE-42"


@pytest.fixture(params=["helper", "bubblewrap"])
def box(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Box]:
    mount_helper.forget()
    if request.param == "bubblewrap":
        monkeypatch.setattr(mount_helper, "SYSTEM_PATH", str(tmp_path / "no-compiler"))
    made = boxed(tmp_path / "box")
    box = next(made)
    assert (box.sandbox.mount_helper() is None) is (request.param == "bubblewrap")
    yield box
    yield from made
    mount_helper.forget()


def deny(box: Box, *specifiers: str) -> None:
    patterns: list[PathPattern] = [
        path_pattern(s, project_root=box.project, home=box.home, settings_root=box.project) for s in specifiers
    ]
    box.sandbox.read_denials = lambda: patterns
    box.guard.read_denials = lambda: patterns


def secret(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(SECRET)
    return path


def test_a_denied_directory_inside_another_is_hidden_and_the_command_runs(box: Box) -> None:
    secret(box.project / "a" / "b" / "key")
    secret(box.project / "a" / "other")
    deny(box, "./a/b/**", "./a/**")
    box.snapshot()
    for guard in (True, False):
        done = box.run("cat a/b/key a/other; ls -A a; echo ran", guard=guard)
        assert done.out == "ran\n" and SECRET not in done.text, (guard, done)


def test_a_deny_rule_inside_the_hidden_config_directory_and_over_a_tool_directory_shown_again(box: Box) -> None:
    config = box.home / ".config"
    secret(config / "gh" / "hosts.yml")
    secret(config / "git" / "config")
    (config / "pip").mkdir()
    (config / "pip" / "pip.conf").write_text("[global]\n")
    deny(box, "~/.config/gh/**", "~/.config/git/**")
    box.snapshot()
    done = box.run("cat ~/.config/gh/hosts.yml ~/.config/git/config ~/.config/pip/pip.conf; echo ran")
    assert done.out.endswith("ran\n") and "[global]" in done.out and SECRET not in done.text, done


def test_a_project_inside_the_hidden_config_directory_runs_and_keeps_its_protections(box: Box) -> None:
    config = box.home / ".config"
    (config / "agentui").mkdir(parents=True)
    secret(config / "gh" / "hosts.yml")
    project = config / "work"
    project.mkdir()
    git(project, "init", "-q")
    box.snapshot()
    sandbox = Sandbox(SandboxConfig(enabled=True), Workspace(root=project), home=box.home, env=box.env)
    confined = sandbox.wrap(
        ["bash", "-c", "cat ~/.config/gh/hosts.yml; echo evil > .git/hooks/pre-commit; echo made > made"],
        cwd=project,
        scratch=box.workspace.scratch,
        env=box.env,
    )
    done = run_confined(confined, project)
    assert done.code == 0 and SECRET not in done.text, done
    assert (project / "made").read_text() == "made\n" and not (project / ".git" / "hooks" / "pre-commit").exists()


def test_a_link_planted_where_a_tool_directory_is_shown_again_shows_nothing(box: Box) -> None:
    secret(box.home / ".ssh" / "id_ed25519")
    secret(box.home / ".config" / "gh" / "hosts.yml")
    (box.home / ".config" / "pip").symlink_to(box.home / ".ssh")
    (box.home / ".config" / "uv").symlink_to(box.home / ".config" / "gh")
    box.snapshot()
    done = box.run("cat ~/.ssh/id_ed25519 ~/.config/pip/id_ed25519 ~/.config/uv/hosts.yml; echo ran")
    assert done.out == "ran\n" and SECRET not in done.text, done


def test_a_credential_inside_a_tool_directory_shown_again_stays_hidden(box: Box) -> None:
    netrc = secret(box.home / ".config" / "git" / "netrc")
    (box.home / ".config" / "git" / "config").write_text("[user]\n\tname = me\n")
    box.env["NETRC"] = str(netrc)
    box.snapshot()
    done = box.run("cat ~/.config/git/netrc; cat ~/.config/git/config; echo ran")
    assert "name = me" in done.out and done.out.endswith("ran\n") and SECRET not in done.text, done


def test_an_env_setting_pointing_elsewhere_hides_both(box: Box) -> None:
    secret(box.home / ".config" / "gh" / "hosts.yml")
    elsewhere = box.tmp / "elsewhere-config"
    secret(elsewhere / "gh" / "hosts.yml")
    box.snapshot()
    confined = box.sandbox.wrap(
        ["bash", "-c", f"cat ~/.config/gh/hosts.yml {elsewhere}/gh/hosts.yml; echo ran"],
        cwd=box.project,
        scratch=box.workspace.scratch,
        env={**box.env, "XDG_CONFIG_HOME": str(elsewhere)},  # (a trusted project's `env` setting)
    )
    done = run_confined(confined, box.project)
    assert done.out == "ran\n" and SECRET not in done.text, done


def test_a_masked_file_cannot_be_moved_out_of_sight_by_renaming_its_directory(box: Box) -> None:
    """A credential the environment names and a denied file, inside the project: the directories on the way to each
    are held, so the next command still finds the mask where it looks."""
    key = secret(box.project / "creds" / "key.json")
    env_file = secret(box.project / "conf" / "deep" / ".env")
    box.env["GOOGLE_APPLICATION_CREDENTIALS"] = str(key)
    deny(box, "./conf/deep/.env")
    box.snapshot()
    box.run("mv creds c2; mv conf c3; mv conf/deep conf/d2")
    assert key.exists() and env_file.exists()
    done = box.run("cat creds/key.json c2/key.json conf/deep/.env c3/deep/.env conf/d2/.env; echo ran")
    assert done.out.endswith("ran\n") and SECRET not in done.text, done
    # (the guard hides what deny rules cover, not the credentials the sandbox hides)
    box.run("mv conf c3; mv conf/deep conf/d2", guard=True)
    assert env_file.exists()
    done = box.run("cat conf/deep/.env c3/deep/.env conf/d2/.env; echo ran", guard=True)
    assert done.out.endswith("ran\n") and SECRET not in done.text, done
