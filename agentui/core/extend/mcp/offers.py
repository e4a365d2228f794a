"""What an MCP server offers besides tools: its resources and its prompts, listed (page by page) when the server
declares them in its capabilities, as Claude Code lists them; a list that cannot be had is empty, not a failure."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

MAX_PAGES = 100
"""A server whose cursors never end is read this far (a bound, not a limit anyone should meet)."""


@dataclass(frozen=True)
class RemoteResource:
    uri: str
    name: str
    description: str = ""
    mime_type: str | None = None

    def listed(self, server: str) -> dict[str, Any]:
        """As ListMcpResourcesTool gives it: the MCP fields the server sent, and the server's name."""
        entry: dict[str, Any] = {"uri": self.uri, "name": self.name}
        if self.mime_type:
            entry["mimeType"] = self.mime_type
        if self.description:
            entry["description"] = self.description
        return {**entry, "server": server}


@dataclass(frozen=True)
class PromptArgument:
    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True)
class RemotePrompt:
    name: str
    description: str = ""
    arguments: tuple[PromptArgument, ...] = ()


async def list_resources(session: Any, capabilities: Any) -> list[RemoteResource]:
    if getattr(capabilities, "resources", None) is None:
        return []
    found = []
    for page in await _pages(session.list_resources):
        found += [
            RemoteResource(str(item.uri), item.name or str(item.uri), item.description or "", item.mimeType)
            for item in page.resources
        ]
    return found


async def list_prompts(session: Any, capabilities: Any) -> list[RemotePrompt]:
    if getattr(capabilities, "prompts", None) is None:
        return []
    found = []
    for page in await _pages(session.list_prompts):
        for item in page.prompts:
            arguments = tuple(
                PromptArgument(argument.name, argument.description or "", bool(argument.required))
                for argument in item.arguments or []
            )
            found.append(RemotePrompt(item.name, item.description or "", arguments))
    return found


async def _pages(lister: Any) -> list[Any]:
    pages, cursor = [], None
    for _ in range(MAX_PAGES):
        page = await lister(cursor)
        pages.append(page)
        cursor = getattr(page, "nextCursor", None)
        if not cursor:
            break
    return pages
