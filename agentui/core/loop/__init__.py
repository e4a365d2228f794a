"""The loop: the agent (prompt, model call, tools, again), a run's handle, the one tool seam, routing, budgets
and the ledger."""
