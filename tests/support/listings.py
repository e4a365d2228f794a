"""The agent-type and skill listings a conversation's first prompt brings (Claude Code's reminders, see
agentui.core.session.attachments), left out where a test looks at what the person's prompt became."""

from __future__ import annotations

from typing import Any, TypeVar

HEADINGS = (
    "Available agent types",
    "New agent types",
    "The following agent types are no longer",
    "The following skills are available",
)

Block = TypeVar("Block")


def is_listing(block: Any) -> bool:
    """A request's block (a dict) or a history's (a TextBlock) that is one of the listings."""
    said = block.get("text") if isinstance(block, dict) else getattr(block, "text", None)
    return isinstance(said, str) and said.startswith(tuple(f"<system-reminder>\n{h}" for h in HEADINGS))


def without_listings(blocks: list[Block]) -> list[Block]:
    return [block for block in blocks if not is_listing(block)]


def said(message: Any) -> str:
    """A history's or a request's Message as text, without the listings."""
    return "".join(getattr(block, "text", "") for block in without_listings(list(message.content)))
