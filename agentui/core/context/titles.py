"""A session's title written by a model, when the config routes "title" calls somewhere (a small local model, say):
after the first answer, one short call names the conversation, and the session gets Claude Code's `ai-title` line,
which its picker and agentui's show unless the person named the session."""

from __future__ import annotations

import logging
from typing import Protocol

from agentui.core.loop.agent import Agent
from agentui.core.providers.base import ProviderError

log = logging.getLogger(__name__)


class TitleWriter(Protocol):
    def ai_title(self, title: str) -> None: ...


TITLE_SYSTEM = (
    "Name this coding conversation in three to seven words, as a title: plain words, no quotes, no punctuation at "
    "the end. Answer with the title only."
)
MAX_TITLE = 80
PROMPT_CHARS = 2000


async def model_title(agent: Agent, prompt: str, answer: str) -> str | None:
    """The routed model's title for a conversation that began with `prompt`; None if it could not give one."""
    from agentui.core.loop.side_call import side_call

    text = f"The person asked:\n{prompt[:PROMPT_CHARS]}\n\nThe assistant answered:\n{answer[:PROMPT_CHARS]}"
    try:
        said = await side_call(agent, "title", agent.config.model, TITLE_SYSTEM, text)
    except ProviderError as exc:  # (a title is a nicety: the prompt's first line stays the title)
        log.info("no title from the model: %s", exc)
        return None
    return clean_title(said)


def clean_title(said: str) -> str | None:
    lines = [line.strip() for line in said.strip().splitlines() if line.strip()]
    if not lines:
        return None
    title = lines[0].strip("\"'`*# ").removeprefix("Title:").strip().rstrip(".")
    return title[:MAX_TITLE] or None


async def write_model_title(agent: Agent, writer: TitleWriter, prompt: str, answer: str) -> None:
    """The routed model's title, written to the session as its `ai-title` line (nothing if it gave none)."""
    if (title := await model_title(agent, prompt, answer)) is not None:
        writer.ai_title(title)
