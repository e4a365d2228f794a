"""A conversation as Markdown (/export): prompts, answers, and each tool call as a line; and where an export goes
when no name is given (the data directory: in the project it would be committed by accident)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from agentui.core.dirs import data_dir
from agentui.core.errors import AgentuiError
from agentui.core.messages import Message, TextBlock, ToolUseBlock
from agentui.core.tool_views import call_summary


def conversation_markdown(messages: list[Message]) -> str:
    parts = []
    for message in messages:
        for block in message.content:
            if isinstance(block, TextBlock) and block.text.strip():
                parts.append(f"## {'You' if message.role == 'user' else 'Assistant'}\n\n{block.text}\n")
            elif isinstance(block, ToolUseBlock):
                parts.append(f"> **{block.name}** `{call_summary(block.name, block.input)}`\n")
    return "\n".join(parts)


def export_path(name: str, root: Path, session_id: str, env: Mapping[str, str] | None = None) -> Path:
    """A name given is relative to the project, as typed; with none, a dated file in the data directory."""
    if name:
        return Path(name) if Path(name).is_absolute() else root / name
    return data_dir(env) / "exports" / f"{root.name}-{datetime.now():%Y%m%d-%H%M%S}-{session_id[:8]}.md"


class ExportError(AgentuiError, ValueError):
    """Nothing to export yet."""


def export_conversation(
    messages: list[Message], name: str, root: Path, session_id: str, env: Mapping[str, str] | None = None
) -> Path:
    """The conversation as Markdown, written to `name` (relative to the project) or a dated file in the data
    directory; the file. ExportError when there is nothing to export; OSError when it cannot be written."""
    if not messages:
        raise ExportError("There is nothing to export yet: this conversation is empty.")
    path = export_path(name, root, session_id, env)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(conversation_markdown(messages), encoding="utf-8")
    return path
