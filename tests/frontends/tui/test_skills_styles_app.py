"""/skills and /output-style in the app, and a custom command's argument-hint in the completion list (Pilot)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.frontends.tui.test_app import Harness, ready, type_and_send, until
from tests.frontends.tui.test_session_commands_app import notices as said


async def test_skills_lists_each_skill_with_where_it_comes_from(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [])
    for base, name, description in ((tmp_path / "claude", "pdf", "Fill in PDF forms"),
                                    (harness.project / ".claude", "release", "Cut a release")):  # fmt: skip
        (base / "skills" / name).mkdir(parents=True)
        (base / "skills" / name / "SKILL.md").write_text(f"---\ndescription: {description}\n---\nSteps.\n")
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/skills")
        await until(pilot, lambda: any(m.startswith("Skills (2)") for m in said(app)))
        listed = next(m for m in said(app) if m.startswith("Skills (2)")).splitlines()
        assert listed[1:] == ["  pdf · user — Fill in PDF forms", "  release · project — Cut a release"]


async def test_output_style_lists_the_styles_and_switches_to_one(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [])
    (tmp_path / "claude" / "output-styles").mkdir(parents=True)
    (tmp_path / "claude" / "output-styles" / "pirate.md").write_text(
        "---\nname: Pirate\ndescription: Talks like a pirate\n---\nAlways answer like a pirate.\n"
    )
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/output-style")
        await until(pilot, lambda: any(m.startswith("Output styles") for m in said(app)))
        listed = next(m for m in said(app) if m.startswith("Output styles")).splitlines()
        assert listed[1] == "* Default — agentui's own instructions" and "  Pirate — Talks like a pirate" in listed
        assert any(line.startswith("  Explanatory — ") for line in listed)
        await type_and_send(pilot, "/output-style Pirate")
        await until(pilot, lambda: any(m.startswith("Output style set to Pirate") for m in said(app)))
        assert app.conversation is not None
        assert "# Output Style: Pirate" in app.conversation.agent.config.system_prompt
        local = json.loads((harness.project / ".claude" / "settings.local.json").read_text())
        assert local["outputStyle"] == "Pirate"
        await type_and_send(pilot, "/output-style Parrot")
        await until(pilot, lambda: any("no output style named 'Parrot'" in m for m in said(app)))


async def test_completion_shows_a_custom_commands_argument_hint(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [])
    (harness.project / ".claude" / "commands").mkdir(parents=True)
    (harness.project / ".claude" / "commands" / "review.md").write_text(
        "---\ndescription: Review a file\nargument-hint: <file> [focus]\n---\nReview $ARGUMENTS.\n"
    )
    (harness.project / ".claude" / "skills" / "greet").mkdir(parents=True)
    (harness.project / ".claude" / "skills" / "greet" / "SKILL.md").write_text(
        "---\ndescription: Greets warmly\n---\nHi.\n"
    )
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.prompt_input.insert("/rev")
        await pilot.pause()
        [item] = app.query_one("CompletionList").items  # type: ignore[attr-defined]
        assert (item.value, item.description) == ("/review", "<file> [focus] Review a file")
        app.prompt_input.clear()
        app.prompt_input.insert("/gre")
        await pilot.pause()
        [item] = app.query_one("CompletionList").items  # type: ignore[attr-defined]
        assert (item.value, item.description) == ("/greet", "Greets warmly (skill)")  # (a skill, typed as a command)


async def test_a_custom_commands_shell_command_runs_before_its_prompt_is_sent(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [{"text": "Seen."}])
    (harness.project / ".claude" / "commands").mkdir(parents=True)
    (harness.project / ".claude" / "commands" / "where.md").write_text("Branch: !`echo main-branch`\n")
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/where")
        await until(pilot, lambda: bool(harness.providers) and bool(harness.providers[0].requests))
    sent = harness.providers[0].requests[0].messages
    assert any(block.text == "Branch: main-branch\n" for m in sent for block in m.content if hasattr(block, "text"))
