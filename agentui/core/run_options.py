"""What passes unchanged from the settings to the agent: how each model call is made and when the context is
compacted (`ModelOptions`), and what a run may use (`RunLimits`). The settings fill them once, the command line's
limits take the place of the file's (`RunLimits.over`), and the agent, its sub-agents and its attempts read the
same objects."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Effort = Literal["low", "medium", "high", "xhigh", "max"]
EFFORTS: tuple[Effort, ...] = ("low", "medium", "high", "xhigh", "max")


class ModelOptions(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    max_tokens: int = Field(default=8192, ge=1)
    """The most tokens one answer may have (with `max_tokens_named` False: at least; the model's own when more)."""
    max_tokens_named: bool = False
    """The settings (or CLAUDE_CODE_MAX_OUTPUT_TOKENS) name `max_tokens`: it is sent as it is, whatever the model."""
    thinking_budget: int | None = None
    """Tokens the model may think with before it answers (extended thinking); None for none."""
    effort: Effort | None = None
    """How hard the model works (Claude Code's --effort and effortLevel); None leaves it to the provider."""
    context_window: int | None = None
    """The model's context size in tokens when the built-in table does not know it (or knows it wrong)."""
    auto_compact: bool = True
    auto_compact_window: int | None = Field(default=None, ge=1)
    """The window automatic compaction counts against, when smaller than the model's (or the model's is unknown)."""
    compact_threshold: float = Field(default=0.9, ge=0.01, le=1.0)
    """How full the context may get before a model call, as a fraction of the window, before it is compacted."""
    compact_by_topic: bool = True
    """Summarise each piece of work in the older turns apart (context/topics.py), a section each."""
    compact_carry: bool = True
    """Carry the person's standing instructions and pinned messages verbatim in every summary (instructions.py)."""


class RunLimits(BaseModel):
    """Each None for no limit."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_budget_usd: float | None = Field(default=None, gt=0)
    """What a run (with its sub-agents) may spend at list prices, checked before each model call."""
    max_total_tokens: int | None = Field(default=None, ge=1)
    """Tokens a run may use (in and out, its sub-agents' too)."""
    max_seconds: float | None = Field(default=None, gt=0)
    """Wall-clock seconds a run may take: a deadline, at which whatever runs is stopped."""
    subagent_seconds: float | None = Field(default=None, gt=0)
    """Wall-clock seconds each sub-agent may take: asked to wrap up at 80%, stopped at the limit."""
    max_subagents: int | None = Field(default=None, ge=1)
    """Sub-agents running at once (the others wait their turn); None for MAX_SUBAGENTS (background_agents.py)."""

    def over(self, base: RunLimits) -> RunLimits:
        """These limits, and `base`'s where these set none (the command line's over the settings file's)."""
        given = self.model_dump(exclude_none=True)
        return base.model_copy(update=given) if given else base
