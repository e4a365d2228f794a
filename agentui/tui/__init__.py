"""The Textual app; the only package that imports textual. `run_app` starts it and returns the exit code."""

from __future__ import annotations

import sys

from agentui.core.conversation import Launch


def run_app(launch: Launch | None, *, problem: str | None = None, first_prompt: str | None = None) -> int:
    """Run the app until the person quits; an internal failure ends in one sentence on stderr, never a traceback."""
    from agentui.tui.app import AgentApp

    app = AgentApp(launch, problem=problem, first_prompt=first_prompt)
    code = app.run()
    if app.crash_message:
        print(f"agentui: {app.crash_message}", file=sys.stderr)
    return code if isinstance(code, int) else 0
