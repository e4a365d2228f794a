"""Each tool's results carry the `details` its own type says (`Tool.Details`, a TypedDict or a union of them): run
for real in a temporary project, every key is one it declares, every key it requires is there, and every value
has its declared type (checked strictly by pydantic)."""

from __future__ import annotations

import base64
import json
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import typing_extensions
from pydantic import TypeAdapter, ValidationError

from agentui.core.tools import builtin_tools
from agentui.core.tools.base import Tool, ToolContext, ToolResult
from agentui.core.tools.structured_output import StructuredOutput
from agentui.core.workspace import Workspace

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def shape_problem(details: Mapping[str, Any], shape: Any) -> str | None:
    """Why `details` is not of `shape` (None if it is)."""
    members = typing.get_args(shape) if isinstance(shape, types.UnionType) else (shape,)
    problems = []
    for member in members:
        required, optional = _keys(member)
        if not required <= details.keys() <= required | optional:
            missing, unknown = required - details.keys(), details.keys() - required - optional
            problems.append(f"{member.__name__}: missing {sorted(missing)}, undeclared {sorted(unknown)}")
            continue
        try:
            TypeAdapter(member).validate_python(dict(details), strict=True)
        except ValidationError as exc:
            problems.append(f"{member.__name__}: {exc}")
            continue
        return None
    return "; ".join(problems)


def _keys(shape: Any) -> tuple[set[str], set[str]]:
    """(required keys, optional keys) of a TypedDict, read from its type hints (its own `__required_keys__` miss
    `NotRequired` in a module with postponed annotations)."""
    hints = typing_extensions.get_type_hints(shape, include_extras=True)
    optional = {k for k, v in hints.items() if typing_extensions.get_origin(v) is typing_extensions.NotRequired}
    if not shape.__total__:
        optional = set(hints)
    return set(hints) - optional, optional


def test_the_checker_finds_an_undeclared_key_a_missing_one_and_a_wrong_type() -> None:
    from agentui.core.tools.glob import GlobDetails

    good = {"filenames": ["a"], "durationMs": 1, "numFiles": 1, "truncated": False, "totalMatches": 1,
            "countIsComplete": True}  # fmt: skip
    assert shape_problem(good, GlobDetails) is None
    assert "undeclared ['extra']" in str(shape_problem({**good, "extra": 1}, GlobDetails))
    assert "missing ['numFiles']" in str(shape_problem({k: v for k, v in good.items() if k != "numFiles"}, GlobDetails))
    assert shape_problem({**good, "numFiles": "1"}, GlobDetails) is not None


async def test_every_built_in_tools_details_are_of_its_declared_shape(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.py").write_text("one\ntwo\n")
    (root / "pixel.png").write_bytes(PNG)
    cells = [{"cell_type": "code", "id": "c1", "metadata": {}, "source": ["x = 1\n"], "outputs": [],
              "execution_count": None}]  # fmt: skip
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (root / "n.ipynb").write_text(json.dumps(notebook))
    tools = builtin_tools(Workspace(root), env={"HOME": str(tmp_path / "home")})
    seen: dict[str, int] = {}

    async def call(name: str, **arguments: Any) -> ToolResult:
        tool = tools.get(name) if name != "StructuredOutput" else StructuredOutput({"type": "object"})
        assert tool is not None, name
        ctx = ToolContext(cwd=root, session_id="s", tool_call_id=f"t{len(seen)}", protection_lifted=True)
        result = await tool.run(tool.Args.model_validate(arguments), ctx)
        assert not result.is_error, (name, result.content)
        problem = shape_problem(result.details, type(tool).Details)
        assert problem is None, (name, problem)
        seen[name] = seen.get(name, 0) + 1
        return result

    await call("Read", file_path="a.py")
    await call("Read", file_path="pixel.png")
    await call("Read", file_path="n.ipynb")
    await call("Edit", file_path="a.py", old_string="two", new_string="2")
    await call("Write", file_path="a.py", content="fresh\n")
    await call("Write", file_path="new.py", content="made\n")
    await call("NotebookEdit", notebook_path="n.ipynb", cell_id="c1", new_source="x = 2")
    await call("NotebookEdit", notebook_path="n.ipynb", cell_id="c1", new_source="# note", cell_type="markdown",
               edit_mode="insert")  # fmt: skip
    await call("Grep", pattern="fresh")
    await call("Grep", pattern="fresh", output_mode="content")
    await call("Glob", pattern="*.py")
    await call("Bash", command="echo hi")
    started = await call("Bash", command="sleep 30", run_in_background=True)
    task_id = started.details["backgroundTaskId"]
    await call("TaskOutput", task_id=task_id, block=False)
    await call("BashOutput", bash_id=task_id)
    await call("TaskStop", task_id=task_id)
    again = await call("Bash", command="sleep 30", run_in_background=True)
    await call("KillShell", shell_id=again.details["backgroundTaskId"])
    created = await call("TaskCreate", subject="Write tests", description="All of them")
    task = created.details["task"]["id"]
    await call("TaskUpdate", taskId=task, status="in_progress")
    await call("TaskGet", taskId=task)
    await call("TaskList")
    await call("TodoWrite", todos=[{"content": "Test", "status": "pending", "activeForm": "Testing"}])
    question = {"question": "Which?", "header": "Pick", "options": [{"label": "A"}, {"label": "B"}]}
    await call("AskUserQuestion", questions=[question], answers={"Which?": "A"})
    await call("StructuredOutput", answer=42)
    assert set(seen) >= {name for name in (tool.name for tool in tools) if name not in ("ExitPlanMode",)}


def test_every_tool_declares_its_details_shape() -> None:
    from agentui.core.tool_views import _WHERE, tool_class

    classes = {tool_class(name) for name in _WHERE}
    undeclared = [cls.name for cls in classes if cls.Details is Tool.Details and cls.name not in
                  ("MultiEdit", "NotebookRead")]  # fmt: skip
    assert undeclared == []
