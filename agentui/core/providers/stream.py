"""Normalised streaming events every provider emits, and the accumulator that turns them into a Message."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, assert_never

from agentui.core.escapes import scrub
from agentui.core.messages import (
    ContentBlock,
    Message,
    RedactedThinkingBlock,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    Usage,
)

BlockKind = Literal["text", "thinking", "redacted_thinking", "tool_use"]
DeltaKind = Literal["text", "thinking", "signature", "input_json"]


@dataclass(slots=True)
class StreamStart:
    message_id: str
    model: str
    usage: Usage = field(default_factory=Usage)
    request_id: str = ""
    """The server's id for the HTTP request (Anthropic's `request-id` header), kept in the session."""


@dataclass(slots=True)
class BlockStart:
    index: int
    kind: BlockKind
    tool_id: str = ""
    tool_name: str = ""
    data: str = ""
    """The payload of a redacted_thinking block, which arrives whole."""


@dataclass(slots=True)
class BlockDelta:
    index: int
    kind: DeltaKind
    text: str


@dataclass(slots=True)
class BlockStop:
    index: int
    thought_signature: str | None = None
    """Gemini's signature of the part the block was made from (it comes with the part's last piece)."""


@dataclass(slots=True)
class StreamEnd:
    stop_reason: StopReason
    usage: Usage
    server_results: tuple[dict[str, Any], ...] = ()
    """What server-side tools found (the Messages API's `web_search_tool_result` blocks), as the API sent them."""


ProviderEvent = StreamStart | BlockStart | BlockDelta | BlockStop | StreamEnd


class _OpenBlock:
    __slots__ = ("data", "kind", "parts", "signature", "tool_id", "tool_name")

    def __init__(self, start: BlockStart) -> None:
        self.kind = start.kind
        self.parts: list[str] = []
        self.signature: list[str] = []
        self.tool_id = start.tool_id
        self.tool_name = start.tool_name
        self.data = start.data

    def finish(self, thought_signature: str | None = None) -> ContentBlock:
        text = "".join(self.parts)
        if self.kind == "text":
            return TextBlock(text=text, thought_signature=thought_signature)
        if self.kind == "thinking":
            return ThinkingBlock(thinking=text, signature="".join(self.signature), thought_signature=thought_signature)
        if self.kind == "redacted_thinking":
            return RedactedThinkingBlock(data=self.data)
        call = _tool_use(self.tool_id, self.tool_name, text)
        return call.model_copy(update={"thought_signature": thought_signature}) if thought_signature else call


def _tool_use(tool_id: str, name: str, raw: str) -> ToolUseBlock:
    if not raw.strip():
        return ToolUseBlock(id=tool_id, name=name, input={})
    try:
        value = json.loads(raw)
    except ValueError as exc:
        return ToolUseBlock(id=tool_id, name=name, input={}, input_error=f"the arguments were not valid JSON ({exc})")
    if not isinstance(value, dict):
        return ToolUseBlock(id=tool_id, name=name, input={}, input_error="the arguments were not a JSON object")
    if "\\ud" in raw.lower():  # a surrogate escape: unpaired, it could be neither stored nor sent back
        value = scrub(value)
    return ToolUseBlock(id=tool_id, name=name, input=value)


class MessageAccumulator:
    """Builds the assistant message from provider events. Blocks may interleave; each is tracked by its index."""

    def __init__(self) -> None:
        self.message_id = ""
        self.model = ""
        self.usage = Usage()
        self.stop_reason: StopReason | None = None
        self._open: dict[int, _OpenBlock] = {}
        self._done: dict[int, ContentBlock] = {}

    @property
    def completed_any(self) -> bool:
        return bool(self._done)

    def start(self, event: StreamStart) -> None:
        self.message_id, self.model, self.usage = event.message_id, event.model, event.usage

    def open(self, event: BlockStart) -> _OpenBlock:
        block = self._open[event.index] = _OpenBlock(event)
        return block

    def delta(self, event: BlockDelta) -> _OpenBlock | None:
        """Record a delta; None if it belongs to no open block (a server bug we tolerate)."""
        block = self._open.get(event.index)
        if block is None:
            return None
        if event.kind == "signature":
            block.signature.append(event.text)
        else:
            block.parts.append(event.text)
        return block

    def close(self, event: BlockStop) -> ContentBlock | None:
        block = self._open.pop(event.index, None)
        if block is None:
            return None
        finished = self._done[event.index] = block.finish(event.thought_signature)
        return finished

    def end(self, event: StreamEnd) -> None:
        self.stop_reason = event.stop_reason
        self.usage = event.usage

    def feed(self, event: ProviderEvent) -> None:
        """Take any event of the stream, for callers that only want the finished message."""
        match event:
            case BlockDelta():
                self.delta(event)
            case BlockStart():
                self.open(event)
            case BlockStop():
                self.close(event)
            case StreamStart():
                self.start(event)
            case StreamEnd():
                self.end(event)
            case _:
                assert_never(event)

    def message(self, *, stop_reason: StopReason | None = None, keep_partial_text: bool = False) -> Message:
        """The message so far: completed blocks in order, plus (when asked) text still streaming.

        Unfinished thinking and tool calls are never kept: the API rejects thinking without its signature, and a
        half-streamed tool call cannot run.
        """
        blocks = dict(self._done)
        if keep_partial_text:
            for index, block in self._open.items():
                if block.kind == "text" and block.parts:
                    blocks[index] = block.finish()
        content = [blocks[index] for index in sorted(blocks)]
        return Message(
            role="assistant",
            content=content,
            id=self.message_id or None,
            model=self.model or None,
            stop_reason=stop_reason or self.stop_reason,
            usage=self.usage,
        )
