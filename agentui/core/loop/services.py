"""What an agent works with, given whole when it is made: its provider, tools, permission gate, event bus, retry
policy, router, hooks and memory. Frozen: nothing is swapped in afterwards (hooks an SDK program adds later join the
one Hooks object's specs)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentui.core.events import EventBus
from agentui.core.messages import Message
from agentui.core.providers.retry import RetryPolicy
from agentui.core.safety.permissions import KindGate, PermissionGate
from agentui.core.tools.base import ToolRegistry

if TYPE_CHECKING:
    from agentui.core.context.memory import MemoryLoader
    from agentui.core.extend.command_prompt import CommandPrompt
    from agentui.core.extend.hooks import Hooks
    from agentui.core.loop.routing import Router
    from agentui.core.providers.base import Provider


def _always() -> bool:
    return True


def _no_notices() -> str | None:
    return None


def _no_command() -> CommandPrompt | None:
    return None


def _unknown_cost(model: str) -> float | None:
    return None


def _nothing(history: Sequence[Message]) -> list[dict[str, Any]]:
    return []


@dataclass(frozen=True)
class Services:
    provider: Provider
    tools: ToolRegistry = field(default_factory=ToolRegistry)
    gate: PermissionGate = field(default_factory=KindGate)
    bus: EventBus = field(default_factory=EventBus)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    router: Router | None = None
    """Where each kind of model call besides the loop's goes (the config's routes); None: all to `provider`."""
    hooks: Hooks | None = None
    memory: MemoryLoader | None = None
    """Nested CLAUDE.md files, loaded as the tools reach their directories."""
    reminders: Callable[[], list[str]] = list
    """Notes for the model added to each prompt (plan mode's), as Claude Code's system reminders."""
    listings: Callable[[Sequence[Message]], list[dict[str, Any]]] = _nothing
    """Claude Code's listing attachments a prompt brings, given the history (the agent types and skills new to it)."""
    notices: Callable[[], str | None] = _no_notices
    """The background commands' ends not told to the model yet, taken as one reminder (None: none): with the next
    tool result, else the next prompt, as in Claude Code."""
    command: Callable[[], CommandPrompt | None] = _no_command
    """The custom command the next prompt was expanded from, taken once (its shell commands run with that prompt)."""
    quiet: Callable[[], bool] = _always
    """False while something may write files on its own (a background command): cached search results do not hold."""
    round_cost: Callable[[str], float | None] = _unknown_cost
    """The average cost of one model call of a model in this project (its agent profile's), for budget estimates."""
