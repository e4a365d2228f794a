"""A run's budget: limits on the tokens, the time and the money a run may spend, one pool shared with the sub-agents
it starts (attocode's shared budget pool), checked before every model call; and advisories as it fills (cinch-rs):
at 60% and at 80% the model is told, once each, so it can wrap up before it is stopped."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from agentui.core.messages import Usage

Exhausted = Literal["max_budget", "max_total_tokens", "max_duration"]
ADVISE_AT = (0.6, 0.8)
LIMITS = {
    "max_turns": "the turn limit (--max-turns)",
    "max_budget": "the spending limit (--max-budget-usd)",
    "max_total_tokens": "the token limit (--max-total-tokens)",
    "max_duration": "the time limit (--max-duration)",
}
"""The limit each stop reason names, for the sentence that says why a run stopped."""


def limit_reached(stop: str) -> str | None:
    """ "The run stopped at the token limit (--max-total-tokens)." for a stop at a limit; None for any other stop."""
    return f"The run stopped at {LIMITS[stop]}." if stop in LIMITS else None


def calls_within(amount_usd: float, call_cost_usd: float) -> int:
    """How many calls of that average cost `amount_usd` pays for (a hair over, so $0.003 at $0.00075 is four)."""
    return max(0, int(amount_usd / call_cost_usd + 1e-9))


@dataclass
class Budget:
    max_cost_usd: float | None = None
    max_total_tokens: int | None = None
    """Input (cache reads and writes included) and output tokens of every model call of the run and its sub-agents."""
    max_seconds: float | None = None
    """Wall-clock time from the start of the run."""
    cost_usd: float = 0.0
    tokens: int = 0
    round_cost: float | None = None
    """The model's average cost of one call in this project (its agent profile), when known."""
    started: float = field(default_factory=time.monotonic)
    _advised: set[float] = field(default_factory=set)

    @property
    def limited(self) -> bool:
        return any(limit is not None for limit in (self.max_cost_usd, self.max_total_tokens, self.max_seconds))

    def spend(self, usage: Usage, cost_usd: float) -> None:
        """One model call's spending, the run's own or a sub-agent's."""
        self.tokens += usage.total_tokens
        self.cost_usd += cost_usd

    def shares(self) -> dict[str, float]:
        """How full each limit is (1.0: reached), by its name."""
        found: dict[str, float] = {}
        if self.max_cost_usd is not None:
            found["max_budget"] = self.cost_usd / self.max_cost_usd
        if self.max_total_tokens is not None:
            found["max_total_tokens"] = self.tokens / self.max_total_tokens
        if self.max_seconds is not None:
            found["max_duration"] = (time.monotonic() - self.started) / self.max_seconds
        return found

    def deadline(self, time_up: Callable[[], object]) -> asyncio.TimerHandle | None:
        """A time limit is a deadline, not only a check before each call: `time_up` is called when it passes, to
        stop whatever runs (a long command, a slow answer) as Esc stops it. None without a time limit."""
        if self.max_seconds is None:
            return None
        loop = asyncio.get_running_loop()
        return loop.call_at(loop.time() + self.max_seconds - (time.monotonic() - self.started), time_up)

    def rounds_left(self) -> int | None:
        """About how many model calls the spending limit leaves, at the average cost of one; None when unknown."""
        if self.max_cost_usd is None or not self.round_cost:
            return None
        return calls_within(self.max_cost_usd - self.cost_usd, self.round_cost)

    def exhausted(self) -> Exhausted | None:
        """The limit that is reached, if one is: the run stops before its next model call."""
        for name, share in self.shares().items():
            if share >= 1.0:
                return name  # type: ignore[return-value]
        return None

    def advisory(self) -> str | None:
        """What to tell the model when the budget passes 60% or 80% (once each); None otherwise."""
        shares = self.shares()
        if not shares:
            return None
        fullest, share = max(shares.items(), key=lambda item: item[1])
        crossed = [mark for mark in ADVISE_AT if share >= mark and mark not in self._advised]
        if not crossed:
            return None
        self._advised.update(crossed)
        spent = {
            "max_budget": f"${self.cost_usd:.4f} of ${self.max_cost_usd or 0:.4f}",
            "max_total_tokens": f"{self.tokens:,} of {self.max_total_tokens or 0:,} tokens",
            "max_duration": f"{time.monotonic() - self.started:.0f} of {self.max_seconds or 0:.0f} seconds",
        }[fullest]
        urgency = "Finish the current step and wrap up" if crossed[-1] >= 0.8 else "Plan to wrap up soon"
        left = self.rounds_left()
        if left is not None and fullest == "max_budget":
            spent += f", about {left} model call{'' if left == 1 else 's'} left at this project's average"
        return (
            f"<system-reminder>Budget: {share:.0%} used ({spent}); the run stops when it is reached. {urgency}: "
            "say what is done and what is left.</system-reminder>"
        )
