"""Asking a permission engine about a built-in tool call, as the dispatcher would."""

from __future__ import annotations

from pathlib import Path

from agentui.core.messages import ToolResultBlock, ToolUseBlock
from agentui.core.safety.permissions.engine import PermissionEngine
from agentui.core.safety.permissions.gate import Verdict
from agentui.core.tools import builtin_tools
from agentui.core.tools.base import ToolRegistry
from tests.support.agents import new_agent

PREFIX_RULES = (
    "Bash(echo:*)",
    "Bash(cat:*)",
    "Bash(ls:*)",
    "Bash(git status:*)",
    "Bash(npm test:*)",
    "Bash(printf:*)",
    "Bash(read:*)",
    "Bash(test:*)",
)
"""The allow rules of the attack suites' "prefix allow rules" mode: broad, and none of them covers what an attack
really runs."""


def check(engine: PermissionEngine, tool_name: str, **arguments: object) -> Verdict:
    tool = next(t for t in builtin_tools(engine.workspace) if t.name == tool_name)
    args = tool.Args.model_validate(arguments)
    return engine.check(tool, args, ToolUseBlock(id="t", name=tool_name, input=arguments))


class AllowEverything:
    """A gate that lets every call run: for tests of what happens once a call runs."""

    def check(self, tool: object, args: object, call: ToolUseBlock) -> Verdict:
        return Verdict("allow", "test")

    def remember(self, *_: object) -> None:
        pass


async def answer_to_one_call(
    root: Path, name: str, arguments: dict[str, object], tools: ToolRegistry | None = None
) -> ToolResultBlock:
    """One call to a built-in tool in `root`, made by a scripted model through the agent with every call allowed:
    the result the model is sent. The run must go on to the model's next answer."""
    import asyncio

    from agentui.core.loop.agent import AgentConfig
    from agentui.core.providers.retry import RetryPolicy
    from agentui.core.providers.scripted import ScriptedProvider
    from agentui.core.workspace import Workspace

    call = {"type": "tool_use", "id": "c1", "name": name, "input": arguments}
    provider = ScriptedProvider([{"content": [call]}, {"text": "Noted."}])
    agent = new_agent(
        provider,
        AgentConfig(model="scripted", system_prompt="sys"),
        tools=tools if tools is not None else builtin_tools(Workspace(root=root)),
        retry=RetryPolicy(base_delay=0.01),
        gate=AllowEverything(),  # type: ignore[arg-type]
    )
    result = await asyncio.wait_for(agent.prompt("go"), 60)
    assert result.text == "Noted."
    blocks = [b for b in provider.requests[1].messages[-1].content if isinstance(b, ToolResultBlock)]
    assert len(blocks) == 1 and blocks[0].tool_use_id == "c1"
    return blocks[0]
