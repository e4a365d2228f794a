"""How the app runs CPython's cyclic collector, so that none of its collections is a pause the person can feel.

A full collection walks every object the program holds, and a long session holds hundreds of thousands: 70-160 ms
at turn 600, on the UI thread, between two frames (issue 34). So the app runs its own: every few collections of the
youngest generation, a full collection, after which what lived through it is taken out of the collector's sight
(`gc.freeze`). Each walks only what was made since the last (a few thousand objects, a few milliseconds), and
CPython's own collections of the older generations, which would walk the same again, are left off.

That would leak whatever of the frozen objects later dies in a reference cycle, never to be looked at again. What
the app makes is freed without the collector: the Textual cycles it used to leave (retired widgets, cleared caches,
each layout's map) are broken where they are made (`textual_cycles.py`), so is httpx's (a response and its request,
`providers/_httpx.py`), and a test runs turns in the app and finds none of their objects in what is left for the
collector (tests/frontends/tui/test_collector.py). Left are a few objects of each HTTP connection that closes (~550
over 300 turns); `bench/` watches the app's memory over 1,000 turns. And for what a plugin or a library might leave,
once the app has made nothing to sweep for a minute (nobody typing, nothing streaming or running), everything is
thawed and collected once: a pause then is one nobody waits on."""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

YOUNG_COLLECTION_EVERY = 2_000
"""Allocations between collections of the youngest generation (CPython's default is 700)."""
SWEEP_EVERY = 5
"""Collections of the youngest generation between two sweeps."""
NEVER = 1 << 30
"""CPython's threshold for the middle generation while the policy runs: its sweeps collect it."""
IDLE_RECLAIM_AFTER = 60.0
"""Seconds without a sweep (the app made next to nothing) before everything frozen is collected once."""


class CollectorPolicy:
    """Installed once the app's start-up has loaded what lives as long as it does; removed when the app ends."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._threshold: tuple[int, int, int] | None = None
        self._due = False
        self._young = 0
        self._swept_at = 0.0
        self._idle_check: asyncio.TimerHandle | None = None
        self.idle_after = IDLE_RECLAIM_AFTER
        self.sweeps = 0
        """Full collections run (each followed by a freeze)."""
        self.reclaims = 0
        """Collections of everything, frozen or not, once the app was idle."""

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._loop is not None:
            return
        self._loop = loop
        gc.freeze()  # (the modules, classes and screen made so far)
        self._threshold = gc.get_threshold()
        gc.set_threshold(YOUNG_COLLECTION_EVERY, NEVER, self._threshold[2])
        gc.callbacks.append(self._collected)

    def stop(self) -> None:
        if self._loop is None:
            return
        self._loop = None
        if self._idle_check is not None:
            self._idle_check.cancel()
            self._idle_check = None
        if self._collected in gc.callbacks:
            gc.callbacks.remove(self._collected)
        if self._threshold is not None:
            gc.set_threshold(*self._threshold)

    def _collected(self, phase: str, info: dict[str, Any]) -> None:
        # (from whichever thread's allocation set the collection off; the sweep runs on the app's thread)
        if phase != "stop" or (loop := self._loop) is None:
            return
        if info["generation"] > 0:  # (one of the older generations was collected: a sweep, or someone's gc.collect)
            self._young = 0
            return
        self._young += 1
        if self._young < SWEEP_EVERY or self._due:
            return
        self._due = True
        try:
            loop.call_soon_threadsafe(self.sweep)
        except RuntimeError:  # (the loop has closed)
            self._due = False

    def sweep(self) -> None:
        """Collect every generation (what was made since the last sweep) and freeze what is left."""
        self._due = False
        if self._loop is None or not gc.isenabled():  # (held: a session is opening, and freezes when it has)
            return
        gc.collect(2)
        gc.freeze()
        self.sweeps += 1
        self._swept_at = time.monotonic()
        if self._idle_check is None:
            self._idle_check = self._loop.call_later(self.idle_after, self._reclaim_when_idle)

    def _reclaim_when_idle(self) -> None:
        self._idle_check = None
        if self._loop is None:
            return
        waited = time.monotonic() - self._swept_at
        if waited < self.idle_after:  # (swept since: look again once it could have been idle long enough)
            self._idle_check = self._loop.call_later(self.idle_after - waited, self._reclaim_when_idle)
            return
        if not gc.isenabled():
            return  # (the next sweep looks again)
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.reclaims += 1


@contextmanager
def collector_held() -> Iterator[None]:
    """The cyclic collector paused while a conversation opens. A resumed session is hundreds of thousands of objects
    that live as long as the conversation, and the first collection after the load scanned them all (~50 ms, just
    as the screen showed the session); `show_history` takes them out of its sight (gc.freeze) before it goes on."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
