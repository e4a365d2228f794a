"""What a conversation has cost: tokens and list-price dollars for the session and for the current run, and the time
spent waiting on the model. The loop records each answer's usage here, and a UsageUpdate event says it."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from agentui.core.events import Event, ModelSpend, UsageUpdate
from agentui.core.messages import Usage
from agentui.core.pricing import cost_usd


class Ledger:
    def __init__(self, session_id: str, emit: Callable[[Event], None], parent: Ledger | None = None) -> None:
        self.session_id = session_id
        self._emit = emit
        self.usage = Usage()
        """The whole session's tokens."""
        self.cost_usd = 0.0
        """At list prices of the models the server reported; 0 for models with no known price (local ones)."""
        self.run_usage = Usage()
        self.run_cost = 0.0
        self.api_seconds = 0.0
        """Time this run spent in model calls, retries included."""
        self.session_api_seconds = 0.0
        """The same for the whole session (what a status line is told)."""
        self.by_model: dict[str, ModelSpend] = {}
        """Each model's share of the session (calls routed to several models, a fallback)."""
        self.parent = parent
        """A sub-agent's: its parent's, which counts its calls too (Claude Code's cost counts every agent's)."""
        self._context: tuple[int, int | None] = (0, None)
        self.on_spend: Callable[[Usage, float], None] | None = None
        """Told of each call's usage and cost (the run's budget, shared with its sub-agents)."""

    def start_run(self) -> None:
        self.run_usage, self.run_cost, self.api_seconds = Usage(), 0.0, 0.0

    def record(self, usage: Usage, model: str, *, context_tokens: int, window: int | None) -> None:
        """Count one model call's usage, priced as `model`, and say so with the context it left."""
        cost = cost_usd(model, usage)
        if self.on_spend is not None:
            self.on_spend(usage, cost)
        self._context = (context_tokens, window)
        self._count(usage, model, cost)

    def _count(self, usage: Usage, model: str, cost: float) -> None:
        if self.parent is not None:
            self.parent._count(usage, model, cost)
        context_tokens, window = self._context
        self.usage, self.cost_usd = self.usage + usage, self.cost_usd + cost
        self.run_usage, self.run_cost = self.run_usage + usage, self.run_cost + cost
        share = self.by_model.get(model) or ModelSpend()
        self.by_model[model] = ModelSpend(tokens=share.tokens + usage.total_tokens, cost_usd=share.cost_usd + cost)
        self._emit(
            UsageUpdate(
                session_id=self.session_id,
                usage=usage,
                total=self.usage,
                cost_usd=round(self.cost_usd, 6),
                context_tokens=context_tokens,
                context_percent=round(100 * context_tokens / window, 1) if window else None,
                model=model,
                call_cost_usd=cost,
                by_model=dict(self.by_model),
            )
        )

    @contextmanager
    def waiting(self) -> Iterator[None]:
        """Time spent inside the block counts as waiting on the model (however the block ends)."""
        began = time.monotonic()
        try:
            yield
        finally:
            spent = time.monotonic() - began
            self.api_seconds += spent
            self.session_api_seconds += spent
