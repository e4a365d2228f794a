"""Blocking calls of credential helpers (botocore's credential chain, google-auth's loading and refreshing) run off
the event loop with a ceiling: a helper that never returns (a credential_process that hangs, a metadata server or
token endpoint that never answers) becomes one sentence instead of an agentui that hangs for ever."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import TypeVar

from agentui.core.providers.base import ProviderError

CREDENTIALS_TIMEOUT = 60.0
"""Seconds a credential helper is given: generous, as an SSO or assume-role round trip can take a while."""

T = TypeVar("T")


class CredentialsTimeoutError(ProviderError):
    """A credential helper gave no answer within its time."""

    kind = "credentials_timeout"


async def off_loop(call: Callable[[], T], *, seconds: float, said: str) -> T:
    """`call()` on a thread of its own, its result or exception here; CredentialsTimeoutError(`said`) after
    `seconds`. The thread is a daemon left to finish (a thread cannot be stopped), so neither the event loop's
    executor nor the interpreter's exit waits on a stuck helper."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(result: T | None, error: BaseException | None) -> None:
        if future.done():  # (given up on already)
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)  # type: ignore[arg-type]  # (no error: call() returned a T)

    def run() -> None:
        try:
            result, error = call(), None
        except BaseException as exc:  # (carried to the awaiting task, raised there)
            result, error = None, exc
        with contextlib.suppress(RuntimeError):  # (the loop closed while the helper ran: nobody waits any more)
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=run, name="agentui-credentials", daemon=True).start()
    try:
        return await asyncio.wait_for(future, seconds)
    except TimeoutError:
        raise CredentialsTimeoutError(said) from None
