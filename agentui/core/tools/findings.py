"""PostFinding and ReadFindings: the blackboard's findings, for agents that work beside others (sub-agents). One
posts a short finding (a fact, a path, a conclusion); the others read what was posted."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from pydantic import Field
from typing_extensions import TypedDict

from agentui.core.call_views import ResultView
from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolResult

MAX_FINDING = 2_000
"""Characters of one finding: a finding is short, the report is the agent's final message."""


class FindingBoard(Protocol):
    """What the tools use of the blackboard (loop/blackboard.Member satisfies it)."""

    def post(self, text: str) -> None: ...

    def others(self) -> list[tuple[str, str]]: ...


class PostFindingArgs(ToolArgs):
    finding: str = Field(min_length=1, max_length=MAX_FINDING, description="The finding, in a sentence or two")


class ReadFindingsArgs(ToolArgs):
    pass


class FindingsDetails(TypedDict):
    count: int


class PostFinding(Tool[PostFindingArgs]):
    name = "PostFinding"
    description = (
        "Post a short finding on the blackboard the other agents working beside you read (a fact, a file path, a "
        "conclusion, a dead end to avoid), so they need not discover it again. Keep it to a sentence or two."
    )
    Args = PostFindingArgs
    Details = FindingsDetails
    kind = "read"  # (it changes nothing outside the conversation: no permission)
    shown = "think"

    def __init__(self, board: FindingBoard) -> None:
        self.board = board

    @classmethod
    def title(cls, arguments: Mapping[str, Any], cwd: Path | None) -> str:
        return str(arguments.get("finding") or "")[:80]

    async def run(self, args: PostFindingArgs, ctx: ToolContext) -> ToolResult:
        self.board.post(args.finding.strip())
        return ToolResult("Posted. The other agents can read it with ReadFindings.", FindingsDetails(count=1))


class ReadFindings(Tool[ReadFindingsArgs]):
    name = "ReadFindings"
    description = (
        "Read the findings the other agents working beside you have posted on the blackboard, oldest first. Read "
        "them before starting on something another agent may have looked into already."
    )
    Args = ReadFindingsArgs
    Details = FindingsDetails
    kind = "read"
    shown = "read"

    def __init__(self, board: FindingBoard) -> None:
        self.board = board

    @classmethod
    def title(cls, arguments: Mapping[str, Any], cwd: Path | None) -> str:
        return "findings"

    @classmethod
    def result(cls, text: str, details: Mapping[str, Any]) -> ResultView:
        count = int(details.get("count") or 0)
        return ResultView(f"{count} finding{'s' if count != 1 else ''}")

    async def run(self, args: ReadFindingsArgs, ctx: ToolContext) -> ToolResult:
        found = self.board.others()
        if not found:
            return ToolResult("No findings have been posted by the other agents yet.", FindingsDetails(count=0))
        lines = [f"- {agent}: {text}" for agent, text in found]
        return ToolResult("\n".join(["Findings of the other agents:", *lines]), FindingsDetails(count=len(found)))


def finding_tools(board: FindingBoard) -> list[Tool[Any]]:
    """The two tools for one agent's seat on the blackboard."""
    return [PostFinding(board), ReadFindings(board)]
