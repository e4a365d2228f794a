"""Compaction: what to do when the context window fills up.

First the cheap step: tool results older than a budget become one-line placeholders (the session file keeps the
originals). If that is not enough, everything but the recent turns is summarised with one model call, and the
conversation goes on from the summary plus those turns. If the summary cannot be made because even the request for
it is too long, the oldest turns are dropped instead, so compaction never loops.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import aclosing

from agentui.core.context import TokenCounter
from agentui.core.messages import ImageBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock, Usage
from agentui.core.providers.base import Provider, ProviderRequest
from agentui.core.providers.retry import RetryNotice, RetryPolicy, stream_with_retry
from agentui.core.providers.stream import MessageAccumulator

SUMMARY_PREFIX = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The summary below covers the earlier portion of the conversation.\n\n"
)
DROPPED = (
    "This session is being continued from a previous conversation that ran out of context. "
    "{count} earlier messages were dropped to make room, and no summary of them could be made; ask the user if "
    "something from before matters."
)
PLACEHOLDER_PREFIX = "[Earlier tool result omitted to save context: "

SUMMARY_SYSTEM = (
    "You summarise a coding session between a user and an AI coding assistant, so that the assistant can carry on "
    "the work without the earlier messages. You answer with the summary only."
)
SUMMARY_INSTRUCTIONS = """\
Write a summary of the conversation above that lets the assistant continue the work without it. Keep, under \
these headings:
1. Requests: everything the user asked for and their intent, quoting them where the wording matters.
2. Decisions: what was decided and why; constraints and preferences the user stated.
3. Files: every file path that was read, created or changed, what changed in it, and code that matters later.
4. Errors: errors met, and how each was fixed or that it was not.
5. Open tasks: what is in progress, what is left, and the very next step.
Be specific (names, paths, commands, numbers) and brief; include nothing that did not happen."""

RESULT_CHARS = 2_000
"""How much of each tool result the summariser reads: enough to know what it said."""
TEXT_CHARS = 8_000
SUMMARY_CHARS = 40_000


def summary_message(summary: str) -> Message:
    return Message.user(SUMMARY_PREFIX + summary.strip())


def dropped_message(count: int) -> Message:
    return Message.user(DROPPED.format(count=count))


def is_summary(message: Message) -> bool:
    return message.role == "user" and message.text.startswith(SUMMARY_PREFIX)


# Shortening old tool results


def describe_call(call: ToolUseBlock | None) -> str:
    if call is None:
        return "an earlier tool call"
    arguments = json.dumps(call.input, ensure_ascii=False)
    return f"{call.name}({arguments if len(arguments) <= 120 else arguments[:119] + '…'})"


def placeholder(call: ToolUseBlock | None) -> str:
    return f"{PLACEHOLDER_PREFIX}{describe_call(call)}]"


def _is_placeholder(block: ToolResultBlock) -> bool:
    return isinstance(block.content, str) and block.content.startswith(PLACEHOLDER_PREFIX)


def shorten_tool_results(
    messages: list[Message], keep_tokens: int, counter: TokenCounter, *, before: int
) -> list[tuple[int, int]]:
    """Keep the newest `keep_tokens` of tool results among `messages[:before]`; replace older ones, in place, with a
    placeholder naming the call. Returns (index, tokens freed) for each message changed."""
    calls = {block.id: block for message in messages[:before] for block in message.tool_uses}
    changed: list[tuple[int, int]] = []
    seen = 0
    for index in range(before - 1, -1, -1):
        message = messages[index]
        if message.role != "user" or not any(isinstance(b, ToolResultBlock) for b in message.content):
            continue
        blocks, freed = [], 0
        for block in message.content:
            if isinstance(block, ToolResultBlock) and not _is_placeholder(block):
                size = counter.block(block)
                seen += size
                if seen > keep_tokens:
                    short = block.model_copy(update={"content": placeholder(calls.get(block.tool_use_id))})
                    freed += size - counter.block(short)
                    block = short
            blocks.append(block)
        if freed > 0:
            messages[index] = message.model_copy(update={"content": blocks})
            changed.append((index, freed))
    return changed


# Summarising


def split_index(messages: Sequence[Message], keep_tokens: int, counter: TokenCounter) -> int | None:
    """Where the kept tail starts: the earliest assistant message whose tail fits in `keep_tokens`, and at least the
    last assistant message; None when nothing before it could be summarised."""
    best: int | None = None
    tail = 0
    for index in range(len(messages) - 1, 0, -1):
        tail += counter.message(messages[index])
        if messages[index].role == "assistant":
            if best is not None and tail > keep_tokens:
                break
            best = index
    return best


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}\n[… {len(text) - limit} more characters]"


def render(message: Message, calls: dict[str, ToolUseBlock]) -> str:
    """One message as the summariser reads it: text in full (up to a limit), tool results clipped."""
    lines: list[str] = []
    speaker = "User" if message.role == "user" else "Assistant"
    for block in message.content:
        if isinstance(block, TextBlock) and block.text.strip():
            limit = SUMMARY_CHARS if block.text.startswith(SUMMARY_PREFIX) else TEXT_CHARS
            lines.append(f"{speaker}: {_clip(block.text, limit)}")
        elif isinstance(block, ToolUseBlock):
            calls[block.id] = block
            lines.append(f"Assistant called {describe_call(block)}")
        elif isinstance(block, ToolResultBlock):
            if isinstance(block.content, str):
                text = block.content
            else:
                text = "\n".join(b.text if isinstance(b, TextBlock) else "[image]" for b in block.content)
            status = "failed" if block.is_error else "returned"
            lines.append(f"{describe_call(calls.get(block.tool_use_id))} {status}:\n{_clip(text, RESULT_CHARS)}")
        elif isinstance(block, ImageBlock):
            lines.append(f"{speaker}: [an image]")
    return "\n".join(lines)


def summary_request(
    model: str,
    older: Sequence[Message],
    *,
    instructions: str | None,
    input_budget: int,
    max_tokens: int,
    counter: TokenCounter,
) -> tuple[ProviderRequest, int]:
    """The request for a summary of `older`, as one transcript in one user message (so it needs no tools and keeps
    no tool-call pairing), newest parts first to fit `input_budget`. Returns it and how many messages it holds."""
    calls: dict[str, ToolUseBlock] = {}
    pieces = [render(message, calls) for message in older]
    ask = SUMMARY_INSTRUCTIONS + (
        f"\n\nAlso follow these instructions for the summary: {instructions}" if instructions else ""
    )
    budget = input_budget - counter.count(SUMMARY_SYSTEM) - counter.count(ask) - 50
    first = pieces[0] if pieces and is_summary(older[0]) else None  # an earlier summary matters most: always kept
    if first is not None:
        budget -= counter.count(first)
    kept: list[str] = []
    for piece in reversed(pieces[1:] if first is not None else pieces):
        cost = counter.count(piece) + 2
        if cost > budget:
            break
        budget -= cost
        kept.append(piece)
    kept.reverse()
    left_out = len(pieces) - len(kept) - (1 if first is not None else 0)
    parts = (
        ([first] if first is not None else [])
        + ([f"[{left_out} earlier messages left out]"] if left_out else [])
        + kept
    )
    transcript = "<conversation>\n" + "\n\n".join(parts) + "\n</conversation>\n\n" + ask
    request = ProviderRequest(
        model=model, system=SUMMARY_SYSTEM, messages=(Message.user(transcript),), max_tokens=max_tokens
    )
    return request, len(older) - left_out


async def summarise(provider: Provider, request: ProviderRequest, retry: RetryPolicy) -> tuple[str, Usage | None]:
    """Stream the summary; raises ProviderError (ContextOverflowError when even this request is too long)."""
    accumulator = MessageAccumulator()
    async with aclosing(stream_with_retry(provider, request, retry)) as stream:
        async for event in stream:
            if isinstance(event, RetryNotice):  # what streamed of the failed attempt is void
                accumulator = MessageAccumulator()
            else:
                accumulator.feed(event)
    message = accumulator.message()
    return message.text.strip(), message.usage
