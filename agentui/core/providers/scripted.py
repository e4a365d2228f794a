"""A provider that replays a JSON script of responses: deterministic runs for tests and a demo that needs no key.

A script is a list of responses (or `{"responses": [...]}`); each is consumed by one model call:

    [{"text": "Hello!"},
     {"content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "a.txt"}}]},
     {"error": {"status": 529, "message": "Overloaded"}},
     {"text": "slowly", "delay": 0.05, "chunk_size": 2}]

Text and tool arguments are streamed in `chunk_size`-character deltas, `delay` seconds apart on average.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from agentui.core.errors import AgentuiError
from agentui.core.messages import ContentBlock, StopReason, TextBlock, ThinkingBlock, ToolUseBlock, Usage
from agentui.core.providers import ProviderConfig
from agentui.core.providers.base import ProtocolError, ProviderRequest, StreamBrokenError, error_for_status
from agentui.core.providers.stream import BlockDelta, BlockStart, BlockStop, ProviderEvent, StreamEnd, StreamStart


class ScriptError(AgentuiError):
    """The script file cannot be used; the message says why in one sentence."""


class ScriptedFailure(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: int
    message: str = "scripted failure"
    retry_after: float | None = None


class ScriptedResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str | None = None
    content: list[ContentBlock] = Field(default_factory=list)
    stop_reason: StopReason | None = None
    usage: Usage = Field(default_factory=lambda: Usage(input_tokens=10, output_tokens=10))
    error: ScriptedFailure | None = None
    delay: float = 0.0
    """Seconds between deltas."""
    chunk_size: int = Field(default=16, ge=1)
    cut_after_blocks: int | None = None
    """Drop the connection once this many blocks have completed (a stream cut mid-answer)."""

    @model_validator(mode="after")
    def _text_shorthand(self) -> ScriptedResponse:
        if self.text is not None:
            self.content = [TextBlock(text=self.text), *self.content]
        return self


_SCRIPT = TypeAdapter(list[ScriptedResponse])


def load_script(path: Path) -> list[ScriptedResponse]:
    try:
        raw: Any = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ScriptError(f"The script file {path} does not exist.") from None
    except (OSError, ValueError) as exc:
        raise ScriptError(f"The script file {path} could not be read as JSON: {exc}.") from None
    if isinstance(raw, dict) and "responses" in raw:
        raw = raw["responses"]
    try:
        return _SCRIPT.validate_python(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ScriptError(f"The script file {path} is not a valid script ({where}: {first['msg']}).") from None


class ScriptedProvider:
    name = "scripted"

    def __init__(self, responses: list[ScriptedResponse] | list[dict[str, Any]]) -> None:
        self._responses = [
            r if isinstance(r, ScriptedResponse) else ScriptedResponse.model_validate(r) for r in responses
        ]
        self._position = 0
        self.requests: list[ProviderRequest] = []
        """Every request received, in order: what tests assert the agent sent."""

    @classmethod
    def from_file(cls, path: Path) -> ScriptedProvider:
        return cls(load_script(path))

    @classmethod
    def from_config(cls, config: ProviderConfig) -> ScriptedProvider:
        assert config.script is not None, "settings validation requires a script for the scripted provider"
        return cls.from_file(config.script)

    async def aclose(self) -> None:
        return None

    async def stream(self, request: ProviderRequest) -> AsyncIterator[ProviderEvent]:
        self.requests.append(request)
        if self._position >= len(self._responses):
            raise ProtocolError(f"The script has no more responses ({len(self._responses)} were used).")
        response = self._responses[self._position]
        self._position += 1
        if response.error is not None:
            failure = response.error
            headers = {"retry-after": str(failure.retry_after)} if failure.retry_after is not None else {}
            body = json.dumps({"type": "error", "error": {"type": "scripted", "message": failure.message}})
            raise error_for_status(failure.status, body, headers, api="The scripted model", key_hint="the script")
        async for event in _play(response, request.model):
            yield event


async def _play(response: ScriptedResponse, model: str) -> AsyncIterator[ProviderEvent]:
    yield StreamStart(
        f"msg_scripted_{uuid.uuid4().hex[:20]}",
        model,
        response.usage.model_copy(update={"output_tokens": 0}),
        f"req_scripted_{uuid.uuid4().hex[:20]}",
    )
    completed = 0
    loop = asyncio.get_running_loop()
    due = loop.time()
    for index, block in enumerate(response.content):
        if isinstance(block, TextBlock):
            yield BlockStart(index, "text")
            pieces, kind = block.text, "text"
        elif isinstance(block, ThinkingBlock):
            yield BlockStart(index, "thinking")
            pieces, kind = block.thinking, "thinking"
        elif isinstance(block, ToolUseBlock):
            yield BlockStart(index, "tool_use", tool_id=block.id, tool_name=block.name)
            pieces, kind = json.dumps(block.input), "input_json"
        else:
            continue
        for start in range(0, len(pieces), response.chunk_size):
            if response.delay:  # on a schedule, so that the rate holds however long each sleep overruns
                due += response.delay
                await asyncio.sleep(max(0.0, due - loop.time()))
            yield BlockDelta(index, kind, pieces[start : start + response.chunk_size])  # type: ignore[arg-type]
        if isinstance(block, ThinkingBlock) and block.signature:
            yield BlockDelta(index, "signature", block.signature)
        yield BlockStop(index)
        completed += 1
        if response.cut_after_blocks is not None and completed >= response.cut_after_blocks:
            raise StreamBrokenError("The scripted connection dropped mid-answer.")
    has_tools = any(isinstance(block, ToolUseBlock) for block in response.content)
    stop = response.stop_reason or ("tool_use" if has_tools else "end_turn")
    yield StreamEnd(stop, response.usage)
