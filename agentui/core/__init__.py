"""agentui's engine: agent loop, events, providers, tools. Imports no textual and no rich (a test enforces it).

Names are imported on first use, so `import agentui.core` stays cheap for start-up.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "Agent": "agentui.core.loop.agent",
    "AgentConfig": "agentui.core.loop.agent_config",
    "Run": "agentui.core.loop.run",
    "RunResult": "agentui.core.loop.run",
    "Event": "agentui.core.events",
    "EventBus": "agentui.core.events",
    "PermissionDecision": "agentui.core.events",
    "parse_event": "agentui.core.events",
    "Message": "agentui.core.messages",
    "Usage": "agentui.core.messages",
    "Tool": "agentui.core.tools.base",
    "ToolArgs": "agentui.core.tools.base",
    "ToolContext": "agentui.core.tools.base",
    "ToolRegistry": "agentui.core.tools.base",
    "ToolResult": "agentui.core.tools.base",
}

__all__ = [  # the names of _EXPORTS, written out so that linters and type checkers see them
    "Agent",
    "AgentConfig",
    "Event",
    "EventBus",
    "Message",
    "PermissionDecision",
    "Run",
    "RunResult",
    "Tool",
    "ToolArgs",
    "ToolContext",
    "ToolRegistry",
    "ToolResult",
    "Usage",
    "parse_event",
]

if TYPE_CHECKING:
    from agentui.core.events import Event, EventBus, PermissionDecision, parse_event
    from agentui.core.loop.agent import Agent
    from agentui.core.loop.agent_config import AgentConfig
    from agentui.core.loop.run import Run, RunResult
    from agentui.core.messages import Message, Usage
    from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolRegistry, ToolResult


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agentui.core' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
