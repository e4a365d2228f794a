"""A run's steps (a model call, a batch of tool calls, a hook), each run as a task of its own, so that a cancel
stops the step that is running at once and not the loop awaiting it, which then settles the history."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class Cancelled(Exception):
    """The run was cancelled (Esc, or its time ran out); raised out of the step that was running."""


class Steps:
    def __init__(self) -> None:
        self.cancelled = False
        self.time_up = False
        """The cancel came from the run's time limit: the run ends "max_duration", not "cancelled"."""
        self._task: asyncio.Task[Any] | None = None

    def begin(self) -> None:
        """A new run: nothing cancelled yet."""
        self.cancelled = self.time_up = False

    def cancel(self, *, time_up: bool = False) -> None:
        """Stop the running step now; the step after it is not started."""
        self.cancelled, self.time_up = True, self.time_up or time_up
        if self._task is not None:
            self._task.cancel()

    async def run(self, work: Coroutine[Any, Any, T]) -> T:
        """`work`'s result; raises Cancelled if the run was cancelled before or while it ran."""
        if self.cancelled:
            work.close()
            raise Cancelled
        task = asyncio.get_running_loop().create_task(work)
        self._task = task
        try:
            return await task
        except asyncio.CancelledError:
            if self.cancelled and task.cancelled():
                raise Cancelled from None
            task.cancel()  # the loop itself is being cancelled: take the step down with it
            raise
        finally:
            self._task = None
