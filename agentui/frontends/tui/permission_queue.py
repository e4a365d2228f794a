"""Permission questions (and MCP servers' elicitation requests), one at a time: each waits its turn, is shown as a
dialog over the transcript, and its answer goes to the engine once the transcript is back on screen."""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from agentui.api import describe_call
from agentui.frontends.tui.attention import call_attention
from agentui.frontends.tui.type_ahead import TypingHold

if TYPE_CHECKING:
    from pathlib import Path

    from textual.screen import ModalScreen

    from agentui.api.events import ElicitationRequest, PermissionDecision, PermissionRequest, PermissionResolved
    from agentui.frontends.tui.host import AppHost

    Question = PermissionRequest | ElicitationRequest


def dialog_for(
    request: PermissionRequest, cwd: Path, hold: TypingHold | None = None
) -> ModalScreen[PermissionDecision]:
    """The dialog that asks: the model's questions, its plan, or the permission question for any other call. `hold`:
    what the person goes on typing into the prompt as it appears stays the prompt's (type_ahead.TypingHold)."""
    asks = describe_call(request.tool_name, request.input, cwd).asks
    if asks == "questions":
        from agentui.frontends.tui.screens.question import QuestionScreen

        return QuestionScreen(request, hold)
    if asks == "plan":
        from agentui.frontends.tui.screens.plan_approval import PlanApproval

        return PlanApproval(request, cwd, hold)
    from agentui.frontends.tui.screens.permission import PermissionScreen

    return PermissionScreen(request, cwd, hold)


class PermissionQueue:
    def __init__(self, app: AppHost) -> None:
        self.app = app
        self._questions: deque[Question] = deque()
        self._asking: ModalScreen[PermissionDecision] | None = None
        self._asked: Question | None = None
        """The question on screen."""

    def ask(self, request: Question | PermissionResolved) -> None:
        """A question, in its turn; or word that one was resolved without the person (an AskUserQuestion that
        waited its `question_timeout` out), which takes it off the screen."""
        from agentui.api.events import PermissionResolved

        if isinstance(request, PermissionResolved):
            self._withdraw(request.request_id)
            return
        self._questions.append(request)
        if self._asking is None:
            self._next()

    def _withdraw(self, request_id: str) -> None:
        self._questions = deque(q for q in self._questions if q.request_id != request_id)
        if self._asking is not None and self._asked is not None and self._asked.request_id == request_id:
            self._asking.dismiss(None)

    def cancel_all(self) -> None:
        """The run was interrupted: what waits is dropped, and the question on screen is answered no."""
        from agentui.api.events import PermissionDecision

        self._questions.clear()
        if self._asking is not None:
            self._asking.dismiss(PermissionDecision(behavior="deny"))

    def _next(self) -> None:
        app = self.app
        conversation = app.view.conversation
        if not self._questions or conversation is None:
            self._asking = None
            app.prompt_input.focus()
            return
        from agentui.api.events import ElicitationRequest

        request = self._questions.popleft()
        if isinstance(request, ElicitationRequest):
            self._elicit(request)
            return
        tool = app.view.tool(request.tool_call_id)
        if tool is not None:
            tool.set_arguments(request.input)
            tool.ask()
        self._asking, self._asked = dialog_for(request, conversation.root, TypingHold(app.prompt_input)), request
        app.push_screen(self._asking, lambda decision: self._answered(request, decision))
        said = {"questions": "the model has questions for you", "plan": "the plan is ready for you"}
        asks = describe_call(request.tool_name, request.input).asks
        call_attention(app, said.get(asks, f"{request.tool_name} is waiting for your answer"))

    def _elicit(self, request: ElicitationRequest) -> None:
        from agentui.frontends.tui.screens.elicitation import ElicitationScreen

        self._asking = ElicitationScreen(request, TypingHold(self.app.prompt_input))
        self._asked = request
        self.app.push_screen(self._asking, lambda decision: self._answered(request, decision))
        call_attention(self.app, f"the MCP server {request.server} is waiting for your answer")

    def _answered(self, request: Question, decision: PermissionDecision | None) -> None:
        if decision is not None and decision.interrupt:
            self.app.view.ending = True  # (a plain No ends the turn: what is typed from now on is the next prompt)
        # Tell the engine only once the question is gone and the transcript is back on screen: what the answer
        # sets off (the tool's result, the next answer) must not update a screen that is still hidden.
        self.app.call_after_refresh(self._deliver, request, decision)

    def _deliver(self, request: Question, decision: PermissionDecision | None) -> None:
        from agentui.api.events import ElicitationRequest, PermissionDecision

        self._asking = self._asked = None
        view = self.app.view
        if isinstance(request, ElicitationRequest):  # (a server's request: its answer goes back, nothing else)
            if view.conversation is not None:
                view.conversation.answer(request.request_id, decision or PermissionDecision(behavior="deny"))
            self._next()
            return
        tool = view.tool(request.tool_call_id)
        if tool is not None and decision is not None and decision.behavior == "allow":
            tool.start()
        if decision is not None and decision.interrupt:
            self._questions.clear()  # (a plain No ends the turn: the engine answers the others itself)
        if view.conversation is not None:
            view.conversation.answer(request.request_id, decision or PermissionDecision(behavior="deny"))
            if decision is not None and decision.behavior == "allow" and decision.mode is not None:
                view.mode_changed(view.conversation.mode)
            if decision is not None and decision.scope == "always" and decision.behavior == "allow":
                view.say(
                    f"Saved to .claude/settings.local.json: {', '.join(request.suggestions) or request.tool_name}."
                )
        self._next()
