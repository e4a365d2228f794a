"""Waiting in tests for something to become true: polled, with a ceiling generous enough for a loaded machine. The
ceiling only ends a run that is broken; it is never a measure of speed (timings belong in bench/)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

CEILING = 60.0


async def eventually(condition: Callable[[], object], ceiling: float = CEILING, every: float = 0.02) -> None:
    """Return once `condition()` is true; raise TimeoutError if it is still false after `ceiling` seconds."""

    async def poll() -> None:
        while not condition():  # noqa: ASYNC110 (a condition on anything, not only on an event)
            await asyncio.sleep(every)

    await asyncio.wait_for(poll(), ceiling)
