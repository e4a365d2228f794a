"""What an agent is configured with: its model, its prompts, its limits and its compaction settings."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from agentui.core.loop.budget import Budget
from agentui.core.messages import Message
from agentui.core.providers.base import ProviderRequest
from agentui.core.tools.base import ToolRegistry


class AgentConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    model: str
    system_prompt: str = ""
    """Instructions and memory: the stable, cached part of the system prompt."""
    environment: str = ""
    """Facts about the session (directory, date, git status), sent after the cached part."""
    max_turns: int | None = Field(default=None, ge=1)
    """Model calls allowed per run; None for no limit."""
    max_budget_usd: float | None = Field(default=None, gt=0)
    """What a run may spend (at list prices) before it stops, checked before each model call; None for no limit."""
    max_total_tokens: int | None = Field(default=None, ge=1)
    """Tokens a run may use (in and out, its sub-agents' too) before it stops; None for no limit."""
    max_seconds: float | None = Field(default=None, gt=0)
    """Wall-clock seconds a run may take: a deadline, at which whatever runs is stopped; None for no limit."""
    subagent_seconds: float | None = Field(default=None, gt=0)
    """Wall-clock seconds each sub-agent may take: asked to wrap up at 80%, stopped at the limit."""
    fallback_model: str | None = None
    """The model to go on with when the model stays overloaded after the retries."""
    max_tokens: int = Field(default=8192, ge=1)
    thinking_budget: int | None = None
    context_window: int | None = None
    """The model's context size in tokens when the built-in table does not know it (or knows it wrong)."""
    auto_compact: bool = True
    auto_compact_window: int | None = Field(default=None, ge=1)
    """The window automatic compaction counts against, when smaller than the model's (or the model's is unknown)."""
    compact_threshold: float = Field(default=0.9, ge=0.01, le=1.0)
    """How full the context may get before a model call, as a fraction of the window, before it is compacted."""
    cwd: Path = Field(default_factory=Path.cwd)

    def budget(self) -> Budget:
        """A fresh pool with these limits, for a run (and the sub-agents or attempts it shares with)."""
        return Budget(self.max_budget_usd, self.max_total_tokens, self.max_seconds)

    def request(self, messages: Sequence[Message], tools: ToolRegistry) -> ProviderRequest:
        """The model call this configuration makes for `messages`."""
        return ProviderRequest(
            model=self.model,
            system=self.system_prompt,
            system_volatile=self.environment,
            messages=tuple(messages),
            tools=tools.specs(),
            max_tokens=self.max_tokens,
            thinking_budget=self.thinking_budget,
        )
