"""JSON-RPC 2.0 over a language server's stdio, framed with Content-Length headers, on asyncio streams."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from typing import Any

from agentui.core.errors import AgentuiError

log = logging.getLogger(__name__)

MAX_MESSAGE = 64 << 20
"""A message longer than this is a broken server, not a large answer."""


class RpcError(AgentuiError):
    """A request failed: the server answered with an error, did not answer in time, or is gone."""


class Connection:
    """Requests with ids answered by futures, notifications to `on_notification`; the server's own requests
    (configuration, progress, registrations) answered with empty results, as a client that offers nothing would."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        on_notification: Callable[[str, Any], None],
    ) -> None:
        self._reader, self._writer = reader, writer
        self._on_notification = on_notification
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._next = 0
        self.closed = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._read_all())

    async def request(self, method: str, params: Any, ceiling: float) -> Any:
        """The result of `method`; RpcError if the server errs, is gone, or takes longer than `ceiling` seconds."""
        if self.closed.is_set():
            raise RpcError("the server has stopped")
        self._next += 1
        ident = self._next
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[ident] = future
        try:
            await self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
            return await asyncio.wait_for(future, ceiling)
        except TimeoutError:
            raise RpcError(f"no answer to {method} within {ceiling:g} s") from None
        finally:
            self._pending.pop(ident, None)

    async def notify(self, method: str, params: Any) -> None:
        if not self.closed.is_set():
            await self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message, ensure_ascii=False).encode()
        try:
            self._writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            await asyncio.wait_for(self._writer.drain(), 10)
        except (OSError, TimeoutError, RuntimeError) as exc:
            self._close()
            raise RpcError(f"the server could not be written to ({exc})") from None

    async def _read_all(self) -> None:
        try:
            while (message := await self._read_one()) is not None:
                await self._dispatch(message)
        except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as exc:
            log.debug("language server stream ended: %s", exc)
        finally:
            self._close()

    async def _read_one(self) -> dict[str, Any] | None:
        length = None
        while True:
            line = await self._reader.readline()
            if not line:
                return None
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode("ascii", "replace").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        if length is None or not 0 <= length <= MAX_MESSAGE:
            raise ValueError(f"bad Content-Length {length}")
        message = json.loads(await self._reader.readexactly(length))
        return message if isinstance(message, dict) else {}

    async def _dispatch(self, message: dict[str, Any]) -> None:
        method, ident = message.get("method"), message.get("id")
        if method is None:  # (an answer)
            future = self._pending.get(ident) if isinstance(ident, int) else None
            if future is not None and not future.done():
                if "error" in message:
                    error = message["error"] if isinstance(message["error"], dict) else {}
                    future.set_exception(RpcError(str(error.get("message") or "the server answered an error")))
                else:
                    future.set_result(message.get("result"))
        elif ident is not None:  # (the server asks: nothing is offered)
            params = message.get("params") or {}
            items = params.get("items") if isinstance(params, dict) else None
            result = [None] * len(items) if method == "workspace/configuration" and isinstance(items, list) else None
            with contextlib.suppress(RpcError):
                await self._send({"jsonrpc": "2.0", "id": ident, "result": result})
        else:
            self._on_notification(str(method), message.get("params"))

    def _close(self) -> None:
        if self.closed.is_set():
            return
        self.closed.set()
        for future in self._pending.values():
            if not future.done():
                future.set_exception(RpcError("the server has stopped"))
        with contextlib.suppress(Exception):
            self._writer.close()

    async def aclose(self) -> None:
        self._close()
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._task
