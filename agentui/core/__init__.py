"""agentui's engine: agent loop, events, providers, tools. Imports no textual and no rich (a test enforces it).

Names are imported on first use, so `import agentui.core` stays cheap for start-up.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "Agent": "agentui.core.agent",
    "AgentConfig": "agentui.core.agent",
    "Run": "agentui.core.agent",
    "RunResult": "agentui.core.agent",
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

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # `X as X`: these names are this package's exports
    from agentui.core.agent import Agent as Agent
    from agentui.core.agent import AgentConfig as AgentConfig
    from agentui.core.agent import Run as Run
    from agentui.core.agent import RunResult as RunResult
    from agentui.core.events import (
        Event as Event,
    )
    from agentui.core.events import (
        EventBus as EventBus,
    )
    from agentui.core.events import (
        PermissionDecision as PermissionDecision,
    )
    from agentui.core.events import (
        parse_event as parse_event,
    )
    from agentui.core.messages import Message as Message
    from agentui.core.messages import Usage as Usage
    from agentui.core.tools.base import (
        Tool as Tool,
    )
    from agentui.core.tools.base import (
        ToolArgs as ToolArgs,
    )
    from agentui.core.tools.base import (
        ToolContext as ToolContext,
    )
    from agentui.core.tools.base import (
        ToolRegistry as ToolRegistry,
    )
    from agentui.core.tools.base import (
        ToolResult as ToolResult,
    )


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agentui.core' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
