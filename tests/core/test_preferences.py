"""What /config saves and where: Claude Code's keys into the person's own settings file, everything else in it kept;
a file that cannot be read left as it is with one sentence; a change applied to the open conversation unless a more
specific settings file decides otherwise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentui.core.assembly import open_conversation
from agentui.core.claude_settings import SettingsError, set_user_setting
from agentui.core.conversation import Conversation, Launch
from agentui.core.preferences import PreferenceError, preferences, set_preference
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.safety.trust import trust
from agentui.core.settings import Settings


def env_for(tmp_path: Path) -> dict[str, str]:
    return {
        "HOME": str(tmp_path / "home"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "home" / ".claude"),
        "AGENTUI_CONFIG_DIR": str(tmp_path / "config"),
        "AGENTUI_DATA_DIR": str(tmp_path / "data"),
        "AGENTUI_STATE_DIR": str(tmp_path / "state"),
    }


def settings_file(env: dict[str, str]) -> Path:
    return Path(env["CLAUDE_CONFIG_DIR"]) / "settings.json"


def opened(tmp_path: Path, env: dict[str, str]) -> Conversation:
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    launch = Launch(Settings(provider="scripted", model="scripted"), cwd=root)
    return open_conversation(launch, provider=ScriptedProvider([]), env=env)


def test_a_setting_is_written_into_the_file_keeping_everything_else(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    path = settings_file(env)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"theme": "dark", "permissions": {"allow": ["Bash(ls)"]}, "env": {"A": "1"}}))
    assert set_user_setting(("permissions", "defaultMode"), "plan", env) == path
    assert json.loads(path.read_text()) == {
        "theme": "dark",
        "permissions": {"allow": ["Bash(ls)"], "defaultMode": "plan"},
        "env": {"A": "1"},
    }
    set_user_setting(("verbose",), True, env)
    set_user_setting(("permissions", "defaultMode"), None, env)  # (None takes it out)
    assert json.loads(path.read_text()) == {
        "theme": "dark",
        "permissions": {"allow": ["Bash(ls)"]},
        "env": {"A": "1"},
        "verbose": True,
    }


def test_a_missing_file_is_made_and_a_linked_one_written_through(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    set_user_setting(("verbose",), False, env)
    assert json.loads(settings_file(env).read_text()) == {"verbose": False}

    dotfiles = tmp_path / "dotfiles" / "claude-settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text('{"model": "opus"}')
    settings_file(env).unlink()
    settings_file(env).symlink_to(dotfiles)
    set_user_setting(("permissions", "defaultMode"), "acceptEdits", env)
    assert settings_file(env).is_symlink()
    assert json.loads(dotfiles.read_text()) == {"model": "opus", "permissions": {"defaultMode": "acceptEdits"}}


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('{"permissions": {"allow": []},}', "is not valid JSON (line 1, column 31"),
        ("[1, 2]", "does not hold a JSON object"),
        ('{"permissions": ["Bash(ls)"]}', "has 'permissions' as something other than an object"),
        (b"\xff\xfe{}", "could not be read"),
    ],
)
def test_a_file_that_cannot_be_read_is_left_as_it_is(tmp_path: Path, text: str | bytes, why: str) -> None:
    env = env_for(tmp_path)
    path = settings_file(env)
    path.parent.mkdir(parents=True)
    (path.write_bytes if isinstance(text, bytes) else path.write_text)(text)  # type: ignore[operator]
    before = path.read_bytes()
    with pytest.raises(SettingsError) as raised:
        set_user_setting(("permissions", "defaultMode"), "plan", env)
    assert why in str(raised.value) and "nothing was written" in str(raised.value)
    assert str(raised.value).count(". ") == 0  # one sentence
    assert path.read_bytes() == before


async def test_the_default_mode_applies_now_unless_a_more_specific_file_sets_one(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    conversation = opened(tmp_path, env)
    try:
        said = set_preference(conversation, "defaultMode", "plan", env)
        assert (
            said
            == "Default permission mode set to plan (saved to ~/.claude/settings.json); this session is in plan now."
        )
        assert conversation.mode == "plan"
        local = conversation.root / ".claude" / "settings.local.json"
        local.parent.mkdir()
        local.write_text(json.dumps({"permissions": {"defaultMode": "default"}}))
        said = set_preference(conversation, "defaultMode", "acceptEdits", env)
        assert said == (
            f"Default permission mode acceptEdits saved to ~/.claude/settings.json, but {local} sets default, which "
            "wins here."
        )
        assert conversation.mode == "plan"
        [mode] = [p for p in preferences(conversation, env) if p.key == "defaultMode"]
        assert (mode.value, mode.source) == ("default", ".claude/settings.local.json")
    finally:
        await conversation.aclose()
    assert json.loads(settings_file(env).read_text()) == {"permissions": {"defaultMode": "acceptEdits"}}


async def test_an_untrusted_projects_permissive_default_is_not_the_one_shown(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    root = tmp_path / "project"
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"defaultMode": "acceptEdits"}}))
    conversation = opened(tmp_path, env)
    try:
        [mode] = [p for p in preferences(conversation, env) if p.key == "defaultMode"]
        assert (mode.value, mode.source) == ("default", "default")
    finally:
        await conversation.aclose()
    trust(root, env)
    conversation = opened(tmp_path, env)
    try:
        [mode] = [p for p in preferences(conversation, env) if p.key == "defaultMode"]
        assert (mode.value, mode.source) == ("acceptEdits", ".claude/settings.json")
    finally:
        await conversation.aclose()


async def test_bypass_is_not_a_default_config_gives_and_a_broken_config_file_is_one_sentence(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    conversation = opened(tmp_path, env)
    try:
        with pytest.raises(PreferenceError, match="is not a value /config can give defaultMode"):
            set_preference(conversation, "defaultMode", "bypassPermissions", env)
        config = Path(env["AGENTUI_CONFIG_DIR"]) / "config.json"
        config.parent.mkdir(parents=True)
        config.write_text('{"model": ')
        with pytest.raises(PreferenceError) as raised:
            set_preference(conversation, "autoCompact", False, env)
        assert "is not valid JSON" in str(raised.value)
        assert config.read_text() == '{"model": ' and conversation.agent.config.options.auto_compact is True
    finally:
        await conversation.aclose()
    assert not settings_file(env).exists()
