"""The app with background shells: Ctrl+B sends the running command there, /tasks lists them with their output and
stops one, and a line says when one ends."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import OptionList, Static

from agentui.frontends.tui.screens.background import BackgroundTasksScreen
from agentui.frontends.tui.widgets.tool_block import ToolBlock
from agentui.frontends.tui.widgets.transcript import AssistantText, Notice
from tests.core.tools.test_bash import processes_with
from tests.frontends.tui.test_app import Harness, idle, ready, texts, type_and_send, until


async def test_ctrl_b_backgrounds_the_running_command_and_tasks_stops_it(tmp_path: Path) -> None:
    command = "echo serving; sleep 35.7106; echo never"
    call = {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": command, "description": "serve"}}
    harness = Harness(tmp_path, [{"content": [call]}, {"text": "It runs in the background."}], mode="bypassPermissions")
    app = harness.app()
    async with app.run_test(size=(110, 40)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+b")  # nothing runs yet: it says so
        await until(pilot, lambda: "No command is running" in texts(app, Notice)[-1].message)
        await type_and_send(pilot, "start the server")
        await until(pilot, lambda: processes_with("35.7106") and texts(app, ToolBlock))
        await pilot.press("ctrl+b")
        await until(pilot, lambda: idle(app) and texts(app, AssistantText))
        [block] = texts(app, ToolBlock)
        assert block.state == "done" and "sent to the background as b" in str(block.query_one(".tool-header").render())
        assert processes_with("35.7106")  # still running while the conversation goes on

        await type_and_send(pilot, "/tasks")
        await until(pilot, lambda: isinstance(app.screen, BackgroundTasksScreen))
        screen = app.screen
        output = screen.query_one("#shell-output", Static)
        await until(pilot, lambda: "serving" in str(output.render()))
        assert "(running)" in str(screen.query_one("#shells", OptionList).get_option_at_index(0).prompt)
        await pilot.press("k")
        await until(
            pilot, lambda: "killed" in str(screen.query_one("#shells", OptionList).get_option_at_index(0).prompt)
        )
        assert processes_with("35.7106") == []
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, BackgroundTasksScreen))
        await until(pilot, lambda: any("was stopped" in n.message for n in texts(app, Notice)))


async def test_tasks_lists_a_background_agent_with_its_answer(tmp_path: Path) -> None:
    agent = {"description": "survey", "prompt": "Survey the code.", "run_in_background": True}
    call = {"type": "tool_use", "id": "a1", "name": "Agent", "input": agent}
    # (the parent's next answer and the agent's race for the script: both are the same words)
    harness = Harness(tmp_path, [{"content": [call]}, {"text": "Found it."}, {"text": "Found it."}, {"text": "Ok."}])
    app = harness.app()
    async with app.run_test(size=(110, 40)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "/tasks")
        await until(pilot, lambda: "No background shells or agents" in texts(app, Notice)[-1].message)
        await type_and_send(pilot, "survey it in the background")
        await until(pilot, lambda: idle(app) and texts(app, AssistantText))
        await type_and_send(pilot, "/tasks")
        await until(pilot, lambda: isinstance(app.screen, BackgroundTasksScreen))
        screen = app.screen
        entries = screen.query_one("#shells", OptionList)
        await until(pilot, lambda: "(completed)" in str(entries.get_option_at_index(0).prompt))
        assert "general-purpose agent: survey" in str(entries.get_option_at_index(0).prompt)
        await until(pilot, lambda: "Found it." in str(screen.query_one("#shell-output", Static).render()))
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, BackgroundTasksScreen))
