"""/plugin in the app, driven with Pilot: a marketplace added from a folder, a plugin installed from it (its command is
offered at once), listed, disabled; and what cannot be done said in one sentence."""

from __future__ import annotations

import json
from pathlib import Path

from tests.frontends.tui.test_app import Harness, ready, type_and_send
from tests.frontends.tui.test_session_commands_app import notices, said
from tests.support.plugins import write_marketplace


async def test_plugin_adds_a_marketplace_installs_lists_and_disables_a_plugin(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [])
    mkt = write_marketplace(tmp_path / "mkt", tmp_path / "hook.log")
    async with harness.app().run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, f"/plugin marketplace add {mkt}")
        await said(pilot, "Successfully added marketplace: local-mkt (declared in user settings)")
        await type_and_send(pilot, "/plugin install hello@local-mkt")
        await said(pilot, "Successfully installed plugin: hello@local-mkt (scope: user)")
        assert "hello:hi" in pilot.app.custom_commands  # (offered at once)
        await type_and_send(pilot, "/plugin list")
        listed = await said(pilot, "Installed plugins:")
        assert "hello@local-mkt" in listed and "enabled" in listed
        await type_and_send(pilot, "/plugin disable hello@local-mkt")
        await said(pilot, "Successfully disabled plugin: hello@local-mkt (scope: user)")
        assert "hello:hi" not in pilot.app.custom_commands
    settings = json.loads((Path(harness.env["CLAUDE_CONFIG_DIR"]) / "settings.json").read_text())
    assert settings["enabledPlugins"] == {"hello@local-mkt": False}


async def test_plugin_says_in_one_sentence_what_it_cannot_do(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [])
    async with harness.app().run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/plugin install hello@nowhere")
        await said(pilot, "No marketplace named nowhere is known; add it with `plugin marketplace add`.")
        await type_and_send(pilot, "/plugin marketplace add ./missing")
        await said(pilot, f"Path does not exist: {harness.project / 'missing'}")
        await type_and_send(pilot, "/plugin frobnicate")
        await said(pilot, "Usage: plugin marketplace add <source>")
        await type_and_send(pilot, "/plugin install x --scope everywhere")
        await said(pilot, "Invalid scope: everywhere. Must be one of: user, project, local.")
        assert not any("Traceback" in notice for notice in notices(pilot.app))
