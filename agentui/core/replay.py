"""replay(): a resumed conversation's history as the events a live run emits, in the order it would emit them, so
that a front end draws history with the handlers it uses live (and a protocol sends it as it sends a live run).

For each user message: its tool results as ToolEnd (with the details the session recorded: a diff, an exit code),
then, when it holds anything else, the message itself as UserMessage (its `source` says whether the person typed
it or it marks an interrupt). A summary left by compaction is CompactionEnd. For each assistant message:
MessageStart, a TextDelta or ThinkingDelta per block, ContentBlockEnd for each tool call, MessageEnd, and then
ToolStart for each tool call (its ToolEnd comes with the next user message, as it does live). No run is replayed:
there is no AgentStart, TurnStart or usage.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from agentui.core.events import (
    CompactionEnd,
    ContentBlockEnd,
    Event,
    MessageEnd,
    MessageStart,
    TextDelta,
    ThinkingDelta,
    ToolEnd,
    ToolStart,
    UserMessage,
    UserSource,
)
from agentui.core.messages import (
    INTERRUPTED,
    SUMMARY_PREFIX,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    is_summary,
    was_refused,
)
from agentui.core.tools.skill import SKILL_LOADED


def replay(messages: Sequence[Message], tool_details: Mapping[str, dict[str, Any]], session_id: str) -> Iterator[Event]:
    """The events of a history: see the module's docstring."""
    names: dict[str, str] = {}
    for message in messages:
        if message.role == "user":
            yield from _user(message, tool_details, names, session_id)
        else:
            yield from _assistant(message, names, session_id)


def _user(
    message: Message, tool_details: Mapping[str, dict[str, Any]], names: dict[str, str], session_id: str
) -> Iterator[Event]:
    if is_summary(message):
        yield CompactionEnd(session_id=session_id, summary=message.text.removeprefix(SUMMARY_PREFIX), post_tokens=0)
        return
    rest = []
    for block in message.content:
        if isinstance(block, ToolResultBlock):
            details = tool_details.get(block.tool_use_id, {})
            yield ToolEnd(
                session_id=session_id,
                tool_call_id=block.tool_use_id,
                name=names.get(block.tool_use_id, ""),
                content=block.content,
                is_error=block.is_error,
                details=details,
                denied=was_refused(block.content, details),
            )
        else:
            rest.append(block)
    text = "".join(block.text for block in rest if isinstance(block, TextBlock))
    if rest and not text.startswith(SKILL_LOADED):  # (a skill's instructions are the model's, not shown)
        source: UserSource = "interrupt" if text.startswith(INTERRUPTED) else "prompt"
        yield UserMessage(session_id=session_id, message=message.model_copy(update={"content": rest}), source=source)


def _assistant(message: Message, names: dict[str, str], session_id: str) -> Iterator[Event]:
    message_id = message.id or ""
    yield MessageStart(session_id=session_id, message_id=message_id, model=message.model or "")
    calls = []
    for index, block in enumerate(message.content):
        if isinstance(block, TextBlock):
            yield TextDelta(session_id=session_id, index=index, text=block.text)
        elif isinstance(block, ThinkingBlock):
            yield ThinkingDelta(session_id=session_id, index=index, text=block.thinking)
        elif isinstance(block, ToolUseBlock):
            yield ContentBlockEnd(session_id=session_id, index=index, block=block, message_id=message_id)
            names[block.id] = block.name
            calls.append(block)
    yield MessageEnd(session_id=session_id, message=message)
    for call in calls:
        yield ToolStart(session_id=session_id, tool_call_id=call.id, name=call.name, input=call.input)
