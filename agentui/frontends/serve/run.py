"""The server's life: listen, print the address with its token, serve until Ctrl+C (or SIGTERM, SIGHUP), then end
every app it started and stop, each step within a ceiling."""

from __future__ import annotations

import asyncio
import errno
import os
import signal
import sys

from aiohttp import web

from agentui.frontends.serve.access import Access
from agentui.frontends.serve.options import ServeOptions
from agentui.frontends.serve.server import KILL_GRACE, AgentuiServer

SHUTDOWN_CEILING = 30.0
"""Seconds the whole ending may take (each app's own ceilings are shorter); a broken one is then left to exit."""


def run(options: ServeOptions, app_arguments: list[str]) -> int:
    argv = [sys.executable, "-m", "agentui", *app_arguments]
    try:
        return asyncio.run(_serve(options, argv))
    except KeyboardInterrupt:  # (a second Ctrl+C while ending)
        return 130


async def _serve(options: ServeOptions, argv: list[str]) -> int:
    access = Access(options.port, options.loopback)
    server = AgentuiServer(argv, access, options.host, options.port, options.max_apps)
    runner = web.AppRunner(await server._make_app(), handle_signals=False, shutdown_timeout=KILL_GRACE)
    await runner.setup()
    try:
        await web.TCPSite(runner, options.host, options.port).start()
    except OSError as exc:
        await runner.cleanup()
        # (a name that does not resolve has a negative errno, which os.strerror calls an "Unknown error")
        reason = os.strerror(exc.errno) if exc.errno and exc.errno > 0 else exc.strerror or str(exc)
        hint = "; --port 0 picks a free port" if exc.errno == errno.EADDRINUSE else ""  # (only a port in use)
        print(f"agentui: cannot listen on {options.host}:{options.port} ({reason}){hint}.", file=sys.stderr)
        return 1
    access.port = port = runner.addresses[0][1]
    host = f"[{options.host}]" if ":" in options.host else options.host
    if not options.loopback:
        print(
            f"agentui: warning: serving on {options.host}, which other machines can reach; the connection is not "
            "encrypted, and anyone with the address below can run commands here as you.",
            file=sys.stderr,
        )
    print(f"agentui serve: open http://{host}:{port}/?token={access.token}", flush=True)
    print("Press Ctrl+C to stop serving (and end every app it started).", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    try:
        await asyncio.wait_for(_end(server, runner), SHUTDOWN_CEILING)
    except TimeoutError:
        print("agentui: the server did not stop in time; ending anyway.", file=sys.stderr)
    return 0


async def _end(server: AgentuiServer, runner: web.AppRunner) -> None:
    await server.end_all()
    await runner.cleanup()
