"""AskUserQuestion: the model asks the person one to four multiple-choice questions (Claude Code's shape). The
questions are the permission request; the front end's answer comes back as the call's arguments with `answers`
filled in, and the result tells the model what was chosen."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import Field
from typing_extensions import TypedDict

from agentui.core.call_views import ResultView
from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolResult

OTHER = "Other"
"""The choice every question has besides its options: the person types an answer of their own."""


class QuestionOption(ToolArgs):
    label: str = Field(min_length=1, description="The choice, in 1 to 5 words")
    description: str = Field(default="", description="What choosing it means, its trade-offs")


class Question(ToolArgs):
    question: str = Field(min_length=1, description="The whole question, ending with a question mark")
    header: str = Field(default="", description="A very short label for it (at most 12 characters): 'Auth method'")
    options: list[QuestionOption] = Field(
        min_length=2, max_length=4, description="2 to 4 choices; the user can always type another answer instead"
    )
    multiSelect: bool = Field(default=False, description="true if several choices may be picked together")


class AskUserQuestionArgs(ToolArgs):
    questions: list[Question] = Field(min_length=1, max_length=4, description="1 to 4 questions to ask")
    answers: dict[str, str] | None = Field(default=None, description="Filled in by the user's answers; leave it out")


class AskUserQuestionDetails(TypedDict):
    questions: list[dict[str, Any]]
    answers: dict[str, str]
    """The person's answer to each question, by the question."""


class AskUserQuestion(Tool[Any]):
    name = "AskUserQuestion"
    description = (
        "Ask the user multiple-choice questions while you work: to settle what they want where it is ambiguous, "
        "to choose between approaches, or to get a decision you should not take alone. Each question has 2 to 4 "
        "options (the user may always type another answer); use multiSelect when choices are not exclusive. If you "
        "recommend an option, put it first and add '(Recommended)' to its label. In plan mode, ask before "
        "presenting the plan, and not to approve the plan itself (ExitPlanMode does that)."
    )
    Args = AskUserQuestionArgs
    Details = AskUserQuestionDetails
    kind = "read"
    asks = "questions"

    @classmethod
    def title(cls, arguments: Mapping[str, Any], cwd: Path | None) -> str:
        asked = arguments.get("questions")
        questions: list[Any] = asked if isinstance(asked, list) else []
        first = questions[0].get("question", "") if questions and isinstance(questions[0], dict) else ""
        more = f" (+{len(questions) - 1} more)" if len(questions) > 1 else ""
        return f"{first}{more}"

    @classmethod
    def result(cls, text: str, details: Mapping[str, Any]) -> ResultView:
        answers = details.get("answers") or {}
        return ResultView("; ".join(str(a) for a in answers.values())[:200] or "answered")

    main_only = True

    def __init__(self, timeout: float | None = None) -> None:
        self.answer_timeout = timeout
        """The setting `question_timeout`: seconds to wait for the person before going on with each question's
        first option; None: as long as it takes."""
        self._defaulted: set[str] = set()

    def default_answer(self, tool_call_id: str, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
        """Each question's first option: its stated default (the model puts the one it recommends first)."""
        try:
            asked = AskUserQuestionArgs.model_validate(arguments)
        except ValueError:
            return None
        self._defaulted.add(tool_call_id)
        return {**arguments, "answers": {q.question: q.options[0].label for q in asked.questions}}

    async def run(self, args: AskUserQuestionArgs, ctx: ToolContext) -> ToolResult:
        answers = args.answers or {}
        answered = [(q.question, answers[q.question]) for q in args.questions if answers.get(q.question)]
        if not answered:
            return ToolResult.error(
                "The user did not answer the questions. Go on with your best judgment, and say what you assumed."
            )
        said = ", ".join(f'"{question}"="{answer}"' for question, answer in answered)
        details = AskUserQuestionDetails(questions=[q.model_dump() for q in args.questions], answers=answers)
        if ctx.tool_call_id in self._defaulted:
            self._defaulted.discard(ctx.tool_call_id)
            return ToolResult(
                f"The user did not answer within {self.answer_timeout or 0:g} seconds, so the stated defaults were "
                f"taken: {said}. Go on with them, and say that you did.",
                details=details,
            )
        return ToolResult(
            f"User has answered your questions: {said}. You can now continue with the user's answers in mind.",
            details=details,
        )
