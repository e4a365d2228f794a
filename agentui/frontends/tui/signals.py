"""SIGTERM, or SIGHUP from a closed terminal, ends the app as a quit does: the conversation closed, its shells
stopped, the terminal restored, and the shell's code for a signal (run_app returns 128 + its number)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from agentui.api import end_cleanly_on_signals

if TYPE_CHECKING:
    from agentui.frontends.tui.host import AppHost


def end_on_signals(app: AppHost) -> None:
    """From the app's own loop (its on_mount): the signal is handed to that loop, and ends the app there."""
    loop = asyncio.get_running_loop()

    def signalled(signum: int) -> None:
        async def end() -> None:
            app.ended_by = signum
            await app.quit_now()

        app.run_worker(end(), group="quit", exclusive=True, exit_on_error=False)

    end_cleanly_on_signals(lambda signum: loop.call_soon_threadsafe(signalled, signum))
