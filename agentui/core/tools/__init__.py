"""Tools the model can call. `base` defines what a tool is; each built-in tool has a module of its own."""

from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolKind, ToolRegistry, ToolResult

__all__ = ["Tool", "ToolArgs", "ToolContext", "ToolKind", "ToolRegistry", "ToolResult"]
