"""The messages and content blocks of a conversation, as a front end reads and sends them.

They are the core's own (`agentui.core.messages`), named here so that a front end imports only `agentui.api`.
"""

from agentui.core.messages import (
    INTERRUPTED,
    INTERRUPTED_BY_USER,
    INTERRUPTED_FOR_TOOL_USE,
    REFUSED,
    ContentBlock,
    DocumentBlock,
    ImageBlock,
    Message,
    RedactedThinkingBlock,
    ResultBlock,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    as_text,
    command_record,
    is_reminder,
    not_run,
    typed_command,
    was_refused,
)

__all__ = [
    "INTERRUPTED",
    "INTERRUPTED_BY_USER",
    "INTERRUPTED_FOR_TOOL_USE",
    "REFUSED",
    "ContentBlock",
    "DocumentBlock",
    "ImageBlock",
    "Message",
    "RedactedThinkingBlock",
    "ResultBlock",
    "StopReason",
    "TextBlock",
    "ThinkingBlock",
    "ToolResultBlock",
    "ToolUseBlock",
    "Usage",
    "as_text",
    "command_record",
    "is_reminder",
    "not_run",
    "typed_command",
    "was_refused",
]
