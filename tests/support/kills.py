"""SIGKILL at a random moment of a run, for the fault tests: the moment is what is random; nothing waits on it."""

from __future__ import annotations

import random
import subprocess
import time
from collections.abc import Callable


def kill_at_a_random_moment(
    process: subprocess.Popen[str], reached: Callable[[], bool], rng: random.Random, ceiling: float = 60.0
) -> None:
    """Once `reached()` holds (or the process has ended), wait a random 0 to 1.5 s and SIGKILL the process; it is
    gone when this returns, whatever happened."""
    try:
        deadline = time.monotonic() + ceiling
        while not reached() and process.poll() is None:
            assert time.monotonic() < deadline, "the run never got that far"
            time.sleep(0.02)
        time.sleep(rng.uniform(0.0, 1.5))
        process.kill()
        process.communicate(timeout=ceiling)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
