"""WebSearch: a web search by the provider's own server-side search (the Messages API's web search tool), its
results as Claude Code gives them to the model (the links as JSON, then what was found). Other providers have no
such search: the tool is not offered there, and a call says so in one sentence."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field, model_validator
from typing_extensions import TypedDict

from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolResult


@dataclass(frozen=True)
class SearchOutcome:
    """What a search found, as the searcher the tool is given returns it."""

    text: str
    """The model's account of what it found."""
    links: list[dict[str, str]]
    """Each result's title and URL, in the order found."""
    error: str | None = None
    """The search's own error code, when it found nothing because it failed."""


Searcher = Callable[[str, list[str] | None, list[str] | None], Awaitable[SearchOutcome]]
"""Searches for a query (with the domains to keep to or leave out); raises ProviderError."""
REMINDER = "REMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks."


class WebSearchArgs(ToolArgs):
    query: str = Field(min_length=2, description="What to search the web for")
    allowed_domains: list[str] | None = Field(default=None, description="Only results from these domains")
    blocked_domains: list[str] | None = Field(default=None, description="No results from these domains")

    @model_validator(mode="after")
    def _one_list(self) -> WebSearchArgs:
        if self.allowed_domains and self.blocked_domains:
            raise ValueError("give allowed_domains or blocked_domains, not both")
        return self


class WebSearchDetails(TypedDict):
    query: str
    results: list[dict[str, str]]


class WebSearch(Tool[Any]):
    name = "WebSearch"
    description = (
        "Search the web for up-to-date information (current documentation, releases, error messages) beyond your "
        "training data. Results come with their links: cite the sources you use as Markdown links in your answer. "
        "allowed_domains or blocked_domains narrow the results. Account for today's date in queries about recent "
        "things."
    )
    Args = WebSearchArgs
    Details = WebSearchDetails
    kind = "read"
    shown = "fetch"

    @classmethod
    def title(cls, arguments: Mapping[str, Any], cwd: Path | None) -> str:
        return str(arguments.get("query") or "")

    def __init__(self, search: Searcher | None, provider: str) -> None:
        self.search = search
        self.provider = provider
        self.offered = search is not None

    async def run(self, args: WebSearchArgs, ctx: ToolContext) -> ToolResult:
        from agentui.core.providers.base import ProviderError

        if self.search is None:
            return ToolResult.error(
                f"WebSearch is not available with this provider ({self.provider}): it needs the server-side web "
                "search of Anthropic's Messages API. Use WebFetch on a page whose address you know instead."
            )
        try:
            found = await self.search(args.query, args.allowed_domains, args.blocked_domains)
        except ProviderError as exc:
            return ToolResult.error(f"The web search failed: {exc.message}")
        if found.error and not found.links:
            return ToolResult.error(f"The web search failed ({found.error}).")
        links = json.dumps(found.links, ensure_ascii=False, separators=(",", ":"))
        text = f'Web search results for query: "{args.query}"\n\nLinks: {links}\n\n{found.text}\n\n\n{REMINDER}'
        return ToolResult(text, details=WebSearchDetails(query=args.query, results=found.links))
