"""httpx as agentui uses it: without its command-line client, and with a closed response that lets go of its stream.

- When click is installed, `import httpx` also imports its CLI, and with it rich and pygments: about 70 ms of
  start-up for a command agentui never runs, and UI code in the engine.
- A response and its stream (httpx's `BoundAsyncStream`) hold each other, and through the stream the request and its
  body: a cycle only the cyclic collector frees. The app freezes what is alive at its collections (the app's
  collector.py), so each request that streamed then stayed with its body, the whole conversation's bytes. A closed
  response is given an empty stream (nothing reads a closed one), and what it held is freed at once. Checked against
  httpx 0.28 (tests/core/test_httpx_cycles.py fails, saying so, when httpx stops making the cycle)."""

from __future__ import annotations

import sys
import types
from typing import Any

if "httpx" not in sys.modules and "httpx._main" not in sys.modules:

    def _no_cli() -> None:
        raise SystemExit("httpx's command line client is not available inside agentui.")

    _stub = types.ModuleType("httpx._main")
    _stub.main = _no_cli  # type: ignore[attr-defined]
    sys.modules["httpx._main"] = _stub

import httpx  # only now: after the stub is in place

__all__ = ["httpx"]

originals: dict[str, Any] = {"aclose": httpx.Response.aclose, "close": httpx.Response.close}
"""httpx's own methods, before the fix below."""


async def _aclose_letting_go(self: httpx.Response) -> None:
    try:
        await originals["aclose"](self)
    finally:
        _let_go(self)


def _close_letting_go(self: httpx.Response) -> None:
    try:
        originals["close"](self)
    finally:
        _let_go(self)


def _let_go(response: httpx.Response) -> None:
    if response.is_closed:
        response.stream = httpx.ByteStream(b"")


if httpx.Response.aclose is originals["aclose"]:
    httpx.Response.aclose = _aclose_letting_go  # type: ignore[method-assign]
    httpx.Response.close = _close_letting_go  # type: ignore[method-assign]
