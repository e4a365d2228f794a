"""MCP: servers configured as Claude Code configures them, connected through the official SDK, their tools
registered as `mcp__<server>__<tool>`."""
