"""Model calls beside the conversation (WebFetch's answer about a page, WebSearch's search): one request that is
not part of the history, made with the conversation's provider and retries, counted in its usage and cost."""

from __future__ import annotations

from contextlib import aclosing
from typing import Any, Protocol

from agentui.core.loop.agent import Agent
from agentui.core.loop.model_call import ModelCall
from agentui.core.messages import Message
from agentui.core.providers.base import ProviderRequest
from agentui.core.providers.limit_wait import LimitWaitNotice
from agentui.core.providers.retry import RetryNotice, stream_with_retry
from agentui.core.providers.stream import MessageAccumulator, StreamEnd
from agentui.core.tools.web_search import SearchOutcome


class Asked(Protocol):
    """A conversation, as far as a side question goes: its agent."""

    @property
    def agent(self) -> Agent: ...


SIDE_MAX_TOKENS = 4096
WEB_SEARCH_TOOL = "web_search_20250305"
MAX_SEARCHES = 8


async def side_call(agent: Agent, kind: str, model: str, system: str, text: str) -> str:
    """The model's answer to `text`, from `model` unless a route sends calls of `kind` elsewhere; raises
    ProviderError."""
    provider, model = agent.router.route(kind, model)
    request = ProviderRequest(model=model, system=system, messages=(Message.user(text),), max_tokens=SIDE_MAX_TOKENS)
    with agent.ledger.waiting():
        answer = await ModelCall(agent.session_id).run(provider, request, agent.services.retry)
    if answer.usage is not None:
        agent.ledger.record(answer.usage, model, context_tokens=agent.context_tokens, window=agent.window)
    return answer.text.strip()


async def side_search(
    agent: Agent, model: str, query: str, allowed: list[str] | None, blocked: list[str] | None
) -> SearchOutcome:
    """A web search by the provider's own server-side tool (the Messages API's); raises ProviderError."""
    tool: dict[str, Any] = {"type": WEB_SEARCH_TOOL, "name": "web_search", "max_uses": MAX_SEARCHES}
    if allowed:
        tool["allowed_domains"] = allowed
    if blocked:
        tool["blocked_domains"] = blocked
    request = ProviderRequest(
        model=model,
        system="You are an assistant for performing a web search tool use.",
        messages=(Message.user(f"Perform a web search for the query: {query}"),),
        max_tokens=SIDE_MAX_TOKENS,
        server_tools=(tool,),
    )
    answer = MessageAccumulator()
    found: tuple[dict[str, Any], ...] = ()
    with agent.ledger.waiting():
        async with aclosing(stream_with_retry(agent.services.provider, request, agent.services.retry)) as stream:
            async for event in stream:
                if isinstance(event, RetryNotice | LimitWaitNotice):  # (a new attempt starts the answer again)
                    answer, found = MessageAccumulator(), ()
                    continue
                answer.feed(event)
                if isinstance(event, StreamEnd):
                    found = event.server_results
    agent.ledger.record(answer.usage, model, context_tokens=agent.context_tokens, window=agent.window)
    links: list[dict[str, str]] = []
    error = None
    for block in found:
        content = block.get("content")
        if isinstance(content, dict) and content.get("type") == "web_search_tool_result_error":
            error = str(content.get("error_code") or "unknown error")
        for item in content if isinstance(content, list) else []:
            if isinstance(item, dict) and item.get("url"):
                links.append({"title": str(item.get("title") or item["url"]), "url": str(item["url"])})
    return SearchOutcome(answer.message().text.strip(), links, error)


async def side_question(conversation: Asked, question: str) -> str:
    """A question about the conversation, answered from its history by its model and instructions with no tools, and
    not added to it (Claude Code's side question); raises ProviderError."""
    agent = conversation.agent
    history = list(agent.messages)
    if history and history[-1].role == "user":  # (the question joins a last user message, as two may not follow)
        last = history.pop()
        asked = Message(role="user", content=[*last.content, *Message.user(question).content])
    else:
        asked = Message.user(question)
    request = ProviderRequest(
        model=agent.config.model,
        system=agent.config.system_prompt,
        system_volatile=agent.config.environment,
        messages=(*history, asked),
        max_tokens=SIDE_MAX_TOKENS,
    )
    with agent.ledger.waiting():
        answer = await ModelCall(agent.session_id).run(agent.services.provider, request, agent.services.retry)
    if answer.usage is not None:
        agent.ledger.record(answer.usage, agent.config.model, context_tokens=agent.context_tokens, window=agent.window)
    return answer.text.strip()
