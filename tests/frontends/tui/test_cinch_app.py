"""In the app: a question nobody answers within `question_timeout` is taken down and the model goes on with its
stated default; a context advisory is one line in the transcript."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from agentui.frontends.tui.screens.question import QuestionScreen
from agentui.frontends.tui.widgets.transcript import Notice
from tests.frontends.tui.test_app import Harness, idle, ready, texts, type_and_send, until
from tests.frontends.tui.test_plan_and_questions_app import QUESTIONS, call, last_result


async def test_an_unanswered_question_goes_on_with_its_first_option_after_the_timeout(tmp_path: Path) -> None:
    harness = Harness(tmp_path, [call("AskUserQuestion", questions=QUESTIONS[:1]), {"text": "Hello it is."}])
    settings = harness.launch.settings.model_copy(update={"question_timeout": 1.0})
    harness.launch = dataclasses.replace(harness.launch, settings=settings)
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "greet")
        await until(pilot, lambda: isinstance(app.screen, QuestionScreen))
        await until(pilot, lambda: not isinstance(app.screen, QuestionScreen) and idle(app))  # (no key pressed)
        result = last_result(harness, 1)
        assert result.content.startswith("The user did not answer within 1 seconds, so the stated defaults")
        assert '"Which greeting?"="Hello"' in result.content and not result.is_error


async def test_a_context_advisory_is_a_one_line_notice(tmp_path: Path) -> None:
    from agentui.core.run_options import ModelOptions

    usage = {"input_tokens": 700, "output_tokens": 10}
    harness = Harness(tmp_path, [{"text": "Done.", "usage": usage}])
    settings = harness.launch.settings.model_copy(update={"options": ModelOptions(context_window=1000)})
    harness.launch = dataclasses.replace(harness.launch, settings=settings)
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "hello")
        await until(pilot, lambda: idle(app))
        said = [notice.message for notice in texts(app, Notice) if "context" in notice.message]
        assert said == ["The context is 71% full (710 tokens); /compact frees it."]


async def test_profile_shows_the_averages_and_sets_and_clears_standing_instructions(tmp_path: Path) -> None:
    usage = {"input_tokens": 300, "output_tokens": 20}
    harness = Harness(tmp_path, [{"text": "One.", "usage": usage}, {"text": "Two.", "usage": usage}])
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "hello")
        await until(pilot, lambda: idle(app))
        await type_and_send(pilot, "/profile")
        await until(pilot, lambda: any("Agent profile" in n.message for n in texts(app, Notice)))
        shown = texts(app, Notice)[-1].message
        assert "scripted: 320 tokens, $0.0000 per model call (1 seen)" in shown
        assert shown.endswith("Standing instructions: none")
        await type_and_send(pilot, "/profile Run the tests with make check.")
        await until(pilot, lambda: "Standing instructions set" in texts(app, Notice)[-1].message)
        await type_and_send(pilot, "again")
        await until(pilot, lambda: idle(app) and len(harness.providers[0].requests) == 2)
        system = harness.providers[0].requests[1].system
        assert "standing instructions for this project" in system and "Run the tests with make check." in system
        await type_and_send(pilot, "/profile clear")
        await until(pilot, lambda: texts(app, Notice)[-1].message == "Standing instructions cleared.")
