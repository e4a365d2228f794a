"""A Gemini stream (`GenerateContentResponse` chunks) as ProviderEvents: text and thought parts as text and thinking
blocks, each function call as a whole tool_use block, every part's thought signature kept on the block it came with,
`usageMetadata` as the usage and `finishReason` as the stop reason."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agentui.core.messages import StopReason, Usage
from agentui.core.providers.base import ProtocolError, ServerError, StreamBrokenError
from agentui.core.providers.gemini_request import OWN_CALL_ID
from agentui.core.providers.stream import BlockDelta, BlockStart, BlockStop, ProviderEvent, StreamEnd, StreamStart

REFUSALS = {
    "SAFETY": "its safety filters blocked the answer",
    "RECITATION": "the answer was too close to material it may not recite",
    "PROHIBITED_CONTENT": "the answer was judged prohibited content",
    "BLOCKLIST": "the answer contained a blocked term",
    "SPII": "the answer contained sensitive personal information",
    "IMAGE_SAFETY": "its safety filters blocked an image",
    "IMAGE_PROHIBITED_CONTENT": "an image was judged prohibited content",
    "IMAGE_RECITATION": "an image was too close to material it may not recite",
    "LANGUAGE": "the language of the conversation is one it does not support",
    "OTHER": "it gave no reason",
}
"""The finish (and prompt block) reasons that end an answer as a refusal, and how the sentence saying so puts it."""
MALFORMED = {"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"}
"""Finish reasons of a call the model got wrong: a failure to try again."""


@dataclass
class _Open:
    kind: str
    index: int


class GeminiStreamParser:
    """Feeds on the stream's chunks; `finish()` closes the message once the server has ended the stream. Text and
    thought parts of one kind run together into one block until a part of another kind, or one carrying a signature
    (which closes the block it ends), comes."""

    def __init__(self, model: str, api: str) -> None:
        self._model = model
        self._api = api
        self._started = False
        self._next = 0
        self._current: _Open | None = None
        self._calls = 0
        self._finish: str | None = None
        self._finish_message = ""
        self._blocked: str | None = None
        self._usage = Usage()

    def feed(self, chunk: Any) -> list[ProviderEvent]:
        if not isinstance(chunk, dict):
            raise ProtocolError(f"{self._api} sent a stream chunk that is not a JSON object.")
        events: list[ProviderEvent] = []
        if isinstance(chunk.get("usageMetadata"), Mapping):
            self._usage = usage(chunk["usageMetadata"])
        if not self._started:
            self._started = True
            message_id = str(chunk.get("responseId") or f"gemini-{uuid.uuid4().hex}")
            events.append(StreamStart(message_id, str(chunk.get("modelVersion") or self._model), self._usage))
        feedback = chunk.get("promptFeedback")
        if isinstance(feedback, Mapping) and feedback.get("blockReason"):
            self._blocked = str(feedback["blockReason"])
        candidates = chunk.get("candidates")
        candidate = candidates[0] if isinstance(candidates, list) and candidates else {}
        if not isinstance(candidate, Mapping):
            raise ProtocolError(f"{self._api} sent a candidate that is not a JSON object.")
        content = candidate.get("content")
        for part in (content.get("parts") if isinstance(content, Mapping) else None) or ():
            if isinstance(part, Mapping):
                events.extend(self._part(part))
        if candidate.get("finishReason"):
            self._finish = str(candidate["finishReason"])
            self._finish_message = str(candidate.get("finishMessage") or "")
        return events

    def finish(self) -> list[ProviderEvent]:
        """The message's last events, once the stream has ended: the stop reason and usage, or the failure."""
        if self._blocked is None and (not self._started or self._finish is None):
            raise StreamBrokenError(f"{self._api} ended the stream before the message was complete.")
        if self._finish in MALFORMED:
            said = f": {self._finish_message.strip()}" if self._finish_message.strip() else "."
            raise ServerError(f"{self._api} sent a malformed function call ({self._finish}){said}")
        events = self._close()
        stop: StopReason = "tool_use" if self._calls else "end_turn"
        if self._blocked is not None:
            reason = REFUSALS.get(self._blocked, "it gave no reason")
            events.extend(self._say(f"Gemini refused the prompt: {reason} ({self._blocked})."))
            stop = "refusal"
        elif self._finish == "MAX_TOKENS":
            stop = "max_tokens"
        elif self._finish in REFUSALS and self._finish != "OTHER":
            events.extend(self._say(f"Gemini stopped its answer: {REFUSALS[self._finish]} ({self._finish})."))
            stop = "refusal"
        events.append(StreamEnd(stop, self._usage))
        return events

    def _part(self, part: Mapping[str, Any]) -> list[ProviderEvent]:
        signature = part.get("thoughtSignature")
        signature = str(signature) if signature else None
        if isinstance(part.get("functionCall"), Mapping):
            return self._call(part["functionCall"], signature)
        text = part.get("text")
        if isinstance(text, str) or signature:  # (a signature may come alone, on an empty part)
            return self._text("thinking" if part.get("thought") else "text", text or "", signature)
        return []  # (inline data, code execution and other parts agentui does not keep)

    def _text(self, kind: str, text: str, signature: str | None) -> list[ProviderEvent]:
        if not text and not signature:
            return []
        events: list[ProviderEvent] = []
        if self._current is None or self._current.kind != kind:
            events.extend(self._close())
            events.append(self._open(kind))
        assert self._current is not None
        if text:
            events.append(BlockDelta(self._current.index, kind, text))  # type: ignore[arg-type]
        if signature:
            events.extend(self._close(signature))
        return events

    def _call(self, call: Mapping[str, Any], signature: str | None) -> list[ProviderEvent]:
        events = self._close()
        call_id = str(call.get("id") or f"{OWN_CALL_ID}{uuid.uuid4().hex[:24]}")
        events.append(self._open("tool_use", tool_id=call_id, tool_name=str(call.get("name") or "")))
        arguments = call.get("args")
        events.append(BlockDelta(self._next - 1, "input_json", json.dumps(arguments if arguments is not None else {})))
        events.extend(self._close(signature))
        self._calls += 1
        return events

    def _open(self, kind: str, **fields: str) -> BlockStart:
        self._current = _Open(kind, self._next)
        self._next += 1
        return BlockStart(self._current.index, kind, **fields)  # type: ignore[arg-type]

    def _close(self, signature: str | None = None) -> list[ProviderEvent]:
        if self._current is None:
            return []
        index, self._current = self._current.index, None
        return [BlockStop(index, thought_signature=signature)]

    def _say(self, sentence: str) -> list[ProviderEvent]:
        """A text block of agentui's own saying why the answer ended."""
        start = self._open("text")
        return [start, BlockDelta(start.index, "text", sentence), *self._close()]


def usage(raw: Mapping[str, Any]) -> Usage:
    """`usageMetadata` (the stream's running totals) as agentui's usage: the prompt's cached part as a cache read,
    thoughts counted with the answer as output (they are billed as output)."""

    def count(name: str) -> int:
        value = raw.get(name)
        return value if isinstance(value, int) and value > 0 else 0

    cached = count("cachedContentTokenCount")
    return Usage(
        input_tokens=max(0, count("promptTokenCount") + count("toolUsePromptTokenCount") - cached),
        output_tokens=count("candidatesTokenCount") + count("thoughtsTokenCount"),
        cache_read_input_tokens=cached,
    )
