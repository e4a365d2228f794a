"""Thinking from the person's side: on or off for the conversation (Claude Code's Alt+T), and `ultrathink` in a
prompt, which asks for the most thinking for that one prompt's run. Claude Code 2.1.197 honours only `ultrathink`
(a whole word, any case): `think`, `think hard`, `think harder` and `megathink` no longer count. It no longer sends
a number for it (its models think adaptively); agentui sends an explicit budget, so `ultrathink` gets the budget
Claude Code gave it when it did send one, 31,999 tokens, with room for the answer."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from agentui.core.loop.agent_config import AgentConfig
    from agentui.core.run_options import ModelOptions
    from agentui.core.settings import Settings


class Configured(Protocol):
    """An agent, as far as thinking goes: its configuration, replaced whole to change it."""

    config: AgentConfig


class Launched(Protocol):
    @property
    def settings(self) -> Settings: ...


class Thinking(Protocol):
    """A conversation, as far as thinking goes: its agent, and the settings it was opened with."""

    @property
    def agent(self) -> Configured: ...

    @property
    def launch(self) -> Launched: ...


DEFAULT_THINKING_TOKENS = 8_000
"""The budget thinking turned on gets when the settings name none (as `--thinking enabled`)."""
ULTRATHINK_TOKENS = 31_999
ANSWER_ROOM = 1
"""max_tokens counts the thinking too and must be more than the budget (Claude Code sent 32,000 with 31,999)."""
ULTRATHINK = re.compile(r"\bultrathink\b", re.IGNORECASE)


def thinking_words(text: str) -> list[tuple[int, int]]:
    """Where the words that ask for more thinking are in `text` ([start, end) offsets), for a front end to mark."""
    return [match.span() for match in ULTRATHINK.finditer(text)]


def prompt_thinking(text: str) -> int | None:
    """The thinking budget `text` asks for by its words, None when it asks for none."""
    return ULTRATHINK_TOKENS if ULTRATHINK.search(text) else None


def thinking_budget(conversation: Thinking) -> int | None:
    """The tokens the model may think with on the next request, None when thinking is off."""
    return conversation.agent.config.options.thinking_budget


def set_thinking(conversation: Thinking, on: bool, tokens: int | None = None) -> int | None:
    """Thinking on (with `tokens`, else the settings' budget, or 8,000 tokens) or off for the requests from now on,
    in this conversation; returns the budget now in force."""
    launched = conversation.launch.settings.options
    budget = (tokens or launched.thinking_budget or DEFAULT_THINKING_TOKENS) if on else None
    agent = conversation.agent
    agent.config = agent.config.model_copy(update={"options": _with_budget(launched, budget)})
    return budget


@contextmanager
def thinking_for(agent: Configured, prompt: str) -> Iterator[None]:
    """While `prompt`'s run goes on, the budget its words ask for (if more than the conversation's); then the
    conversation's own again, unless it was changed meanwhile (thinking turned off during the run stays off)."""
    asked = prompt_thinking(prompt)
    before = agent.config.options
    if asked is None or asked <= (before.thinking_budget or 0):
        yield
        return
    during = _with_budget(before, asked)
    agent.config = agent.config.model_copy(update={"options": during})
    try:
        yield
    finally:
        if agent.config.options is during:
            agent.config = agent.config.model_copy(update={"options": before})


def _with_budget(options: ModelOptions, budget: int | None) -> ModelOptions:
    """`options` with `budget` tokens to think with, and an answer size that leaves room beside them."""
    max_tokens = max(options.max_tokens, budget + ANSWER_ROOM) if budget else options.max_tokens
    return options.model_copy(update={"thinking_budget": budget, "max_tokens": max_tokens})
