"""One line at the bottom: model and provider, permission mode, whether the model thinks, tokens in and out, cost,
context used, the session's title, while the provider is being retried a countdown, and while a response sends
nothing, how long it has been."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

from agentui.api import shown_cost
from agentui.frontends.tui.limit_countdown import limit_line

if TYPE_CHECKING:
    from agentui.api.events import ModelSpend


@dataclass(frozen=True)
class Status:
    model: str = ""
    alias: str = ""
    """The alias the model was chosen by ("opus"), shown before it; "" for a model chosen by its id."""
    provider: str = ""
    mode: str = "default"
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    context_percent: float | None = None
    title: str = ""
    busy: bool = False
    retry_until: float | None = None
    retry_reason: str = ""
    limit_until: datetime | None = None
    """While a rate or usage limit is waited out, when it resets (the line counts down to it)."""
    thinking: bool = False
    """Whether the model thinks before it answers (Alt+T)."""
    hint: str = ""
    """A transient line ("Press Ctrl+C again to quit")."""
    shares: str = ""
    """Each model's share of the tokens, when calls went to more than one ("sonnet 80% · qwen 20%")."""


def model_shares(by_model: Mapping[str, ModelSpend]) -> str:
    """ "claude-sonnet-4-5 82% · qwen2.5-coder 18%" of the tokens; empty while one model has had every call."""
    total = sum(spend.tokens for spend in by_model.values())
    if len(by_model) < 2 or not total:
        return ""
    ranked = sorted(by_model.items(), key=lambda item: -item[1].tokens)
    return " · ".join(f"{model} {spend.tokens / total:.0%}" for model, spend in ranked)


QUIET_AFTER = 3.0
"""Seconds without a word from the model before the status bar starts counting them."""


def _tokens(count: int) -> str:
    return f"{count / 1000:.1f}k" if count >= 1000 else str(count)


class StatusBar(Static):
    DEFAULT_CSS = """
    StatusBar { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    """

    def __init__(self) -> None:
        super().__init__("")
        self.status = Status()
        self._ticker: Timer | None = None
        self.waiting_since: float | None = None
        """When the model was last heard from while an answer is awaited; None while nothing is awaited. A plain
        attribute, set on every streamed event without a redraw: the ticker reads it."""
        self.on_set: Callable[[Status], None] | None = None
        """Told of each change (the status line runs again when the model or the mode changes)."""

    def on_mount(self) -> None:
        self._ticker = self.set_interval(0.5, self._tick, pause=True)

    def set(self, **changes: object) -> None:
        self.status = replace(self.status, **changes)  # type: ignore[arg-type]
        if self._ticker is not None:
            (
                self._ticker.resume
                if self.status.retry_until or self.status.busy or self.status.limit_until
                else self._ticker.pause
            )()
        self._render_status()
        if self.on_set is not None:
            self.on_set(self.status)

    def _tick(self) -> None:
        if self.status.retry_until and time.monotonic() >= self.status.retry_until:
            self.status = replace(self.status, retry_until=None)
        self._render_status()

    def _render_status(self) -> None:
        s = self.status
        text = Text()
        if s.hint:
            text.append(s.hint, style="bold")
            self.update(text)
            return
        room = self.content_size.width or 1_000_000
        # (what is least needed goes first when the line is wider than the terminal: the title stays in sight)
        for leave_out in ((), ("provider",), ("provider", "cost"), ("provider", "cost", "tokens")):
            text = self._line(s, leave_out)
            if text.cell_len <= room:
                break
        self.update(text)

    def _line(self, s: Status, leave_out: tuple[str, ...]) -> Text:
        mode_style = {"default": "", "acceptEdits": "green", "plan": "cyan", "bypassPermissions": "bold red"}
        text = Text()
        text.append(f"{s.alias} ({s.model})" if s.alias and s.alias != s.model else s.model, style="bold")
        text.append(" · " if "provider" in leave_out else f" · {s.provider} · ")
        text.append(s.mode, style=mode_style.get(s.mode, ""))
        if s.thinking:
            text.append(" · thinking", style="magenta")
        if "tokens" not in leave_out:
            text.append(f" · ↑{_tokens(s.tokens_in)} ↓{_tokens(s.tokens_out)}")
        if "cost" not in leave_out:
            text.append(f" · {shown_cost(s.cost_usd)}")
        if s.shares:
            text.append(f" ({s.shares})")
        if s.context_percent is not None:
            text.append(f" · context {s.context_percent:.0f}%")
        quiet = time.monotonic() - self.waiting_since if self.waiting_since is not None else 0.0
        if s.limit_until:
            text.append(f" · {limit_line(s.limit_until)}", style="yellow")
        elif s.retry_until:
            left = max(0.0, s.retry_until - time.monotonic())
            text.append(f" · retrying in {left:.0f}s ({s.retry_reason[:40]})", style="yellow")
        elif s.busy and quiet >= QUIET_AFTER:
            text.append(f" · no word from the model for {quiet:.0f}s (Esc to interrupt)", style="yellow")
        elif s.busy:
            text.append(" · working (Esc to interrupt)", style="italic")
        if s.title:
            text.append(f" · {s.title[:40]}")
        return text

    def on_resize(self) -> None:
        self._render_status()
