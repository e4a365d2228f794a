"""The app shows what the agents of a conversation tell each other: a sub-agent's finding, and the nudge given when
the same call keeps failing (Pilot, scripted model)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentui.frontends.tui.widgets.transcript import Notice
from tests.frontends.tui.test_app import Harness, idle, ready, texts, type_and_send, until


def use(name: str, call_id: str, **arguments: Any) -> dict[str, Any]:
    return {"content": [{"type": "tool_use", "id": call_id, "name": name, "input": arguments}]}


def notices(app: Any) -> list[str]:
    return [str(notice.message) for notice in texts(app, Notice)]


async def test_a_sub_agents_finding_is_shown_as_it_is_posted(tmp_path: Path) -> None:
    script = [
        use("Task", "t1", description="look", prompt="Look around.", subagent_type="general-purpose"),
        use("PostFinding", "p1", finding="The config lives in settings/app.toml."),
        {"text": "report"},
        {"text": "all done"},
    ]
    async with Harness(tmp_path, script).app().run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "look around")
        await until(pilot, lambda: idle(pilot.app) and any("found:" in n for n in notices(pilot.app)))
        (shown,) = [n for n in notices(pilot.app) if "found:" in n]
        assert shown.startswith("general-purpose agent ")
        assert shown.endswith(" found: The config lives in settings/app.toml.")


async def test_the_third_identical_failing_call_shows_that_the_model_was_nudged(tmp_path: Path) -> None:
    missing = str(tmp_path / "project" / "missing.txt")
    script = [*(use("Read", f"r{n}", file_path=missing) for n in range(3)), {"text": "I will stop reading it."}]
    async with Harness(tmp_path, script).app().run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "read missing.txt")
        nudged = "The same failing Read call came 3 times; the model was nudged."
        await until(pilot, lambda: idle(pilot.app) and nudged in notices(pilot.app))
