"""/config in the app (Pilot): the settings with their values and sources, each changed from the keyboard, saved where
Claude Code (or agentui, for its own keys) reads it without losing the rest of the file, and in effect at once."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from textual.widgets import Input, OptionList, Static

from agentui.frontends.tui.screens.config import ConfigScreen
from agentui.frontends.tui.widgets.tool_block import ToolBlock
from tests.frontends.tui.test_app import Harness, idle, ready, texts, type_and_send, until

LABELS = ["Theme", "Default permission mode", "Model", "Auto-compact", "Thinking", "Verbose output"]


def user_settings_path(harness: Harness) -> Path:
    return Path(harness.env["CLAUDE_CONFIG_DIR"]) / "settings.json"


def config_path(harness: Harness) -> Path:
    return Path(harness.env["AGENTUI_CONFIG_DIR"]) / "config.json"


async def open_config(pilot: Any) -> ConfigScreen:
    await ready(pilot)
    await type_and_send(pilot, "/config")
    await until(pilot, lambda: isinstance(pilot.app.screen, ConfigScreen))
    return pilot.app.screen  # type: ignore[no-any-return]


async def go_to(pilot: Any, screen: ConfigScreen, label: str) -> None:
    settings = screen.query_one("#settings", OptionList)
    while screen.highlighted is None or screen.highlighted.label != label:
        await pilot.press("down")
        assert settings.highlighted is not None


def said(screen: ConfigScreen) -> str:
    return str(screen.query_one("#said", Static).render())


def row(screen: ConfigScreen, label: str) -> tuple[str | bool, str]:
    [found] = [r for r in screen.rows if r.label == label]
    return found.value, found.source


async def test_the_settings_show_with_their_values_and_sources_and_fit_80x24(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "ok"}])
    user_settings_path(harness).parent.mkdir(parents=True)
    user_settings_path(harness).write_text(json.dumps({"permissions": {"defaultMode": "plan"}, "verbose": True}))
    harness.env["DISABLE_AUTO_COMPACT"] = "1"
    no_compaction = harness.launch.settings.options.model_copy(update={"auto_compact": False})  # (as resolved then)
    harness.launch = replace(
        harness.launch, settings=harness.launch.settings.model_copy(update={"options": no_compaction})
    )
    async with harness.app().run_test(size=(80, 24)) as pilot:
        screen = await open_config(pilot)
        assert [r.label for r in screen.rows] == LABELS
        assert row(screen, "Default permission mode") == ("plan", str(user_settings_path(harness)))
        assert row(screen, "Model") == ("scripted", "default")
        assert row(screen, "Auto-compact") == (False, "DISABLE_AUTO_COMPACT")
        assert row(screen, "Thinking") == (False, "default")
        assert row(screen, "Verbose output") == (True, str(user_settings_path(harness)))
        dialog = screen.query_one("#dialog")
        keys = screen.query_one("#keys")
        assert dialog.region.y >= 0 and dialog.region.bottom <= 24 and dialog.region.right <= 80
        assert keys.region.bottom <= dialog.region.bottom and keys.region.height == 1
        lines = "\n".join(str(o.prompt) for o in screen.query_one("#settings", OptionList)._options)
        assert "Default permission mode  plan" in lines
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(pilot.app.screen, ConfigScreen))
        assert pilot.app.focused is pilot.app.prompt_input


async def test_the_permission_mode_is_saved_to_claude_codes_settings_keeping_the_rest(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "ok"}])
    theirs = {
        "permissions": {"allow": ["Bash(npm test:*)"], "deny": ["Read(./.env)"]},
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]},
        "model": "opus",
        "statusLine": {"type": "command", "command": "echo hi"},
    }
    user_settings_path(harness).parent.mkdir(parents=True)
    user_settings_path(harness).write_text(json.dumps(theirs, indent=4))
    async with harness.app().run_test(size=(80, 24)) as pilot:
        app = pilot.app
        screen = await open_config(pilot)
        await go_to(pilot, screen, "Default permission mode")
        await pilot.press("enter")
        await until(pilot, lambda: row(screen, "Default permission mode")[0] == "acceptEdits")
        assert app.conversation.mode == "acceptEdits" and app.status.status.mode == "acceptEdits"
        assert "this session is in acceptEdits now" in said(screen)
        await pilot.press("space")
        await until(pilot, lambda: row(screen, "Default permission mode")[0] == "plan")
        await pilot.press("left")
        await until(pilot, lambda: row(screen, "Default permission mode")[0] == "acceptEdits")
    written = json.loads(user_settings_path(harness).read_text())
    assert written == {**theirs, "permissions": {**theirs["permissions"], "defaultMode": "acceptEdits"}}
    assert list(written) == list(theirs)  # (in their order)


async def test_a_malformed_settings_file_is_one_sentence_and_left_as_it_is(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "ok"}])
    async with harness.app().run_test(size=(80, 24)) as pilot:
        screen = await open_config(pilot)
        broken = '{"permissions": {"allow": ["Bash(ls)"],}  // mine\n'
        user_settings_path(harness).parent.mkdir(parents=True)
        user_settings_path(harness).write_text(broken)  # (broken while the app runs)
        await go_to(pilot, screen, "Default permission mode")
        await pilot.press("enter")
        await until(pilot, lambda: said(screen))
        assert said(screen) == (
            f"{user_settings_path(harness)} is not valid JSON (line 1, column 40: Expecting property name enclosed "
            "in double quotes), so nothing was written to it; fix it and try again."
        )
        assert screen.query_one("#said").has_class("-problem")
        assert pilot.app.conversation.mode == "default"
    assert user_settings_path(harness).read_text() == broken


async def test_theme_compaction_and_thinking_go_to_agentuis_config_and_apply_at_once(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "ok"}])
    config_path(harness).parent.mkdir(parents=True)
    config_path(harness).write_text(json.dumps({"max_tokens": 16000, "routes": {"title": "scripted"}}))
    async with harness.app().run_test(size=(80, 24)) as pilot:
        app = pilot.app
        screen = await open_config(pilot)
        before = app.theme
        themes = sorted(app.available_themes)
        await pilot.press("enter")  # the theme row comes first
        await until(pilot, lambda: app.theme != before)
        assert app.theme == themes[(themes.index(before) + 1) % len(themes)]
        assert row(screen, "Theme") == (app.theme, "agentui config")
        await go_to(pilot, screen, "Auto-compact")
        await pilot.press("space")
        await until(pilot, lambda: row(screen, "Auto-compact")[0] is False)
        await go_to(pilot, screen, "Thinking")
        await pilot.press("enter")
        await until(pilot, lambda: row(screen, "Thinking")[0] is True)
        options = app.conversation.agent.config.options
        assert options.auto_compact is False and options.thinking_budget == 8000
        assert row(screen, "Thinking")[1] == "agentui config (8,000 tokens)"
        theme = app.theme
    assert json.loads(config_path(harness).read_text()) == {
        "max_tokens": 16000,
        "routes": {"title": "scripted"},
        "theme": theme,
        "auto_compact": False,
        "thinking_budget": 8000,
    }


async def test_the_model_is_typed_in_its_box(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "ok"}])
    async with harness.app().run_test(size=(80, 24)) as pilot:
        app = pilot.app
        screen = await open_config(pilot)
        await go_to(pilot, screen, "Model")
        await pilot.press("enter")
        box = screen.query_one("#model", Input)
        await until(pilot, lambda: box.display and app.focused is box)
        assert box.value == "scripted"
        await pilot.press("escape")  # leaves the model as it is, and the dialog open
        await until(pilot, lambda: not box.display)
        assert isinstance(app.screen, ConfigScreen) and app.conversation.model == "scripted"
        await pilot.press("enter")
        await until(pilot, lambda: app.focused is box)
        box.value = ""
        await pilot.press(*"local-coder", "enter")
        await until(pilot, lambda: row(screen, "Model")[0] == "local-coder")
        assert app.conversation.model == "local-coder" and app.status.status.model == "local-coder"
        assert row(screen, "Model")[1] == "agentui config"
    assert json.loads(config_path(harness).read_text()) == {"model": "local-coder"}


async def test_verbose_output_opens_the_next_results(tmp_path: Path) -> None:
    read = {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": "a.txt"}}
    harness = Harness(tmp_path, [{"content": [read]}, {"text": "Read it."}])
    (harness.project / "a.txt").write_text("hello\n")
    async with harness.app().run_test(size=(80, 24)) as pilot:
        app = pilot.app
        screen = await open_config(pilot)
        await go_to(pilot, screen, "Verbose output")
        await pilot.press("enter")
        await until(pilot, lambda: row(screen, "Verbose output")[0] is True)
        await pilot.press("escape")
        await type_and_send(pilot, "read a.txt")
        await until(pilot, lambda: idle(app) and texts(app, ToolBlock) and texts(app, ToolBlock)[0].state == "done")
        assert texts(app, ToolBlock)[0].expanded  # (a read stays one line unless verbose)
    assert json.loads(user_settings_path(harness).read_text()) == {"verbose": True}
