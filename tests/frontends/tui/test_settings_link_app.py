"""An "always" answer in a project whose .claude/settings.local.json is a link to the person's own settings: the rule
is not written through it (it would hold in every project), the call runs, and one sentence says so."""

from __future__ import annotations

from pathlib import Path

from agentui.frontends.tui.screens.permission import PermissionScreen
from agentui.frontends.tui.widgets.transcript import Notice
from tests.frontends.tui.test_app import Harness, idle, ready, texts, type_and_send, until, write_script


async def test_always_through_a_link_out_of_the_project_keeps_the_rule_for_the_session_only(tmp_path: Path) -> None:
    harness = Harness(tmp_path, write_script())
    own = Path(harness.env["CLAUDE_CONFIG_DIR"]) / "settings.json"
    own.parent.mkdir(parents=True)
    own.write_text("{}\n")
    (harness.project / ".claude").mkdir()
    (harness.project / ".claude" / "settings.local.json").symlink_to(own)
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "write the note")
        await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await pilot.press("a")
        await until(pilot, lambda: idle(app))
        assert (harness.project / "notes.txt").read_text() == "hello\n"  # (the person said yes)
        assert own.read_text() == "{}\n"
        said = [str(n.render()) for n in texts(app, Notice)]
        assert any(
            "holds for this session, but it could not be saved" in s and "link out of the project" in s for s in said
        ), said
        assert app.conversation is not None
        assert [r.text for r in app.conversation.project.engine.rules if r.behavior == "allow"] == ["Edit"]
