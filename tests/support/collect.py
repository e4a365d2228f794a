"""Drive a provider directly and build its message, the way the agent does, for provider-level assertions."""

from __future__ import annotations

from agentui.core.messages import Message
from agentui.core.providers.base import Provider, ProviderRequest
from agentui.core.providers.stream import MessageAccumulator


async def collect(provider: Provider, request: ProviderRequest) -> Message:
    acc = MessageAccumulator()
    async for item in provider.stream(request):
        acc.feed(item)
    return acc.message()
