"""Every setting agentui writes into Claude Code's files goes one way (claude_settings.change_settings_file): the
rest of the file and its order kept, a file it cannot read left alone with one sentence, a FIFO refused at once
instead of waited on, and a project's file that links out of the project refused."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from agentui.core.claude_settings import SettingsError, add_permission_entry, set_user_setting
from agentui.core.extend.output_styles import OutputStyleError, save_style_setting
from agentui.core.extend.plugins.files import PluginError, update_setting


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    return project, {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude")}


def writers(project: Path, env: dict[str, str]) -> dict[str, tuple[Path, Callable[[], object], type[Exception]]]:
    local = project / ".claude" / "settings.local.json"
    user = Path(env["CLAUDE_CONFIG_DIR"]) / "settings.json"
    return {
        "permission rule": (local, lambda: add_permission_entry(project, "allow", "Bash(ls:*)"), SettingsError),
        "output style": (local, lambda: save_style_setting(project, "Explanatory"), OutputStyleError),
        "user setting": (user, lambda: set_user_setting(("permissions", "defaultMode"), "plan", env), SettingsError),
        "plugin switch": (
            user,
            lambda: update_setting("user", project, "enabledPlugins", "a@b", True, env),
            PluginError,
        ),
    }


KINDS = ["permission rule", "output style", "user setting", "plugin switch"]


@pytest.mark.parametrize("kind", KINDS)
def test_the_rest_of_the_file_and_its_order_are_kept(places: tuple[Path, dict[str, str]], kind: str) -> None:
    project, env = places
    path, write, _ = writers(project, env)[kind]
    path.write_text(json.dumps({"zeta": 1, "alpha": {"keep": True}, "env": {"A": "b"}}))
    write()
    data = json.loads(path.read_text())
    assert list(data)[:3] == ["zeta", "alpha", "env"] and data["alpha"] == {"keep": True}
    assert len(data) == 4


@pytest.mark.parametrize("kind", KINDS)
def test_a_file_that_cannot_be_read_is_left_as_it_is(places: tuple[Path, dict[str, str]], kind: str) -> None:
    project, env = places
    path, write, error = writers(project, env)[kind]
    for broken in ('{"permissions": ', "[1, 2]"):
        path.write_text(broken)
        with pytest.raises(error, match="nothing was written"):
            write()
        assert path.read_text() == broken


@pytest.mark.parametrize("kind", KINDS)
def test_a_fifo_where_the_file_goes_is_refused_at_once(places: tuple[Path, dict[str, str]], kind: str) -> None:
    """Reading a FIFO with open() waits for a writer for ever: /config froze on one planted in ~/.claude."""
    project, env = places
    path, write, error = writers(project, env)[kind]
    os.mkfifo(path)
    with pytest.raises(error, match="not a regular file"):
        write()


@pytest.mark.parametrize("kind", ["permission rule", "output style"])
def test_a_project_file_linking_out_of_the_project_is_refused(places: tuple[Path, dict[str, str]], kind: str) -> None:
    project, env = places
    path, write, error = writers(project, env)[kind]
    outside = project.parent / "elsewhere.json"
    outside.write_text("{}")
    path.symlink_to(outside)
    with pytest.raises(error, match="is a link out of the project"):
        write()
    assert outside.read_text() == "{}"
