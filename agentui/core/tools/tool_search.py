"""ToolSearch (Claude Code's tool search): with the tool filter holding tools back, the model finds them by keywords
or selects them by name, reads their schemas, and they are sent on every request after."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import Field
from typing_extensions import TypedDict

from agentui.core.call_views import ResultView
from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolRegistry, ToolResult
from agentui.core.tools.tool_filter import ToolFilter, words


class ToolSearchArgs(ToolArgs):
    query: str = Field(
        min_length=1,
        description='Query to find deferred tools. Use "select:<tool_name>" for direct selection, or keywords to '
        "search.",
    )
    max_results: int = Field(default=5, ge=1, le=50, description="Maximum number of results to return (default: 5)")


class ToolSearchDetails(TypedDict):
    matches: list[str]
    """The names of the tools found (sent from the next request on)."""
    query: str


class ToolSearch(Tool[ToolSearchArgs]):
    name = "ToolSearch"
    description = (
        "Fetches full schema definitions for deferred tools so they can be called. Not every tool is loaded at "
        'first: search by keywords ("slack message", "+github issue") or select by name ("select:Read,Edit"). '
        "The tools found can be called at once, and stay available."
    )
    Args = ToolSearchArgs
    Details = ToolSearchDetails
    kind = "read"
    shown = "search"
    offered = False  # (sent only while the tool filter holds tools back: it adds it)

    def __init__(self, tools: ToolRegistry, chooser: ToolFilter) -> None:
        self.tools, self.chooser = tools, chooser

    @classmethod
    def title(cls, arguments: Mapping[str, Any], cwd: Path | None) -> str:
        return str(arguments.get("query", ""))

    @classmethod
    def result(cls, text: str, details: Mapping[str, Any]) -> ResultView:
        found = details.get("matches") or []
        return ResultView(f"{len(found)} tool{'' if len(found) == 1 else 's'} found")

    async def run(self, args: ToolSearchArgs, ctx: ToolContext) -> ToolResult:
        offered = [tool for tool in self.tools if tool.offered and not self.tools.withheld(tool.name)]
        candidates = self.chooser.held_back(offered)
        query = args.query.strip()
        if query.startswith("select:"):
            chosen = {name.strip() for name in query.removeprefix("select:").split(",")}
            found = [tool for tool in offered if tool.name in chosen]
        else:
            found = _search(candidates, query)[: args.max_results]
        if not found:
            return ToolResult(f'No tools match "{query}".', details=ToolSearchDetails(matches=[], query=query))
        self.chooser.find(tool.name for tool in found)
        schemas = "\n".join(
            json.dumps({"name": t.name, "description": t.description, "parameters": t.spec.input_schema}) for t in found
        )
        names = [tool.name for tool in found]
        said = f"Found {len(found)} tool(s), available to call now: {', '.join(names)}"
        return ToolResult(
            f"{said}\n<functions>\n{schemas}\n</functions>",
            details=ToolSearchDetails(matches=names, query=query),
        )


def _search(candidates: list[Tool[Any]], query: str) -> list[Tool[Any]]:
    """Best first: words of the name count most; a `+word` must be in the name."""
    required = [word[1:].lower() for word in query.split() if word.startswith("+") and len(word) > 1]
    wanted = words(query.replace("+", " "))
    scored: list[tuple[int, int, Tool[Any]]] = []
    for index, tool in enumerate(candidates):
        if any(word not in tool.name.lower() for word in required):
            continue
        score = 3 * len(words(tool.name) & wanted) + len(words(tool.description) & wanted)
        if score > 0 or (required and not wanted - set(required)):
            scored.append((-score, index, tool))
    return [tool for _, _, tool in sorted(scored, key=lambda item: item[:2])]
