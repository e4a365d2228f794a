"""The body of a Gemini `streamGenerateContent` request (the Gemini API's and Vertex AI's alike): the history as
`contents` of parts, the tools as function declarations, and thinking and effort as the model's `thinkingConfig`.

Thinking and effort, by model:
- Gemini 3 and later (and the `-latest` aliases) take a thinking level. `--effort` low, medium and high are the levels
  of those names; xhigh and max are high, the most these models think. A token budget without an effort (Claude Code's
  `think` words, `--max-thinking-tokens`) is the level nearest it: up to 4,096 tokens low, up to 16,384 medium, more
  high.
- Gemini 2.5 takes a token budget: the one asked for, or 1,024 / 8,192 / 24,576 tokens for low / medium / high and
  above, kept within the model's range (Flash's 24,576, Pro's 32,768).
- Gemini 2.0 and 1.5 do not think, and get no thinking settings.
Thought summaries are always asked for (`includeThoughts`), so the model's thinking shows as thinking.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from agentui.core.messages import (
    DocumentBlock,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    as_text,
)
from agentui.core.providers.base import ProviderRequest, ToolSpec
from agentui.core.providers.request_bytes import JsonPieces, dumps

OWN_CALL_ID = "gemini_call_"
"""How the ids agentui gives the calls Gemini sends without one begin: they are not sent back (Gemini knows its calls
by name)."""
SKIP_SIGNATURE = "skip_thought_signature_validator"
"""The signature Google documents for a function call Gemini did not make (one agentui put in the history, or one of
another model's turns): Gemini 3 rejects a step whose first call has no signature."""

LEVELS = {"low": "LOW", "medium": "MEDIUM", "high": "HIGH", "xhigh": "HIGH", "max": "HIGH"}
"""--effort as Gemini 3's thinking level."""
BUDGETS = {"low": 1_024, "medium": 8_192, "high": 24_576, "xhigh": 24_576, "max": 24_576}
"""--effort as Gemini 2.5's thinking budget, in tokens."""
_VERSION = re.compile(r"gemini-(\d+)(?:\.(\d+))?")


def generation(model: str) -> tuple[int, int] | None:
    """The Gemini version a model name says ("gemini-2.5-flash": (2, 5)); a `-latest` alias is the newest, None
    for a name that is not Gemini's."""
    name = model.lower().rsplit("/", 1)[-1]
    if found := _VERSION.match(name):
        return int(found[1]), int(found[2] or 0)
    if name.startswith("gemini-") and name.endswith("-latest"):
        return (99, 0)
    return None


def signs_calls(model: str) -> bool:
    """Whether the model rejects a function call sent back without its thought signature (Gemini 3 and later)."""
    version = generation(model)
    return version is not None and version >= (3, 0)


def thinking_config(model: str, budget: int | None, effort: str | None) -> dict[str, Any] | None:
    """The `thinkingConfig` for `model` (the module's docstring says how effort and budgets map)."""
    version = generation(model)
    if version is not None and version < (2, 5):
        return None
    config: dict[str, Any] = {"includeThoughts": True}
    if version is not None and version >= (3, 0):
        level = LEVELS.get(effort or "") or (_level_for(budget) if budget else None)
        if level:
            config["thinkingLevel"] = level
    elif version is not None:
        wanted = budget or BUDGETS.get(effort or "")
        if wanted:
            config["thinkingBudget"] = min(wanted, 32_768 if "pro" in model.lower() else 24_576)
    elif budget:
        config["thinkingBudget"] = budget
    else:
        return None  # (a model that is not Gemini's, through a proxy: it may not think at all)
    return config


def _level_for(budget: int) -> str:
    return "LOW" if budget <= 4_096 else "MEDIUM" if budget <= 16_384 else "HIGH"


def build_body(request: ProviderRequest, pieces: JsonPieces) -> bytes:
    """The request's JSON; each message's parts are made once in `pieces` (one set per way of signing calls)."""
    head: dict[str, Any] = {}
    system = [{"text": text} for text in (request.system, request.system_volatile) if text]
    if system:
        head["systemInstruction"] = {"parts": system}
    if request.tools:
        head["tools"] = [{"functionDeclarations": [declaration(tool) for tool in request.tools]}]
    config: dict[str, Any] = {"maxOutputTokens": request.max_tokens}
    if thinking := thinking_config(request.model, request.thinking_budget, request.effort):
        config["thinkingConfig"] = thinking
    head["generationConfig"] = config
    contents = contents_json(request.messages, pieces, sign=signs_calls(request.model))
    made = dumps(head)[:-1] + (b',"contents":[' if head else b'"contents":[') + contents + b"]}"
    pieces.request_done()
    return made


def declaration(tool: ToolSpec) -> dict[str, Any]:
    """A tool as a function declaration, its JSON schema as it is (`parametersJsonSchema` takes JSON Schema)."""
    schema = {key: value for key, value in tool.input_schema.items() if key != "$schema"}
    return {"name": tool.name, "description": tool.description, "parametersJsonSchema": schema}


def contents_json(messages: Sequence[Message], pieces: JsonPieces, *, sign: bool) -> bytes:
    """The history as Gemini's contents, consecutive messages of one role in one content. What the last request
    made of the messages this one begins with is taken up as it was."""
    start, made = pieces.resume(messages)
    groups, role, parts = made if made is not None else ((), "", ())
    groups, parts = list(groups), list(parts)
    for index in range(start, len(messages)):
        message = messages[index]
        piece = pieces.piece(message, partial(message_parts, message, partial(_call_names, messages, index), sign))
        if not piece:
            continue
        if message.role != role:
            if parts:
                groups.append(_content(role, parts))
            role, parts = message.role, []
        parts.append(piece)
    pieces.keep(messages, (groups, role, tuple(parts)))
    return b",".join([*groups, _content(role, parts)] if parts else groups)


def _content(role: str, parts: Sequence[bytes]) -> bytes:
    return b'{"role":"%s","parts":[%s]}' % (b"model" if role == "assistant" else b"user", b",".join(parts))


def _call_names(messages: Sequence[Message], index: int) -> dict[str, str]:
    """The names of the calls the results at `index` answer: a function response names its function."""
    for message in reversed(messages[:index]):
        if message.role == "assistant":
            return {call.id: call.name for call in message.tool_uses}
    return {}


def message_parts(message: Message, names: Callable[[], Mapping[str, str]], sign: bool) -> Iterable[dict[str, Any]]:
    """One message's parts; `names()` gives the names of the calls its results answer, `sign` puts Google's
    skip-signature on a step's first call that has none (for Gemini 3)."""
    if message.role == "assistant":
        return _model_parts(message.content, sign)
    results = [block for block in message.content if isinstance(block, ToolResultBlock)]
    called: Mapping[str, str] = names() if results else {}
    parts: list[dict[str, Any]] = []
    media: list[dict[str, Any]] = []
    for result in results:
        parts.append(_function_response(result, called.get(result.tool_use_id, "unknown_tool")))
        if not isinstance(result.content, str):
            media.extend(part for item in result.content if (part := _media(item)) is not None)
    parts.extend(media)  # (after every response: a result's images and documents, as parts Gemini reads)
    for block in message.content:
        if isinstance(block, TextBlock):
            if block.text:
                parts.append({"text": block.text})
        elif isinstance(block, ImageBlock | DocumentBlock):
            parts.append(_media(block) or {"text": as_text(block)})
    return parts


def _model_parts(content: Sequence[Any], sign: bool) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    first_call = True
    for block in content:
        part: dict[str, Any]
        if isinstance(block, TextBlock) and (block.text or block.thought_signature):
            part = {"text": block.text}
        elif isinstance(block, ThinkingBlock) and block.thought_signature:  # (unsigned thought text tells it nothing)
            part = {"text": block.thinking, "thought": True}
        elif isinstance(block, ToolUseBlock):
            call: dict[str, Any] = {"name": block.name, "args": block.input}
            if block.id and not block.id.startswith(OWN_CALL_ID):
                call["id"] = block.id
            part = {"functionCall": call}
            if sign and first_call and not block.thought_signature:
                part["thoughtSignature"] = SKIP_SIGNATURE
            first_call = False
        else:
            continue
        if block.thought_signature:
            part["thoughtSignature"] = block.thought_signature
        parts.append(part)
    return parts


def _function_response(block: ToolResultBlock, name: str) -> dict[str, Any]:
    if isinstance(block.content, str):
        text = block.content
    else:  # (the images and documents Gemini can read go after the responses, as parts of their own)
        text = "\n".join(as_text(item) for item in block.content if _media(item) is None)
    response: dict[str, Any] = {"name": name, "response": {"error" if block.is_error else "output": text}}
    if block.tool_use_id and not block.tool_use_id.startswith(OWN_CALL_ID):
        response["id"] = block.tool_use_id
    return {"functionResponse": response}


def _media(block: TextBlock | ImageBlock | DocumentBlock) -> dict[str, Any] | None:
    """An image or a PDF as inline data (what Gemini reads of them); a text document as its text; None otherwise."""
    if isinstance(block, TextBlock):
        return None
    source = block.source
    kind = source.get("type")
    if kind == "base64" and source.get("data"):
        default = "application/pdf" if isinstance(block, DocumentBlock) else "image/png"
        return {"inlineData": {"mimeType": str(source.get("media_type") or default), "data": str(source["data"])}}
    if kind == "text" and isinstance(source.get("data"), str):
        return {"text": source["data"]}
    return None
