"""The plan dialog and the question dialog, driven by keys: what each key answers, the mode the work goes on in, and
what the model reads back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Markdown

from agentui.frontends.tui.screens.plan_approval import PlanApproval
from agentui.frontends.tui.screens.question import QuestionScreen
from agentui.frontends.tui.widgets.status_bar import StatusBar
from agentui.frontends.tui.widgets.tool_block import ToolBlock
from agentui.frontends.tui.widgets.transcript import UserPrompt
from tests.frontends.tui.test_app import Harness, idle, ready, texts, type_and_send, until

PLAN = "# Greeting plan\n\n1. Write **hello.txt**\n"
QUESTIONS = [
    {
        "question": "Which greeting?",
        "header": "Greeting",
        "options": [{"label": "Hello", "description": "plain"}, {"label": "Hi", "description": "short"}],
        "multiSelect": False,
    },
    {
        "question": "Which files?",
        "header": "Files",
        "options": [{"label": "a.txt", "description": ""}, {"label": "b.txt", "description": ""}],
        "multiSelect": True,
    },
    {
        "question": "Anything else?",
        "header": "Extra",
        "options": [{"label": "No", "description": ""}, {"label": "Yes", "description": ""}],
        "multiSelect": False,
    },
]


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"content": [{"type": "tool_use", "id": f"call_{name}", "name": name, "input": arguments}]}


def plan_script() -> list[dict[str, Any]]:
    return [
        call("ExitPlanMode", plan=PLAN),
        call("Write", file_path="hello.txt", content="hello\n"),
        {"text": "Written."},
    ]


def last_result(harness: Harness, request: int) -> Any:
    return harness.providers[0].requests[request].messages[-1].content[0]


async def test_approving_a_plan_with_1_goes_on_accepting_edits(tmp_path: Path) -> None:
    harness = Harness(tmp_path, plan_script(), mode="plan")
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "add a greeting")
        await until(pilot, lambda: isinstance(app.screen, PlanApproval))
        shown = app.screen.query_one("#plan", Markdown)
        assert "Greeting plan" in shown.source
        await pilot.press("1")
        await until(pilot, lambda: idle(app))
        assert app.conversation is not None and app.conversation.mode == "acceptEdits"
        assert app.query_one(StatusBar).status.mode == "acceptEdits"
        assert (harness.project / "hello.txt").read_text() == "hello\n"  # the edit was not asked for
        assert last_result(harness, 1).content.startswith("User has approved your plan.")
        # The prompt shows as typed: plan mode's reminder to the model is not the person's text.
        assert [p.text for p in texts(app, UserPrompt)] == ["add a greeting"]


async def test_approving_with_2_asks_for_each_edit(tmp_path: Path) -> None:
    harness = Harness(tmp_path, plan_script(), mode="plan")
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "add a greeting")
        await until(pilot, lambda: isinstance(app.screen, PlanApproval))
        await pilot.press("2")
        from agentui.frontends.tui.screens.permission import PermissionScreen

        await until(pilot, lambda: type(app.screen) is PermissionScreen)  # the Write asks
        assert app.conversation is not None and app.conversation.mode == "default"
        await pilot.press("y")
        await until(pilot, lambda: idle(app))
        assert (harness.project / "hello.txt").exists()


async def test_keep_planning_sends_the_feedback_to_the_model(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [call("ExitPlanMode", plan=PLAN), {"text": "Revising."}], mode="plan")
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "add a greeting")
        await until(pilot, lambda: isinstance(app.screen, PlanApproval))
        await pilot.press("3", *"say hi 2 times")  # (the 2 is part of the feedback, not an answer)
        await pilot.press("enter")
        await until(pilot, lambda: idle(app))
        result = last_result(harness, 1)
        assert result.is_error and result.content.endswith("The user said: say hi 2 times")
        assert app.conversation is not None and app.conversation.mode == "plan"
        [block] = texts(app, ToolBlock)
        assert str(block._header.render()).endswith("denied — you said: say hi 2 times")


async def test_questions_are_answered_with_keys_and_the_model_reads_the_answers(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [call("AskUserQuestion", questions=QUESTIONS), {"text": "Thanks."}])
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "greet")
        await until(pilot, lambda: isinstance(app.screen, QuestionScreen))
        screen = app.screen
        assert "Greeting" in str(screen.query_one("#dialog").border_title)
        await pilot.press("down", "enter")  # the second option: Hi
        await until(pilot, lambda: "Files" in str(screen.query_one("#dialog").border_title))
        await pilot.press("1", "2", "1")  # tick a.txt and b.txt, untick a.txt
        await pilot.press("3", *"c 2.txt", "enter")  # Other, typed (its 2 is a character)
        await until(pilot, lambda: "Extra" in str(screen.query_one("#dialog").border_title))
        await pilot.press("1")
        await until(pilot, lambda: idle(app))
        result = last_result(harness, 1)
        assert result.content == (
            'User has answered your questions: "Which greeting?"="Hi", "Which files?"="b.txt, c 2.txt", '
            '"Anything else?"="No". You can now continue with the user\'s answers in mind.'
        )
        [block] = texts(app, ToolBlock)
        assert "Hi; b.txt, c 2.txt; No" in str(block._header.render())


async def test_multi_select_done_and_esc_declines(tmp_path: Path) -> None:
    questions = [QUESTIONS[1]]
    script = [call("AskUserQuestion", questions=questions), call("AskUserQuestion", questions=questions), {"text": "k"}]
    harness = Harness(tmp_path, script)
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "ask")
        await until(pilot, lambda: isinstance(app.screen, QuestionScreen))
        first = app.screen
        await pilot.press("end", "enter")  # Done with nothing ticked: nothing happens
        assert app.screen is first
        await pilot.press("2", "end", "enter")
        await until(pilot, lambda: isinstance(app.screen, QuestionScreen) and app.screen is not first)
        await pilot.press("3")  # Other; Esc leaves the box, a second Esc declines
        await pilot.press("escape")
        assert isinstance(app.screen, QuestionScreen)
        await pilot.press("escape")
        await until(pilot, lambda: idle(app))
        requests = harness.providers[0].requests
        assert len(requests) == 2  # declining ends the turn: the model is not called again until the person writes
        await type_and_send(pilot, "go on")
        await until(pilot, lambda: len(requests) == 3 and idle(app))
        answered = requests[1].messages[-1].content[0]
        declined = requests[2].messages[-3].content[0]
        assert '"Which files?"="b.txt"' in answered.content
        assert declined.is_error and "doesn't want to proceed" in declined.content
        said = [m.content[0].text for m in requests[2].messages[-2:]]
        assert said == ["[Request interrupted by user for tool use]", "go on"], said


async def test_a_plan_shows_its_queued_changes_and_applies_the_checked_ones(tmp_path: Path) -> None:
    script = [
        call("Write", file_path="a.txt", content="one\n"),
        call("Write", file_path="b.txt", content="two\n"),
        call("Write", file_path="c.txt", content="three\n"),
        call("ExitPlanMode", plan=PLAN),
        {"text": "Done."},
    ]
    harness = Harness(tmp_path, script, mode="plan")
    harness.env["AGENTUI_PLAN_QUEUE"] = "1"
    app = harness.app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "add three files")
        await until(pilot, lambda: isinstance(app.screen, PlanApproval))
        screen = app.screen
        assert not (harness.project / "a.txt").exists()  # queued, not made
        headings = [str(w.render()) for w in screen.query(".queued-heading")]
        assert [h.split("  ")[0] for h in headings] == ["Queued: a.txt", "Queued: b.txt", "Queued: c.txt"]
        assert "+ one" in str(screen.query(".queued-diff").first().render())
        await pilot.press("b")  # uncheck b.txt
        assert "[ ] b.txt" in str(screen.query_one("#file-1").render())
        assert "[x] a.txt" in str(screen.query_one("#file-0").render())
        await pilot.press("1")
        await until(pilot, lambda: idle(app))
        assert (harness.project / "a.txt").read_text() == "one\n"
        assert (harness.project / "c.txt").read_text() == "three\n"
        assert not (harness.project / "b.txt").exists()
        assert app.conversation is not None and app.conversation.mode == "acceptEdits"
