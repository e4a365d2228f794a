"""What an agent is configured with: its model, its prompts, its limits and its compaction settings."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from agentui.core.loop.budget import Budget
from agentui.core.messages import Message
from agentui.core.output_tokens import model_output_tokens
from agentui.core.providers.base import ProviderRequest
from agentui.core.run_options import ModelOptions, RunLimits
from agentui.core.session.attachments import with_reminders
from agentui.core.tools.base import ToolRegistry


class AgentConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    system_prompt: str = ""
    """Instructions and memory: the stable, cached part of the system prompt."""
    environment: str = ""
    """Facts about the session (directory, date, git status), sent after the cached part."""
    max_turns: int | None = Field(default=None, ge=1)
    """Model calls allowed per run; None for no limit."""
    limits: RunLimits = RunLimits()
    fallback_model: str | None = None
    """The model to go on with when the model stays overloaded after the retries."""
    options: ModelOptions = ModelOptions()
    """How each model call is made, and when the context is compacted: the settings' own, as they are."""
    cwd: Path = Field(default_factory=Path.cwd)
    resumed: bool = False
    """The conversation goes on from a session's history (SessionStart's source is "resume", not "startup")."""

    def budget(self, round_cost: Callable[[str], float | None] | None = None) -> Budget:
        """A fresh pool with these limits, for a run (and the sub-agents or attempts it shares with); `round_cost`
        gives a model's average cost of one call (the project's agent profile), for the estimate of calls left."""
        limits = self.limits
        cost = round_cost(self.model) if round_cost is not None else None
        return Budget(limits.max_budget_usd, limits.max_total_tokens, limits.max_seconds, round_cost=cost)

    def request(self, messages: Sequence[Message], tools: ToolRegistry) -> ProviderRequest:
        """The model call this configuration makes for `messages`."""
        return ProviderRequest(
            model=self.model,
            system=self.system_prompt,
            system_volatile=self.environment,
            messages=tuple(with_reminders(messages)),
            tools=tools.specs(),
            max_tokens=self.output_tokens,
            thinking_budget=self.options.thinking_budget,
            effort=self.options.effort,
        )

    @property
    def output_tokens(self) -> int:
        """What one answer may have: as the settings name it, else the model's own (Claude Code's figure for a
        Claude model), never less than thinking needs."""
        if self.options.max_tokens_named:
            return self.options.max_tokens
        own = model_output_tokens(self.model, self.options.max_tokens)
        budget = self.options.thinking_budget
        return max(own, budget + 1) if budget else own  # (max_tokens counts the thinking, and must exceed it)
