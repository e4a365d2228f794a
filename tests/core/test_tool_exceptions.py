"""Any exception raised in a tool call, by the tool or around it, becomes that call's error result in one sentence:
nothing escapes the dispatcher, every tool_use gets its tool_result, and the run goes on (issue 31)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NoReturn

import pytest

from agentui.core.agent import Agent, AgentConfig
from agentui.core.messages import ToolResultBlock, ToolUseBlock
from agentui.core.permissions.gate import Verdict
from agentui.core.providers.retry import RetryPolicy
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.tools import builtin_tools
from agentui.core.workspace import Workspace

TOOL_NAMES = [tool.name for tool in builtin_tools(Workspace(root=Path.cwd()))]


class AllowEverything:
    def check(self, tool: Any, args: Any, call: ToolUseBlock) -> Verdict:
        return Verdict("allow", "test")

    def remember(self, *_: object) -> None:
        pass


def explode(*_: object, **__: object) -> NoReturn:
    raise RuntimeError("the disk is on fire\n  Traceback (most recent call last): ...")


async def answer_to_one_call(tmp_path: Path, name: str) -> tuple[ToolResultBlock, str]:
    tools = builtin_tools(Workspace(root=tmp_path))
    call = {"type": "tool_use", "id": "c1", "name": name, "input": {}}
    provider = ScriptedProvider([{"content": [call]}, {"text": "Noted."}])
    agent = Agent(
        provider,
        AgentConfig(model="scripted", system_prompt="sys"),
        tools=tools,
        retry=RetryPolicy(base_delay=0.01),
        gate=AllowEverything(),  # type: ignore[arg-type]
    )
    result = await agent.prompt("go")
    blocks = [b for b in provider.requests[1].messages[-1].content if isinstance(b, ToolResultBlock)]
    assert len(blocks) == 1 and blocks[0].tool_use_id == "c1"
    return blocks[0], result.text


@pytest.mark.parametrize("name", TOOL_NAMES)
async def test_an_exception_around_the_tool_becomes_its_error_result(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Raised before the tool runs (here while its arguments are read), where no tool's own guard is."""
    tool = builtin_tools(Workspace(root=tmp_path)).get(name)
    assert tool is not None
    monkeypatch.setattr(tool.Args, "model_validate", classmethod(explode))
    block, text = await answer_to_one_call(tmp_path, name)
    assert block.is_error and block.content == f"{name} failed: RuntimeError: the disk is on fire."
    assert text == "Noted."


@pytest.mark.parametrize("name", TOOL_NAMES)
async def test_an_exception_in_the_tool_becomes_its_error_result(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool = builtin_tools(Workspace(root=tmp_path)).get(name)
    assert tool is not None
    monkeypatch.setattr(tool.Args, "model_validate", classmethod(lambda cls, value: cls.model_construct()))
    monkeypatch.setattr(type(tool), "permission_path", lambda self, args: None)
    monkeypatch.setattr(type(tool), "run", explode)
    block, text = await answer_to_one_call(tmp_path, name)
    assert block.is_error and block.content == f"{name} failed: RuntimeError: the disk is on fire."
    assert text == "Noted."
