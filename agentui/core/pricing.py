"""What a run cost, from token usage and list prices per model (USD per million tokens)."""

from __future__ import annotations

from agentui.core.messages import Usage
from agentui.core.model_aliases import claude_name

# (input, output) per million tokens; cache writes cost 1.25x input and cache reads 0.1x, as Anthropic bills.
# Matched by prefix, longest first, so "claude-sonnet-4-5-20250929" finds "claude-sonnet-4-5".
_PRICES: dict[str, tuple[float, float]] = {
    "claude-opus-4-8": (5.0, 25.0),
    "claude-opus-4-5": (5.0, 25.0),
    "claude-opus-4-1": (15.0, 75.0),
    "claude-opus-4": (15.0, 75.0),
    "claude-sonnet-5": (3.0, 15.0),
    "claude-sonnet-4": (3.0, 15.0),
    "claude-3-7-sonnet": (3.0, 15.0),
    "claude-3-5-sonnet": (3.0, 15.0),
    "claude-haiku-4-5": (1.0, 5.0),
    "claude-3-5-haiku": (0.8, 4.0),
    "claude-3-haiku": (0.25, 1.25),
    "gpt-4.1-nano": (0.1, 0.4),
    "gpt-4.1-mini": (0.4, 1.6),
    "gpt-4.1": (2.0, 8.0),
    "gpt-4o-mini": (0.15, 0.6),
    "gpt-4o": (2.5, 10.0),
    # Gemini's, for prompts up to 200,000 tokens (Pro costs more past them); a cached read is a tenth of the input
    # price, as Google bills implicit and explicit caching. 3.8 Flash: its launch price, until the end of 2026.
    "gemini-3.8-flash": (0.75, 3.75),
    "gemini-3.5-flash-lite": (0.3, 2.5),
    "gemini-3.5-flash": (1.5, 9.0),
    "gemini-3.1-pro": (2.0, 12.0),
    "gemini-3-pro": (2.0, 12.0),
    "gemini-3-flash": (0.5, 3.0),
    "gemini-2.5-pro": (1.25, 10.0),
    "gemini-2.5-flash-lite": (0.1, 0.4),
    "gemini-2.5-flash": (0.3, 2.5),
}
_BY_LENGTH = sorted(_PRICES, key=len, reverse=True)


def prices(model: str) -> tuple[float, float] | None:
    """(input, output) USD per million tokens, or None for a model we have no price for (local ones)."""
    name = claude_name(model).removeprefix("anthropic/").removeprefix("openai/").removeprefix("models/")
    for prefix in _BY_LENGTH:
        if name.startswith(prefix):
            return _PRICES[prefix]
    return None


def cost_usd(model: str, usage: Usage) -> float:
    found = prices(model)
    if found is None:
        return 0.0
    input_price, output_price = found
    millions = (
        usage.input_tokens * input_price
        + usage.cache_creation_input_tokens * input_price * 1.25
        + usage.cache_read_input_tokens * input_price * 0.1
        + usage.output_tokens * output_price
    )
    return round(millions / 1_000_000, 6)
