"""A question that appears while the person is typing ahead (a permission question, the plan, the model's questions,
the trust and MCP questions): the keys they go on typing stay the prompt's and answer nothing until they stop (a `y`
of a word meant for the prompt approved the command before); then the keys answer as always."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from textual.app import App

from agentui.core.providers.scripted import ScriptedProvider
from agentui.frontends.tui import type_ahead
from agentui.frontends.tui.screens.mcp_approval import McpApprovalScreen
from agentui.frontends.tui.screens.permission import PermissionScreen
from agentui.frontends.tui.screens.plan_approval import PlanApproval
from agentui.frontends.tui.screens.question import QuestionScreen
from agentui.frontends.tui.screens.trust import TrustScreen
from agentui.frontends.tui.screens.yes_or_no import YesOrNoScreen
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
        assert app.conversation is not None and app.conversation.project.engine.mode == (mode or "default")
        assert not (harness.project / "notes.txt").exists()
        monkeypatch.setattr(type_ahead, "HOLD_SECONDS", 0)  # (they stopped typing and read it)
        await pilot.press(answer)
        await until(pilot, lambda: not isinstance(app.screen, dialog))


class TypedInto:
    """A prompt the person was typing into a moment ago."""

    def __init__(self) -> None:
        self.typed_at = time.monotonic()
        self.text = ""

    def insert(self, text: str) -> None:
        self.text += text


@pytest.mark.parametrize("kind", ["trust", "mcp"])
async def test_the_trust_and_mcp_questions_hold_the_keys_typed_as_they_appear(
    monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """They open by themselves as a conversation opens, while the person may be typing their first prompt: a `y` of
    it trusted the project (its hooks run) or started the project's MCP server."""
    monkeypatch.setattr(type_ahead, "HOLD_SECONDS", 3600, raising=False)
    prompt = TypedInto()
    hold = type_ahead.TypingHold(prompt)
    screen: YesOrNoScreen[Any] = (
        TrustScreen("/p", ["hooks"], hold) if kind == "trust" else McpApprovalScreen("s", "npx s", hold)
    )
    answers: list[Any] = []
    app: App[None] = App()
    async with app.run_test() as pilot:
        app.push_screen(screen, answers.append)
        await pilot.press("y", "e", "s", "enter", "n")
        assert app.screen is screen and answers == [] and prompt.text == "yesn"
        monkeypatch.setattr(type_ahead, "HOLD_SECONDS", 0)
        await pilot.press("y")
        assert answers == [True]


async def test_an_mcp_servers_question_holds_the_keys_typed_as_it_appears(monkeypatch: pytest.MonkeyPatch) -> None:
    """An elicitation opens when a server asks, maybe while the person types their next prompt: its first box took
    the keys and an Enter sent the server their half-typed words as the answer."""
    from agentui.api.events import ElicitationRequest
    from agentui.frontends.tui.screens.elicitation import ElicitationScreen

    monkeypatch.setattr(type_ahead, "HOLD_SECONDS", 3600, raising=False)
    prompt = TypedInto()
    schema = {"type": "object", "properties": {"place": {"type": "string"}}, "required": ["place"]}
    request = ElicitationRequest(
        server="notes", message="Where?", requested_schema=schema, request_id="r1", session_id="s"
    )
    screen = ElicitationScreen(request, type_ahead.TypingHold(prompt))
    answers: list[Any] = []
    app: App[None] = App()
    async with app.run_test() as pilot:
        app.push_screen(screen, answers.append)
        await until(pilot, lambda: app.screen is screen)
        await pilot.press(*"prod", "enter", "x")
        await pilot.pause()
        assert app.screen is screen and answers == [] and prompt.text == "prodx"
        assert screen.query_one("#field-0").value == ""  # type: ignore[attr-defined]
        monkeypatch.setattr(type_ahead, "HOLD_SECONDS", 0)  # (they stopped, and read it)
        await pilot.press(*"dev")
        await until(pilot, lambda: screen.query_one("#field-0").value == "dev")  # type: ignore[attr-defined]
        await pilot.press("enter")
        await until(pilot, lambda: len(answers) == 1)
        assert answers[0].behavior == "allow" and answers[0].updated_input == {"place": "dev"}


def test_keys_the_prompt_took_after_the_question_was_made_still_hold_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A question is made when it is asked and shown a moment later; keys already on their way meanwhile go to the
    prompt. Those count: a flood of typing held up the question's screen for 0.4 s, and a `y` just after it showed
    approved the command, because the hold counted only from the prompt's last key before the question was made."""
    monkeypatch.setattr(type_ahead, "HOLD_SECONDS", 3600)  # (no pause of a slow machine between two lines counts)
    prompt = TypedInto()
    prompt.typed_at = time.monotonic() - 10 * type_ahead.HOLD_SECONDS  # long before the question
    hold = type_ahead.TypingHold(prompt)
    assert not hold.holding
    prompt.typed_at = time.monotonic()  # typed into the prompt before the question's screen took the keys
    assert hold.holding


def test_the_hold_is_set_in_seconds_and_a_malformed_one_is_said_in_a_sentence() -> None:
    assert type_ahead._hold_seconds("2.5") == 2.5 and type_ahead._hold_seconds(None) == 0.5
    assert type_ahead._hold_seconds("soon") == 0.5 and type_ahead._hold_seconds("-1") == 0.5
    assert type_ahead._hold_seconds("inf") == 0.5 and type_ahead._hold_seconds("0") == 0.0
    assert type_ahead.hold_problem({"AGENTUI_TYPING_HOLD": "inf"}) is not None
    assert type_ahead.hold_problem({"AGENTUI_TYPING_HOLD": "2.5"}) is None and type_ahead.hold_problem({}) is None
    assert type_ahead.hold_problem({"AGENTUI_TYPING_HOLD": "0.50"}) is None  # (the default, written otherwise)
    said = type_ahead.hold_problem({"AGENTUI_TYPING_HOLD": "soon"})
    assert said is not None and "'soon', not a number of seconds from 0" in said
