"""What a person adds: MCP servers, OpenAPI tools, skills, custom commands, hooks, sub-agent types."""
