"""spawn(): an agent made from another, a sub-agent or a branch of parallel attempts, with every service it shares
with it given at construction (the router, the retry policy, the session, the budget pool; a sub-agent's ledger and
prompt too), so nothing is set on it afterwards."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentui.core.context.history import History
from agentui.core.loop.agent import Agent, Lineage
from agentui.core.loop.services import Services

if TYPE_CHECKING:
    from agentui.core.extend.hooks import Hooks
    from agentui.core.loop.agent_config import AgentConfig
    from agentui.core.loop.blackboard import Member
    from agentui.core.messages import Message
    from agentui.core.providers.base import Provider
    from agentui.core.safety.permissions.gate import PermissionGate
    from agentui.core.tools.base import ToolRegistry


def spawn(
    parent: Agent,
    provider: Provider,
    config: AgentConfig,
    *,
    tools: ToolRegistry,
    gate: PermissionGate,
    hooks: Hooks | None,
    sub_agent: bool,
    messages: list[Message] | None = None,
    member: Member | None = None,
) -> Agent:
    """An agent working for `parent`: its summaries, sub-agents and side calls go where the parent's do, and its
    spending counts against the parent's budget. A sub-agent's calls count in the parent's ledger too, and its lines
    carry the parent's prompt (as Claude Code's); a branch of attempts starts from `messages`. Its seat on the
    parent's blackboard is `member` (else a new, numbered one)."""
    member = member or parent.member.spawn(None, config.cwd)
    lineage = Lineage(
        parent.budget,
        parent.ledger if sub_agent else None,
        parent.prompt_id if sub_agent else None,
        member,
        parent.loops.current,  # (the parent's run now: the sub-agent's or the branch's loop hangs off it)
    )
    if sub_agent:  # (its prompts are the model's words, not the person's, and the person's pins are not its own)
        config = config.model_copy(update={"options": config.options.model_copy(update={"compact_carry": False})})
    services = Services(provider, tools, gate, retry=parent.services.retry, router=parent.router, hooks=hooks)
    return Agent(config, services, History(messages or ()), session_id=parent.session_id, lineage=lineage)
