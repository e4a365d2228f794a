"""The Textual app; the only package that imports textual. `run_app` starts it and returns the exit code."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

# Textual draws what changed at most MAX_FPS times a second, so a key waits up to one period to be seen: at its
# default of 60 that is up to 17 ms; at 120, 8 ms. (Answers are drawn in 50 ms batches whatever this is.)
os.environ.setdefault("TEXTUAL_FPS", "120")

if TYPE_CHECKING:
    from collections.abc import Callable

    from agentui.api import Launch, SessionRequest
    from agentui.frontends.tui.app import Prepare


def run_app(
    launch: Launch | None = None,
    *,
    prepare: Prepare | None = None,
    resuming: Callable[[], SessionRequest] | None = None,
    problem: str | None = None,
    first_prompt: str | None = None,
    cwd: Path | None = None,
) -> int:
    """Run the app until the person quits; an internal failure ends in one sentence on stderr, never a traceback.

    Give `launch`, or `prepare` to resolve it once the first frame is on screen (the faster start)."""
    import gc

    from agentui.frontends.tui.app import AgentApp

    # What the imports made (Textual's and agentui's modules and classes) lives as long as the program: out of the
    # cyclic collector's sight, the full collection they set off while the first screen was drawn does not scan it.
    gc.freeze()
    app = AgentApp(launch, problem=problem, first_prompt=first_prompt, prepare=prepare, resuming=resuming, cwd=cwd)
    app.handles_signals = True
    app.run()
    if app.ended_by is not None:
        return 128 + app.ended_by  # (as a shell reports a command a signal ended)
    if not app.return_code:
        return 0
    report = app.crash_report.strip()
    log = logging.getLogger("agentui")
    log.error("agentui stopped after an internal error:\n%s", report)
    what = report.splitlines()[-1].strip()[:200] if report else f"exit code {app.return_code}"
    # The details go only to the log (--debug): Textual's report shows local variables, which can hold secrets.
    where = "see the log" if _logs_to_a_file(log) else "run with --debug"
    print(f"agentui: agentui stopped after an internal error ({what}); {where} for the details.", file=sys.stderr)
    return app.return_code


def _logs_to_a_file(log: logging.Logger) -> bool:
    return any(isinstance(handler, logging.FileHandler) for handler in log.handlers)
