"""A command's process group: started in a session of its own and journalled, so that whatever is left of it is
ended if agentui dies; ended with SIGTERM, a grace period, then SIGKILL for whatever is left."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Mapping
from typing import Any

from agentui.core.process_dir import current


async def start_group(*argv: str, env: Mapping[str, str], **options: Any) -> asyncio.subprocess.Process:
    """`argv` started in a session (and process group) of its own, marked before it exists and journalled once it
    does (ProcessDir.about_to_start, own_group): the next start ends what is left of it if this process dies.
    `options` are create_subprocess_exec's."""
    directory = current()
    mark, marked = directory.about_to_start(env)
    process = await asyncio.create_subprocess_exec(*argv, env=marked, start_new_session=True, **options)
    directory.own_group(process.pid, mark)
    return process


def signal_group(pgid: int, sig: int) -> bool:
    """Send `sig` to the group; False if it is gone (or no longer ours to signal)."""
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


async def stop_group(process: asyncio.subprocess.Process, grace: float) -> None:
    """SIGTERM the command's group, give it `grace` seconds, then SIGKILL whatever is left (also if cancelled)."""
    signal_group(process.pid, signal.SIGTERM)
    try:
        await asyncio.wait_for(asyncio.shield(process.wait()), grace)
    except TimeoutError:
        pass
    finally:
        signal_group(process.pid, signal.SIGKILL)


async def end_leftovers(pgid: int, grace: float = 0.2) -> None:
    """After the command ended: stop what it started in the background (same group), politely, then not."""
    if not signal_group(pgid, signal.SIGTERM):
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if not signal_group(pgid, 0):
            return
        await asyncio.sleep(0.02)
    signal_group(pgid, signal.SIGKILL)
