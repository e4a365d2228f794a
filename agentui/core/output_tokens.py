"""How many tokens one answer may have when the settings name no `max_tokens`: for Claude models, what Claude Code
2.1.197 asks the Messages API for (measured model by model), else agentui's 8,192. It is what a request's
`max_tokens` says and what results report as the model's `maxOutputTokens`."""

from __future__ import annotations

from agentui.core.model_aliases import LONG_CONTEXT, claude_name

CLAUDE_OUTPUT_TOKENS: dict[str, int] = {
    "claude-3-haiku": 4_096,
    "claude-3-opus": 4_096,
    "claude-3-5-haiku": 8_192,
    "claude-3-5-sonnet": 8_192,
    "claude-3-7-sonnet": 32_000,
    "claude-sonnet-4": 32_000,
    "claude-haiku-4": 32_000,
    "claude-opus-4": 32_000,
    "claude-opus-4-6": 64_000,
    "claude-opus-4-7": 64_000,
    "claude-opus-4-8": 64_000,
    "claude-sonnet-5": 64_000,
}
"""By model-name prefix, the longest that fits (an id with a date, a Bedrock or Vertex id, a `[1m]` variant)."""


GEMINI_OUTPUT_TOKENS = 65_536
"""Gemini 2.5's and 3's own limit, which counts the model's thinking too: 8,192 would leave a model thinking at its
default level little room for the answer (Gemini 2.0 and 1.5 allow 8,192, which is agentui's default)."""


def model_output_tokens(model: str, default: int) -> int:
    """The answer's token limit for `model` when none is named: Claude Code's for a Claude model, Gemini's own for a
    thinking Gemini, else `default`."""
    name = claude_name(model).removesuffix(LONG_CONTEXT)
    gemini = name.rsplit("/", 1)[-1]
    if gemini.startswith("gemini-") and not gemini.startswith(("gemini-1", "gemini-2.0", "gemini-exp")):
        return GEMINI_OUTPUT_TOKENS
    if not name.startswith("claude-"):
        return default
    fitting = [prefix for prefix in CLAUDE_OUTPUT_TOKENS if name.startswith(prefix)]
    return CLAUDE_OUTPUT_TOKENS[max(fitting, key=len)] if fitting else default
