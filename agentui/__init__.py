"""agentui: a terminal coding assistant (the version lives here so `--version` imports nothing else)."""

__version__ = "0.1.0"
