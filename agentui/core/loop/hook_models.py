"""The model calls of Claude Code's prompt and agent hooks (`extend.model_hooks`), made for a conversation's agent: a
question to the small fast model, or a verifying sub-agent that looks but neither writes nor asks the person."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from agentui.core.extend.model_hooks import AGENT_MAX_TURNS, VERDICT_SCHEMA, VERDICT_TOOL_DESCRIPTION
from agentui.core.loop.model_call import ModelCall
from agentui.core.loop.routing import Target
from agentui.core.loop.side_call import SIDE_MAX_TOKENS
from agentui.core.loop.spawn import spawn
from agentui.core.messages import Message
from agentui.core.providers.base import ProviderRequest
from agentui.core.safety.permissions.gate import Verdict
from agentui.core.tools.base import ToolContext, ToolRegistry, ToolResult
from agentui.core.tools.structured_output import AnyArgs, StructuredOutput

if TYPE_CHECKING:
    from pydantic import BaseModel

    from agentui.core.events import PermissionDecision
    from agentui.core.loop.agent import Agent
    from agentui.core.messages import ToolUseBlock
    from agentui.core.safety.permissions.gate import CheckedTool, PermissionGate

HOOK_KIND = "hook"
"""The routes' name for these calls (`routes.hook` may send them to another model or provider)."""


class AgentHookModels:
    """`model_hooks.HookModels` for `agent`'s conversation: its provider (or the route for hooks), its retries, its
    ledger; the small fast model unless the hook names one."""

    def __init__(self, agent: Agent, small_model: str | None) -> None:
        self._agent = agent
        self._small = small_model

    def _target(self, model: str | None) -> Target:
        agent = self._agent
        if model:  # (a model the hook names is the conversation provider's, as a sub-agent type's is)
            return Target(agent.services.provider, model)
        return agent.router.route(HOOK_KIND, self._small or agent.config.model)

    async def judge(self, system: str, text: str, *, model: str | None, transcript: bool) -> str:
        agent = self._agent
        provider, chosen = self._target(model)
        before = tuple(agent.messages) if transcript else ()
        request = ProviderRequest(
            model=chosen, system=system, messages=(*before, Message.user(text)), max_tokens=SIDE_MAX_TOKENS
        )
        with agent.ledger.waiting():
            answer = await ModelCall(agent.session_id).run(provider, request, agent.services.retry)
        if answer.usage is not None:
            agent.ledger.record(answer.usage, chosen, context_tokens=agent.context_tokens, window=agent.window)
        return answer.text.strip()

    async def verify(self, system: str, text: str, *, model: str | None, transcript: str) -> dict[str, Any] | None:
        parent = self._agent
        provider, chosen = self._target(model)
        config = parent.config.model_copy(
            update={
                "model": chosen,
                "system_prompt": system,
                "environment": "",
                "max_turns": AGENT_MAX_TURNS,
                "fallback_model": None,
                "options": parent.config.options.model_copy(update={"thinking_budget": None}),
            }
        )
        holder: list[Agent] = []
        verdict = _VerdictTool(lambda: holder[0].cancel())  # (its answer given, the agent need not go on)
        looks = [tool for tool in parent.services.tools if _may_use(tool.name, tool.kind, tool.main_only)]
        tools = ToolRegistry([*looks, verdict], parent.services.tools.withheld)
        # No hooks of its own: a hook's agent must not set off the hooks that started it.
        gate = NeverAsks(parent.services.gate, transcript)
        child = spawn(parent, provider, config, tools=tools, gate=gate, hooks=None, sub_agent=True)
        holder.append(child)
        await child.prompt(text)
        return verdict.value


def _may_use(name: str, kind: str, main_only: bool) -> bool:
    """A hook's agent looks (reads, searches, runs what the rules allow); it does not write, start agents, touch the
    conversation's task list or background commands, or use a tool only the main conversation has."""
    return kind != "write" and not main_only and not name.startswith(("Agent", "Task", "Todo"))


class _VerdictTool(StructuredOutput):
    description = VERDICT_TOOL_DESCRIPTION

    def __init__(self, answered: Callable[[], None]) -> None:
        super().__init__(VERDICT_SCHEMA)
        self._answered = answered

    async def run(self, args: AnyArgs, ctx: ToolContext) -> ToolResult:
        result = await super().run(args, ctx)
        if self.value is not None:
            self._answered()
        return result


class NeverAsks:
    """A gate as `gate` decides, except that what it would ask the person is refused (Claude Code's "dontAsk"): no
    one is there to answer a hook's agent. Reading the conversation's transcript is allowed, as Claude Code allows it
    (unless a deny rule names it)."""

    def __init__(self, gate: PermissionGate, transcript: str) -> None:
        self._gate = gate
        self._transcript = transcript

    def check(self, tool: CheckedTool, args: BaseModel, call: ToolUseBlock) -> Verdict:
        verdict = self._gate.check(tool, args, call)
        if verdict.behavior != "ask":
            return verdict
        if tool.name == "Read" and self._transcript and tool.permission_path(args) == self._transcript:
            return replace(verdict, behavior="allow", reason="the conversation's transcript, for a hook's agent")
        return replace(verdict, behavior="deny", reason=f"{verdict.reason} (a hook's agent asks no one)")

    def remember(self, tool: CheckedTool, args: BaseModel, call: ToolUseBlock, decision: PermissionDecision) -> None:
        return None
