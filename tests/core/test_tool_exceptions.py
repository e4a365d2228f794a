"""Any exception raised in a tool call, by the tool or around it, becomes that call's error result in one sentence:
nothing escapes the dispatcher, every tool_use gets its tool_result, and the run goes on (issue 31)."""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

import pytest

from agentui.core.tools import builtin_tools
from agentui.core.tools.base import ToolRegistry
from agentui.core.workspace import Workspace
from tests.support.permissions import answer_to_one_call

TOOL_NAMES = [tool.name for tool in builtin_tools(Workspace(root=Path.cwd()))]


def explode(*_: object, **__: object) -> NoReturn:
    raise RuntimeError("the disk is on fire\n  Traceback (most recent call last): ...")


def tools_with(tmp_path: Path, name: str) -> tuple[ToolRegistry, type]:
    tools = builtin_tools(Workspace(root=tmp_path))
    tool = tools.get(name)
    assert tool is not None
    return tools, type(tool)


@pytest.mark.parametrize("name", TOOL_NAMES)
async def test_an_exception_around_the_tool_becomes_its_error_result(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Raised before the tool runs (here while its arguments are read), where no tool's own guard is."""
    tools, kind = tools_with(tmp_path, name)
    monkeypatch.setattr(kind.Args, "model_validate", classmethod(explode))
    block = await answer_to_one_call(tmp_path, name, {}, tools)
    assert block.is_error and block.content == f"{name} failed: RuntimeError: the disk is on fire."


@pytest.mark.parametrize("name", TOOL_NAMES)
async def test_an_exception_in_the_tool_becomes_its_error_result(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools, kind = tools_with(tmp_path, name)
    monkeypatch.setattr(kind.Args, "model_validate", classmethod(lambda cls, value: cls.model_construct()))
    monkeypatch.setattr(kind, "permission_path", lambda self, args: None)
    monkeypatch.setattr(kind, "run", explode)
    block = await answer_to_one_call(tmp_path, name, {}, tools)
    assert block.is_error and block.content == f"{name} failed: RuntimeError: the disk is on fire."
