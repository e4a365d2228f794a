"""The tools agentui offers take the arguments Claude Code 2.1.197 gives its model (../shared/docs/
claude-code-tools.json, recorded from it), so a model or a session made for one works with the other."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentui.core.tools import builtin_tools
from agentui.core.workspace import Workspace

RECORDED = Path(__file__).parents[2] / "fixtures" / "claude-code-tools.json"
NOT_YET: dict[str, set[str]] = {}
"""Arguments of Claude Code's that agentui does not take yet, by tool."""


def recorded() -> dict[str, dict[str, object]]:
    return {tool["name"]: tool["input_schema"] for tool in json.loads(RECORDED.read_text())}


@pytest.mark.parametrize(
    "name",
    ["Bash", "Read", "Write", "Edit", "TaskCreate", "TaskGet", "TaskUpdate", "TaskList", "TaskOutput", "TaskStop"],
)
def test_arguments_match_claude_codes(tmp_path: Path, name: str) -> None:
    tool = builtin_tools(Workspace(tmp_path)).get(name)
    assert tool is not None and tool.offered
    ours = tool.spec.input_schema
    theirs = recorded()[name]
    # The recording left out every key named "description", a property of that name included; it is still listed
    # among the required ones.
    their_properties = set(theirs["properties"]) | ({"description"} & set(theirs.get("required", [])))  # type: ignore[arg-type,call-overload]
    assert set(ours["properties"]) - {"description"} == their_properties - {"description"} - NOT_YET.get(name, set())
    assert set(ours.get("required", [])) <= set(theirs.get("required", []))  # type: ignore[call-overload]
    assert ours["additionalProperties"] is False
