"""textual-serve's server with agentui's access rules, page and processes: each browser connection runs the app as a
journalled process group of its own, and every one of them is ended, within a ceiling, when the server stops."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server

from agentui.frontends.serve.access import Access

log = logging.getLogger(__name__)

QUIT_GRACE = 5.0
"""Seconds an app has to quit when asked (it restores nothing: its screen is the browser's) before its group is
signalled."""
KILL_GRACE = 3.0
"""Seconds between SIGTERM and SIGKILL for an app's group that did not quit."""
PR_SET_PDEATHSIG = 1


class AppProcess(AppService):
    """One app, started by argv (no shell between) in a process group agentui journals and ends."""

    def __init__(self, argv: list[str], **options: Any) -> None:
        super().__init__(" ".join(argv), **options)
        self.argv = argv

    async def _open_app_process(self, width: int = 80, height: int = 24) -> asyncio.subprocess.Process:
        from agentui.api import start_group

        environment = self._build_environment(width=width, height=height)
        pipe = asyncio.subprocess.PIPE
        self._process = process = await start_group(
            *self.argv, env=environment, stdin=pipe, stdout=pipe, stderr=pipe, preexec_fn=_ends_with_the_server()
        )
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    async def run(self) -> None:
        await super().run()
        with contextlib.suppress(Exception):  # (the app has ended: the page says so)
            await self.remote_close()

    async def stop(self) -> None:
        """Ask the app to quit; after QUIT_GRACE end its group (SIGTERM, then SIGKILL)."""
        from agentui.api import stop_group

        task, process = self._task, self._process
        if task is None:
            return
        self._task = None
        await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
        await self.send_meta({"type": "quit"})
        try:
            await asyncio.wait_for(asyncio.shield(task), QUIT_GRACE)
        except TimeoutError:
            log.info("the served app did not quit in %s s; ending its group", QUIT_GRACE)
        if process is not None:
            await stop_group(process, KILL_GRACE)  # (also what the app left in its group)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


class AgentuiServer(Server):
    def __init__(self, argv: list[str], access: Access, host: str, port: int, max_apps: int = 4) -> None:
        here = Path(__file__).parent
        super().__init__(" ".join(argv), host=host, port=port, title="agentui", templates_path=here)
        self.argv = argv
        self.max_apps = max_apps
        self.access = access
        self.apps: set[AppProcess] = set()
        self.sockets: set[web.WebSocketResponse] = set()

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.middlewares.append(self.access.middleware)
        return app

    async def on_startup(self, app: web.Application) -> None:
        """(textual-serve prints its logo and address here; agentui prints the address with its token itself)"""

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        # The page's websocket and static addresses are this server as the browser named it (127.0.0.1 or
        # localhost): its Origin and cookie then match. (No await before the template reads it.)
        self.public_url = f"{request.scheme}://{request.host}"
        response: web.StreamResponse = await super().handle_index(request)
        return response

    async def handle_websocket(self, request: web.Request) -> web.StreamResponse:  # type: ignore[override]
        """textual-serve's, with the app started as AppProcess and both kept for the server's end; past max_apps at
        once, 503 (the page says the connection failed) and no app."""
        if len(self.apps) >= self.max_apps:
            text = f"503: already serving {self.max_apps} apps (close a tab, or start with a larger --max-apps)"
            return web.Response(status=503, text=text)
        websocket = web.WebSocketResponse(heartbeat=15)
        width = _int(request.query.get("width"), 80)
        height = _int(request.query.get("height"), 24)
        app = AppProcess(
            self.argv,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=websocket.close,
            download_manager=self.download_manager,
        )
        self.sockets.add(websocket)
        self.apps.add(app)
        try:
            await websocket.prepare(request)
            await app.start(width, height)
            await self._process_messages(websocket, app)
        except Exception as exc:  # (a browser gone mid-message, a message not in the protocol: that connection)
            log.info("a browser connection ended: %s", exc)
        finally:
            await app.stop()
            self.apps.discard(app)
            self.sockets.discard(websocket)
            with contextlib.suppress(Exception):
                await websocket.close()
        return websocket

    async def end_all(self) -> None:
        """Every app ended and every browser connection closed, each within its ceilings."""
        await asyncio.gather(*(app.stop() for app in list(self.apps)), return_exceptions=True)
        for websocket in list(self.sockets):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(websocket.close(), KILL_GRACE)


def _ends_with_the_server() -> Callable[[], None] | None:
    """What the app runs before its program starts: SIGTERM to it when the server dies, however it dies (a SIGKILLed
    server leaves no app behind; its stdin closing would not end it). Linux's prctl, made before the fork; it fires
    when the thread that started the app ends, here the event loop's, which lives as long as the server."""
    if not sys.platform.startswith("linux"):
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    server = os.getpid()

    def ask() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != server:  # (the server died before the request: end now)
            os.kill(os.getpid(), signal.SIGTERM)

    return ask


def _int(text: str | None, default: int) -> int:
    try:
        return max(1, min(int(text or default), 1000))
    except ValueError:
        return default
