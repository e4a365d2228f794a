"""A question that appears while the person is typing ahead (a permission question, the plan, the model's questions):
the keys they go on typing stay the prompt's and answer nothing until they stop (a `y` of a word meant for the prompt
approved the command before); then the keys answer as always."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agentui.core.providers.scripted import ScriptedProvider
from agentui.frontends.tui import type_ahead
from agentui.frontends.tui.screens.permission import PermissionScreen
from agentui.frontends.tui.screens.plan_approval import PlanApproval
from agentui.frontends.tui.screens.question import QuestionScreen
from tests.frontends.tui.test_app import Harness, ready, type_and_send, until, write_script
from tests.frontends.tui.test_plan_and_questions_app import QUESTIONS, call, plan_script


class Gated(ScriptedProvider):
    """The scripted model, answering only once the test has typed ahead."""

    def __init__(self, script: list[dict[str, Any]], gate: asyncio.Event) -> None:
        super().__init__(script)
        self.gate = gate

    async def stream(self, request: Any) -> AsyncIterator[Any]:
        await self.gate.wait()
        async for event in super().stream(request):
            yield event


@pytest.mark.parametrize(
    ("script", "mode", "dialog", "keys", "answer"),
    [
        (write_script(), None, PermissionScreen, ["y", "a", "s", "1", "tab", "n", "enter"], "y"),
        (plan_script(), "plan", PlanApproval, ["1", "y", "2", "tab", "n", "enter"], "1"),
        ([call("AskUserQuestion", questions=QUESTIONS[:1]), {"text": "k"}], None, QuestionScreen, ["1", "enter"], "2"),
    ],
)
async def test_keys_typed_as_a_question_appears_go_into_the_prompt_and_answer_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    script: list[dict[str, Any]],
    mode: str | None,
    dialog: type,
    keys: list[str],
    answer: str,
) -> None:
    monkeypatch.setattr(type_ahead, "HOLD_SECONDS", 3600, raising=False)  # (the person never stops, until below)
    harness = Harness(tmp_path, script, mode=mode)
    gate = asyncio.Event()

    def provider() -> ScriptedProvider:
        made = Gated(script, gate)
        harness.providers.append(made)
        return made

    harness.provider = provider  # type: ignore[method-assign]
    app = harness.app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await type_and_send(pilot, "go on")
        await pilot.press(*"also ")  # (typing ahead while the model works)
        gate.set()
        await until(pilot, lambda: isinstance(app.screen, dialog))
        await pilot.press(*keys)
        await pilot.pause()
        assert isinstance(app.screen, dialog), "a key typed for the prompt answered the question"
        assert app.prompt_input.text == "also " + "".join(k for k in keys if len(k) == 1)
        assert not (harness.project / "notes.txt").exists() and app.conversation.project.engine.mode == (
            mode or "default"
        )
        monkeypatch.setattr(type_ahead, "HOLD_SECONDS", 0)  # (they stopped typing and read it)
        await pilot.press(answer)
        await until(pilot, lambda: not isinstance(app.screen, dialog))
