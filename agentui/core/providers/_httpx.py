"""httpx without its command-line client. When click is installed, `import httpx` also imports its CLI, and with
it rich and pygments: about 70 ms of start-up for a command agentui never runs, and UI code in the engine."""

from __future__ import annotations

import sys
import types

if "httpx" not in sys.modules and "httpx._main" not in sys.modules:

    def _no_cli() -> None:
        raise SystemExit("httpx's command line client is not available inside agentui.")

    _stub = types.ModuleType("httpx._main")
    _stub.main = _no_cli  # type: ignore[attr-defined]
    sys.modules["httpx._main"] = _stub

import httpx  # only now: after the stub is in place

__all__ = ["httpx"]
