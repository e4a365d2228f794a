"""Elicitation requests from MCP servers: put to the person as an ElicitationRequest event when the front end answers
them (the app), and answered through `Conversation.answer` like a permission question (an allow with the fields
accepts, a deny declines, a deny that interrupts cancels); declined at once where no one is there to answer (print
mode and the other headless front ends), as Claude Code declines them."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

from agentui.core.events import ElicitationRequest, EventBus, PermissionDecision


class Elicitations:
    def __init__(self, bus: EventBus, session_id: Callable[[], str], answered: bool) -> None:
        self._bus = bus
        self._session_id = session_id
        self.answered = answered
        """The front end shows the requests and answers them (else each is declined)."""
        self._waiting: dict[str, asyncio.Future[PermissionDecision]] = {}

    async def ask(self, server: str, params: Any) -> Any:
        """The person's answer to the server's request, as the SDK's ElicitResult."""
        from mcp import types

        if not self.answered:
            return types.ElicitResult(action="decline")
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
