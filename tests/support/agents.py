"""An agent for a test, made from the parts the test names (the rest as an agent has them by default)."""

from __future__ import annotations

from typing import Any

from agentui.core.context.history import History
from agentui.core.context.window import TokenCounter
from agentui.core.loop.agent import Agent
from agentui.core.loop.agent_config import AgentConfig
from agentui.core.loop.services import Services
from agentui.core.messages import Message
from agentui.core.providers.base import Provider


def new_agent(
    provider: Provider,
    config: AgentConfig,
    *,
    messages: list[Message] | None = None,
    counter: TokenCounter | None = None,
    session_id: str | None = None,
    **services: Any,
) -> Agent:
    """`services` are Services' fields by name (tools, gate, retry, hooks, memory, ...); None is the default."""
    given = {name: value for name, value in services.items() if value is not None}
    return Agent(config, Services(provider, **given), History(messages or (), counter), session_id=session_id)
