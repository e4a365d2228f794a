"""ExitPlanMode and AskUserQuestion in a conversation: the plan and the questions go to the person as permission
requests, and their answer decides the result, the mode and what the model reads (Claude Code's texts, from the
2.0.55 fixture)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentui.core.conversation import Conversation
from agentui.core.events import Event, PermissionDecision, PermissionRequest, ToolEnd
from agentui.core.tools.plan import PLAN_MODE_REMINDER
from tests.core.test_task_state import open_conversation, say, use
from tests.support.listings import without_listings

PLAN = "# Plan\n\n1. Write hello.txt\n"
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
]


def answering(conversation: Conversation, answer: Callable[[PermissionRequest], PermissionDecision]) -> list[str]:
    """Answer every permission request with `answer`; returns the list of tools that asked, as they ask."""
    asked: list[str] = []

    def listener(event: Event) -> None:
        if isinstance(event, PermissionRequest):
            asked.append(event.tool_name)
            conversation.answer(event.request_id, answer(event))

    conversation.on(listener)
    return asked


def results(events: list[Event]) -> dict[str, ToolEnd]:
    return {e.tool_call_id: e for e in events if isinstance(e, ToolEnd)}


def text_of(result: ToolEnd) -> str:
    assert isinstance(result.content, str)
    return result.content


async def test_an_approved_plan_goes_on_in_the_chosen_mode_and_is_saved(tmp_path: Path) -> None:
    script = [
        use("Write", "w0", file_path="early.txt", content="too soon"),
        use("ExitPlanMode", "p1", plan=PLAN),
        use("Write", "w1", file_path="hello.txt", content="hello\n"),
        say("Done."),
    ]
    conversation, provider, events = open_conversation(tmp_path, script, mode="plan")
    asked = answering(
        conversation,
        lambda request: (
            PermissionDecision(behavior="allow", mode="acceptEdits")
            if request.tool_name == "ExitPlanMode"
            else PermissionDecision(behavior="deny")
        ),
    )
    await conversation.send("add a greeting file")
    await conversation.aclose()

    # The model was told it is in plan mode, with the prompt.
    first = provider.requests[0].messages[-1]
    assert [b.text for b in first.content if hasattr(b, "text")][-1] == PLAN_MODE_REMINDER  # type: ignore[attr-defined]
    done = results(events)
    assert done["w0"].is_error and "plan mode" in text_of(done["w0"])  # refused before the plan, without asking
    assert asked == ["ExitPlanMode"]  # the plan only: after it, acceptEdits writes without asking
    approved = text_of(done["p1"])
    saved = tmp_path / "claude" / "plans" / f"{conversation.session_id}.md"
    assert approved.startswith("User has approved your plan. You can now start coding.")
    assert f"Your plan has been saved to: {saved}" in approved and approved.endswith("## Approved Plan:\n" + PLAN)
    assert saved.read_text() == PLAN
    assert done["p1"].details == {"plan": PLAN, "isAgent": False, "filePath": str(saved)}
    assert conversation.mode == "acceptEdits"
    assert (tmp_path / "project" / "hello.txt").read_text() == "hello\n"
    assert not (tmp_path / "project" / "early.txt").exists()


async def test_a_plan_sent_back_with_feedback_keeps_planning(tmp_path: Path) -> None:
    script = [use("ExitPlanMode", "p1", plan=PLAN), say("I will revise it.")]
    conversation, _, events = open_conversation(tmp_path, script, mode="plan")
    answering(conversation, lambda _: PermissionDecision(behavior="deny", message="Use two steps."))
    await conversation.send("plan it")
    await conversation.aclose()
    result = results(events)["p1"]
    assert result.is_error and text_of(result).endswith("The user said: Use two steps.")
    assert "Stop and wait" not in text_of(result)  # the feedback says how to go on
    assert conversation.mode == "plan"
    assert not (tmp_path / "claude" / "plans").exists()


async def test_rules_approve_or_refuse_a_plan_without_asking(tmp_path: Path) -> None:
    # An allow rule approves it (print mode's way): the edits are asked for from then on.
    allowed, _, events = open_conversation(
        tmp_path / "allowed", [use("ExitPlanMode", "p1", plan=PLAN), say("ok")], mode="plan",
        allowed_tools=("ExitPlanMode",),
    )  # fmt: skip
    asked = answering(allowed, lambda _: PermissionDecision(behavior="deny"))
    await allowed.send("plan it")
    await allowed.aclose()
    assert asked == [] and not results(events)["p1"].is_error and allowed.mode == "default"

    # A deny rule wins.
    denied, _, events = open_conversation(
        tmp_path / "denied", [use("ExitPlanMode", "p1", plan=PLAN), say("ok")], mode="plan",
        disallowed_tools=("ExitPlanMode",),
    )  # fmt: skip
    asked = answering(denied, lambda _: PermissionDecision(behavior="allow"))
    await denied.send("plan it")
    await denied.aclose()
    assert asked == [] and results(events)["p1"].is_error and denied.mode == "plan"


async def test_no_plan_mode_reminder_outside_plan_mode(tmp_path: Path) -> None:
    conversation, provider, _ = open_conversation(tmp_path, [say("hi")])
    await conversation.send("hello")
    await conversation.aclose()
    said = without_listings(provider.requests[0].messages[-1].content)
    assert [b.text for b in said] == ["hello"]  # type: ignore[union-attr]


async def test_questions_are_answered_by_the_person_with_claude_codes_result(tmp_path: Path) -> None:
    script = [use("AskUserQuestion", "q1", questions=QUESTIONS), say("Thanks.")]
    # bypassPermissions lets everything run unasked, but a question is still the person's to answer.
    conversation, _, events = open_conversation(tmp_path, script, mode="bypassPermissions")
    answers = {"Which greeting?": "Hi", "Which files?": "a.txt, b.txt"}
    asked = answering(
        conversation,
        lambda request: PermissionDecision(behavior="allow", updated_input={**request.input, "answers": answers}),
    )
    await conversation.send("greet")
    await conversation.aclose()
    assert asked == ["AskUserQuestion"]
    result = results(events)["q1"]
    assert text_of(result) == (
        'User has answered your questions: "Which greeting?"="Hi", "Which files?"="a.txt, b.txt". '
        "You can now continue with the user's answers in mind."
    )
    assert result.details == {"questions": QUESTIONS, "answers": answers}
    # The session keeps the model's call as it was and the answers in the result's toolUseResult, as Claude Code's.
    lines = [json.loads(line) for line in conversation.session.path.read_text().splitlines()]
    call = next(
        b for e in lines if e["type"] == "assistant" for b in e["message"]["content"] if b["type"] == "tool_use"
    )
    assert "answers" not in call["input"]
    stored = next(e["toolUseResult"] for e in lines if e["type"] == "user" and "toolUseResult" in e)
    assert stored["answers"] == answers


async def test_a_question_not_answered_or_answered_wrong_is_an_error_the_model_reads(tmp_path: Path) -> None:
    replies: list[dict[str, Any] | None] = [None, {"questions": "not a list"}]
    script = [use("AskUserQuestion", "q1", questions=QUESTIONS), use("AskUserQuestion", "q2", questions=QUESTIONS)]
    conversation, _, events = open_conversation(tmp_path, [*script, say("ok")])
    answering(conversation, lambda _: PermissionDecision(behavior="allow", updated_input=replies.pop(0)))
    await conversation.send("ask")
    await conversation.aclose()
    done = results(events)
    assert done["q1"].is_error and "did not answer" in text_of(done["q1"])
    assert done["q2"].is_error and text_of(done["q2"]).startswith("AskUserQuestion was not run: the answer had")


async def test_bad_questions_from_the_model_are_refused_before_asking(tmp_path: Path) -> None:
    one_option = [{**QUESTIONS[0], "options": QUESTIONS[0]["options"][:1]}]  # type: ignore[index]
    conversation, _, events = open_conversation(
        tmp_path, [use("AskUserQuestion", "q1", questions=one_option), say("ok")]
    )
    asked = answering(conversation, lambda _: PermissionDecision(behavior="deny"))
    await conversation.send("ask")
    await conversation.aclose()
    assert asked == [] and "at least 2" in text_of(results(events)["q1"])


async def test_sub_agents_cannot_ask_the_person_or_approve_plans(tmp_path: Path) -> None:
    script = [
        use("Agent", "t1", description="look", prompt="look around", subagent_type="general-purpose"),
        say("looked"),
        say("done"),
    ]
    conversation, provider, _ = open_conversation(tmp_path, script, mode="plan")
    await conversation.send("go")
    await conversation.aclose()
    parent_tools = {t.name for t in provider.requests[0].tools}
    child_tools = {t.name for t in provider.requests[1].tools}
    assert {"AskUserQuestion", "ExitPlanMode"} <= parent_tools
    assert not {"AskUserQuestion", "ExitPlanMode", "Agent"} & child_tools and "Read" in child_tools
