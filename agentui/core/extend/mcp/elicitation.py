"""Elicitation requests from MCP servers: put to the person as an ElicitationRequest event when the front end answers
them (the app), and answered through `Conversation.answer` like a permission question (an allow with the fields
accepts, a deny declines, a deny that interrupts cancels); cancelled at once where no one is there to answer (print
mode and the other headless front ends), as Claude Code cancels them. Elicitation hooks may answer a request
before anyone is asked, and ElicitationResult hooks may change the answer before it goes back, as in Claude Code."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agentui.core.events import ElicitationRequest, EventBus, PermissionDecision

if TYPE_CHECKING:
    from agentui.core.extend.hooks import Hooks


class Elicitations:
    def __init__(
        self, bus: EventBus, session_id: Callable[[], str], answered: bool, hooks: Hooks | None = None
    ) -> None:
        self._bus = bus
        self._session_id = session_id
        self.answered = answered
        """The front end shows the requests and answers them (else each is cancelled)."""
        self._hooks = hooks
        self._waiting: dict[str, asyncio.Future[PermissionDecision]] = {}

    async def ask(self, server: str, params: Any) -> Any:
        """The answer to the server's request, as the SDK's ElicitResult: an Elicitation hook's, else the person's
        (cancelled where nobody answers), then as the ElicitationResult hooks leave it."""
        from mcp import types

        mode = "url" if getattr(params, "mode", "form") == "url" else "form"
        request_id = getattr(params, "elicitationId", None)
        if (hooked := await self._hooked(server, params, mode, request_id)) is not None:
            return hooked  # (final: Claude Code runs no ElicitationResult hook on a hook's answer)
        result = await self._asked(server, params)
        if not self._hooks or not self._hooks.listens("ElicitationResult"):
            return result
        said = {"elicitation_id": request_id, "mode": mode, "action": result.action, "content": result.content}
        outcome = await self._hooks.elicitation_result(
            self._session_id(), server, {key: value for key, value in said.items() if value is not None}
        )
        if outcome.decision == "block":
            return types.ElicitResult(action="decline")
        if outcome.answer is not None:
            action, content = outcome.answer
            return types.ElicitResult(action=action, content=content if content is not None else result.content)
        return result

    async def _hooked(self, server: str, params: Any, mode: str, request_id: str | None) -> Any:
        """The Elicitation hooks' answer, or None when they give none (a hook that blocks declines)."""
        from mcp import types

        if not self._hooks or not self._hooks.listens("Elicitation"):
            return None
        schema = getattr(params, "requestedSchema", None)
        request = {"message": str(getattr(params, "message", "")), "mode": mode, "url": getattr(params, "url", None),
                   "elicitation_id": request_id, "requested_schema": schema}  # fmt: skip
        outcome = await self._hooks.elicitation(
            self._session_id(), server, {key: value for key, value in request.items() if value is not None}
        )
        if outcome.decision == "block":
            return types.ElicitResult(action="decline")
        if outcome.answer is not None:
            return types.ElicitResult(action=outcome.answer[0], content=outcome.answer[1])
        return None

    async def _asked(self, server: str, params: Any) -> Any:
        """The person's answer, or a cancel when the front end does not answer requests."""
        from mcp import types

        if not self.answered:  # (nobody to ask: cancelled, as Claude Code's print mode cancels it)
            return types.ElicitResult(action="cancel")
        request_id = f"elicit_{uuid.uuid4().hex[:12]}"
        waiting = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = waiting
        schema = getattr(params, "requestedSchema", None)
        self._bus.emit(
            ElicitationRequest(
                session_id=self._session_id(),
                request_id=request_id,
                server=server,
                message=str(getattr(params, "message", "")),
                requested_schema=dict(schema) if isinstance(schema, dict) else {},
                url=getattr(params, "url", None),
            )
        )
        try:
            decision = await waiting
        finally:
            self._waiting.pop(request_id, None)
        if decision.behavior != "allow":
            return types.ElicitResult(action="cancel" if decision.interrupt else "decline")
        if getattr(params, "mode", "form") != "form":  # (a URL's page: nothing to fill in)
            return types.ElicitResult(action="accept")
        return types.ElicitResult(action="accept", content=typed(decision.updated_input or {}, schema or {}))

    def answer(self, request_id: str, decision: PermissionDecision) -> bool:
        """The person's answer to the request `request_id`; False if none waits for it."""
        waiting = self._waiting.get(request_id)
        if waiting is None or waiting.done():
            return False
        waiting.set_result(decision)
        return True


def typed(content: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """The answers as the schema's types want them (a front end's text boxes give text): numbers, integers and
    booleans read from their words; what does not read stays as given, for the server to refuse."""
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    answers: dict[str, Any] = {}
    for name, value in content.items():
        spec = properties.get(name)
        kind = spec.get("type") if isinstance(spec, dict) else None
        answers[name] = _read(value, kind) if isinstance(value, str) else value
    return answers


def _read(value: str, kind: object) -> Any:
    text = value.strip()
    try:
        if kind == "integer":
            return int(text)
        if kind == "number":
            return float(text)
    except ValueError:
        return value
    if kind == "boolean" and text.lower() in ("y", "yes", "true", "1", "n", "no", "false", "0"):
        return text.lower() in ("y", "yes", "true", "1")
    return value
