"""A plain line-by-line conversation in the terminal: the interactive front end until the Textual app replaces it.

It reads prompts, streams answers, and asks y/n for permission requests. Ctrl+C stops the running answer (or
quits when idle); Ctrl+D quits.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
from dataclasses import replace
from pathlib import Path

from agentui import __version__
from agentui.core.conversation import Conversation, Launch
from agentui.core.events import PermissionDecision, PermissionRequest
from agentui.core.project import PermissionOptions, Project, open_project
from agentui.core.session.listing import list_sessions
from agentui.core.session.paths import project_dir
from agentui.core.session.store import SessionRequest
from agentui.core.settings import Settings
from agentui.core.trust import trust
from agentui.headless import Printer


async def _read_line(prompt: str) -> str | None:
    """input() on a daemon thread, so a quit never waits for a line that will not come; None at end of input."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[str | None] = loop.create_future()

    def read() -> None:
        try:
            line: str | None = input(prompt)
        except (EOFError, OSError):
            line = None
        loop.call_soon_threadsafe(lambda: future.done() or future.set_result(line))

    threading.Thread(target=read, daemon=True).start()
    return await future


async def _open(cwd: Path, permissions: PermissionOptions) -> Project:
    """Open the project, asking once whether to trust it when its own settings would grant something."""
    project = open_project(cwd, permissions)
    if project.trusted or not project.notices:
        return project
    print(f"This folder ({project.root}) has its own .claude settings that grant permissions or run hooks.")
    answer = await _read_line("Do you trust this folder and want those settings applied? [y/N] ")
    if (answer or "").strip().lower() in ("y", "yes"):
        trust(project.root)
        return open_project(cwd, permissions)
    for notice in project.notices:
        print(f"agentui: {notice}", file=sys.stderr)
    return project


async def _pick_session(cwd: Path, request: SessionRequest) -> SessionRequest:
    """`--resume` with no id: a numbered list of this project's sessions to choose from."""
    if request.resume != "":
        return request
    sessions = list_sessions(project_dir(cwd))
    if not sessions:
        print("No sessions yet for this project; starting a new one.")
        return replace(request, resume=None)
    for number, info in enumerate(sessions[:20], 1):
        print(f"{number:>3}. {info.title}  ({info.messages} messages, {info.session_id[:8]})")
    answer = await _read_line("Resume which session? [1] ")
    choice = (answer or "1").strip() or "1"
    index = int(choice) - 1 if choice.isdigit() and 0 < int(choice) <= min(20, len(sessions)) else 0
    return replace(request, resume=str(sessions[index].path))


async def _conversation(settings: Settings, system_prompt: str, cwd: Path, first_prompt: str | None,
                        permissions: PermissionOptions, session: SessionRequest) -> int:
    project = await _open(cwd, permissions)
    launch = Launch(settings=settings, cwd=project.root, system_prompt=system_prompt, permissions=permissions,
                    session=await _pick_session(project.root, session))
    conversation = Conversation.open(launch, project=project,
                                     on_error=lambda message: print(f"agentui: {message}", file=sys.stderr))
    resumed = conversation.session.resumed_from
    if resumed is not None:
        print(f"Resumed {resumed.title or conversation.session_id} ({len(conversation.session.messages)} messages).")
    agent = conversation.agent
    printer = Printer("text", sys.stdout, sys.stderr, verbose=True)
    agent.bus.on(printer)
    main = asyncio.current_task()
    loop = asyncio.get_running_loop()

    def on_interrupt() -> None:
        if agent.running:
            agent.cancel()
        elif main is not None:
            main.cancel()

    loop.add_signal_handler(signal.SIGINT, on_interrupt)
    print(f"agentui {__version__} · {settings.provider} · {settings.model} — Ctrl+C interrupts, Ctrl+D quits")
    prompt = first_prompt
    try:
        while True:
            if prompt is None:
                prompt = await _read_line("\n> ")
                if prompt is None:
                    return 0
            if prompt.strip():
                run = agent.start(prompt)
                async for event in run:
                    if isinstance(event, PermissionRequest):
                        rules = ", ".join(event.suggestions) or event.tool_name
                        answer = await _read_line(
                            f"\nAllow {event.tool_name}? {event.reason}.\n"
                            f"  y = yes once, s = yes for this session ({rules}), a = always, n = no: ")
                        choice = (answer or "").strip().lower()[:1]
                        behavior = "allow" if choice in ("y", "s", "a") else "deny"
                        scope = {"s": "session", "a": "always"}.get(choice, "once")
                        run.respond_permission(event.request_id, PermissionDecision(behavior=behavior, scope=scope))
                result = await run.result()
                printer.finish(result, {})
                if result.error:
                    printer.note(result.error)
                elif result.stop == "cancelled":
                    printer.note("interrupted.")
            prompt = None
    except asyncio.CancelledError:
        return 130
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        await conversation.aclose()


def run_repl(settings: Settings, *, system_prompt: str, cwd: Path, first_prompt: str | None = None,
             permissions: PermissionOptions = PermissionOptions(), session: SessionRequest = SessionRequest()) -> int:
    return asyncio.run(_conversation(settings, system_prompt, cwd, first_prompt, permissions, session))
