"""The Textual app; the only package that imports textual. `run_app` starts it and returns the exit code."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentui.core.conversation import Launch
    from agentui.tui.app import Prepare


def run_app(
    launch: Launch | None = None,
    *,
    prepare: Prepare | None = None,
    problem: str | None = None,
    first_prompt: str | None = None,
    cwd: Path | None = None,
) -> int:
    """Run the app until the person quits; an internal failure ends in one sentence on stderr, never a traceback.

    Give `launch`, or `prepare` to resolve it once the first frame is on screen (the faster start)."""
    from agentui.tui.app import AgentApp

    app = AgentApp(launch, problem=problem, first_prompt=first_prompt, prepare=prepare, cwd=cwd)
    code = app.run()
    if app.crash_message:
        print(f"agentui: {app.crash_message}", file=sys.stderr)
    return code if isinstance(code, int) else 0
