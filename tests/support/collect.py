"""Drive a provider directly and build its message, the way the agent does, for provider-level assertions."""

from __future__ import annotations

from agentui.core.messages import Message
from agentui.core.providers.base import Provider, ProviderRequest
from agentui.core.providers.stream import BlockDelta, BlockStart, BlockStop, MessageAccumulator, StreamEnd, StreamStart


async def collect(provider: Provider, request: ProviderRequest) -> Message:
    acc = MessageAccumulator()
    async for item in provider.stream(request):
        if isinstance(item, StreamStart):
            acc.start(item)
        elif isinstance(item, BlockStart):
            acc.open(item)
        elif isinstance(item, BlockDelta):
            acc.delta(item)
        elif isinstance(item, BlockStop):
            acc.close(item)
        elif isinstance(item, StreamEnd):
            acc.end(item)
    return acc.message()
