"""Model calls beside the conversation (WebFetch's answer about a page): one request that is not part of the
history, made with the conversation's provider and retries, counted in its usage and cost."""

from __future__ import annotations

from agentui.core.agent import Agent
from agentui.core.messages import Message
from agentui.core.model_call import ModelCall
from agentui.core.providers.base import ProviderRequest

SIDE_MAX_TOKENS = 4096


async def side_call(agent: Agent, model: str, system: str, text: str) -> str:
    """The model's answer to `text`; raises ProviderError."""
    request = ProviderRequest(model=model, system=system, messages=(Message.user(text),), max_tokens=SIDE_MAX_TOKENS)
    with agent.ledger.waiting():
        answer = await ModelCall(agent.session_id).run(agent.provider, request, agent.retry)
    if answer.usage is not None:
        agent.ledger.record(answer.usage, model, context_tokens=agent.context_tokens, window=agent.window)
    return answer.text.strip()
