"""Waiting for the person's answer to a question a tool asks, for at most the tool's `answer_timeout`: then the call
goes on with its stated default (AskUserQuestion's first options), as if the person had chosen it."""

from __future__ import annotations

import asyncio
from typing import Any

from agentui.core.events import PermissionDecision
from agentui.core.messages import ToolUseBlock
from agentui.core.tools.base import Tool


async def answer_or_default(
    future: asyncio.Future[PermissionDecision], tool: Tool[Any], call: ToolUseBlock
) -> PermissionDecision:
    """The person's answer; or, when the tool waits no longer than `answer_timeout` and none came, an allow with
    the tool's default arguments (the question then resolved, so front ends take it off the screen)."""
    seconds = tool.answer_timeout
    if seconds is None:
        return await future
    try:
        return await asyncio.wait_for(asyncio.shield(future), seconds)
    except TimeoutError:
        if future.done():  # (answered just as the time ran out)
            return future.result()
        default = tool.default_answer(call.id, call.input)
        if default is None:
            return await future
        future.cancel()
        return PermissionDecision(behavior="allow", updated_input=default)
