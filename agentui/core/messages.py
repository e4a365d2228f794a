"""Conversation data: content blocks, messages, token usage and stop reasons, in the Messages API's shapes."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

INTERRUPTED = "[Request interrupted by user"
"""How an interrupt is written into the history as a user message (Claude Code's words), whichever kind it was."""
INTERRUPTED_BY_USER = INTERRUPTED + "]"
INTERRUPTED_FOR_TOOL_USE = INTERRUPTED + " for tool use]"
SUMMARY_PREFIX = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The summary below covers the earlier portion of the conversation.\n\n"
)
"""How the summary compaction leaves in place of the history begins (Claude Code's words)."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class TextBlock(_Frozen):
    type: Literal["text"] = "text"
    text: str
    thought_signature: str | None = None
    """Gemini's `thoughtSignature` of the part this block was made from, sent back on that part (Gemini 3 rejects a
    tool-call turn without it); None from every other provider. Never in the session line's content block (the
    Messages API would reject it when Claude Code resumes): the line keeps it beside the message."""


class ThinkingBlock(_Frozen):
    type: Literal["thinking"] = "thinking"
    thinking: str
    signature: str = ""
    """Anthropic's signature; without one the block cannot be sent back, so providers drop it. Another API's (an
    OpenAI reasoning item) begins with providers.base.FOREIGN_SIGNATURE and goes back to that API only."""
    thought_signature: str | None = None
    """Gemini's `thoughtSignature` of the part this block was made from, sent back on that part (Gemini 3 rejects a
    tool-call turn without it); None from every other provider. Never in the session line's content block (the
    Messages API would reject it when Claude Code resumes): the line keeps it beside the message."""


class RedactedThinkingBlock(_Frozen):
    type: Literal["redacted_thinking"] = "redacted_thinking"
    data: str


class ImageBlock(_Frozen):
    type: Literal["image"] = "image"
    source: dict[str, Any]
    """`{"type": "base64", "media_type": "image/png", "data": "..."}` as the Messages API takes it."""


class DocumentBlock(_Frozen):
    """A document (a PDF) for the model to read, as the Messages API takes it."""

    type: Literal["document"] = "document"
    source: dict[str, Any]
    """`{"type": "base64", "media_type": "application/pdf", "data": "..."}`."""
    title: str | None = None


class ToolUseBlock(_Frozen):
    type: Literal["tool_use"] = "tool_use"
    id: str
    name: str
    input: dict[str, Any]
    input_error: str | None = None
    """Set when the model's arguments were not a JSON object; the call then fails with this reason."""
    thought_signature: str | None = None
    """Gemini's `thoughtSignature` of the part this block was made from, sent back on that part (Gemini 3 rejects a
    tool-call turn without it); None from every other provider. Never in the session line's content block (the
    Messages API would reject it when Claude Code resumes): the line keeps it beside the message."""


class ToolResultBlock(_Frozen):
    type: Literal["tool_result"] = "tool_result"
    tool_use_id: str
    content: str | list[Annotated[TextBlock | ImageBlock | DocumentBlock, Field(discriminator="type")]]
    is_error: bool = False


def command_record(name: str, arguments: str) -> str:
    """What a session records of a custom command as typed (`/name arguments`), before the prompt it expands to, as
    Claude Code 2.1 records it (the model reads both; a viewer shows the command, not its expansion). Older
    releases wrote "{name} is running…" in the first tag; `typed_command` reads both."""
    message, command = f"<command-message>{name}</command-message>", f"<command-name>/{name}</command-name>"
    if not arguments:  # (Claude Code writes no arguments' tag for a command typed without any)
        return f"{message}\n{command}"
    return f"{message}\n{command}\n<command-args>{arguments}</command-args>"


_RECORD = re.compile(r"\A\s*(?:<command-message>.*?</command-message>\s*)?<command-name>(/?[^<]*)</command-name>", re.S)
_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)


def typed_command(text: str) -> str | None:
    """The command as typed (`/greet Bob`) that a command record stands for; None for any other text."""
    if not (found := _RECORD.match(text)):
        return None
    name = found.group(1).strip()
    arguments = args.group(1).strip() if (args := _ARGS.search(text, found.end())) else ""
    return " ".join(part for part in ("/" + name.lstrip("/"), arguments) if part)


def is_reminder(text: str) -> bool:
    """A note for the model in a user message (a `<system-reminder>`: plan mode's, nested CLAUDE.md files, Claude
    Code's own), not something the person typed."""
    return text.lstrip().startswith("<system-reminder>")


REFUSED = "The user doesn't want to proceed with this tool use."
"""How the result of a call the person refused begins (Claude Code's words, which agentui writes too)."""


def was_refused(content: object, details: Mapping[str, Any]) -> bool:
    """Whether a recorded tool result was a refusal (a deny rule, the person, a hook): agentui records it in the
    result's details; a Claude Code session says so only in the result's text."""
    text = content if isinstance(content, str) else ""
    return bool(details.get("denied")) or text.startswith(REFUSED)


def not_run(tool_use_id: str, reason: str) -> ToolResultBlock:
    """The result of a call that did not run (or did not finish): an error saying why."""
    return ToolResultBlock(tool_use_id=tool_use_id, content=reason, is_error=True)


ResultBlock = TextBlock | ImageBlock | DocumentBlock
"""What a tool result's content may hold besides plain text."""


def as_text(block: TextBlock | ImageBlock | DocumentBlock) -> str:
    """A block as text, for what reads text only (a model without images or documents, a summary, a screen)."""
    if isinstance(block, TextBlock):
        return block.text
    if isinstance(block, DocumentBlock):
        return f"[a PDF document{': ' + block.title if block.title else ''}]"
    return "[image]"


ContentBlock = Annotated[
    TextBlock | ThinkingBlock | RedactedThinkingBlock | ImageBlock | DocumentBlock | ToolUseBlock | ToolResultBlock,
    Field(discriminator="type"),
]

StopReason = Literal[
    "end_turn",
    "max_tokens",
    "stop_sequence",
    "tool_use",
    "pause_turn",
    "refusal",
    # agentui's own: the stream broke after some content completed, or the person cancelled.
    "interrupted",
    "cancelled",
]


class Usage(_Frozen):
    """Token counts as the Messages API reports them; OpenAI-compatible usage is mapped onto these."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_creation_input_tokens=self.cache_creation_input_tokens + other.cache_creation_input_tokens,
            cache_read_input_tokens=self.cache_read_input_tokens + other.cache_read_input_tokens,
        )

    @property
    def context_tokens(self) -> int:
        """Everything the model read for this request: what fills its context window."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    @property
    def total_tokens(self) -> int:
        """Read and written: what a token budget counts."""
        return self.context_tokens + self.output_tokens


class Message(_Frozen):
    """One turn of the conversation. Assistant messages also carry the provider's id, model, stop reason, usage."""

    role: Literal["user", "assistant"]
    content: list[ContentBlock]
    id: str | None = None
    model: str | None = None
    stop_reason: StopReason | None = None
    usage: Usage | None = None
    meta: bool = False
    """A user message no one typed, read back from a session's `isMeta` line (a skill's or a command's text, Claude
    Code's caveats): sent as it is, never taken for the person's words (context/instructions.py)."""
    attachments: tuple[dict[str, Any], ...] = ()
    """A user message's Claude Code `attachment`s (the agent types and skills listed to the model): written as
    lines of their own after it, sent as reminders with it (session.attachments)."""

    @classmethod
    def user(cls, text: str) -> Message:
        return cls(role="user", content=[TextBlock(text=text)])

    @property
    def text(self) -> str:
        return "".join(block.text for block in self.content if isinstance(block, TextBlock))

    @property
    def tool_uses(self) -> list[ToolUseBlock]:
        return [block for block in self.content if isinstance(block, ToolUseBlock)]

    @property
    def has_results(self) -> bool:
        """A user message that answers tool calls (a round after it is the model going on with its work)."""
        return self.role == "user" and any(isinstance(block, ToolResultBlock) for block in self.content)


def is_summary(message: Message) -> bool:
    """Whether `message` is the summary a compaction left in place of the history before it."""
    return message.role == "user" and message.text.startswith(SUMMARY_PREFIX)
