"""What keeps the person safe: permission rules and the allowlist, the sandbox and the guard, trust, and the
confinement of every program agentui itself starts."""
