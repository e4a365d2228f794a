"""`agentui --input-format commands`: a conversation driven by commands on stdin, one JSON line each (the union of
`agentui.api.control`), its events written to stdout as they happen, one JSON line each (the union of
`agentui.api.events`). Each command's end is a line of its own: `command_done` with what it returned, or
`command_failed` with one sentence. A program (an editor, a test, another agent) drives agentui with nothing else.

Commands run as they arrive, so an `answer` or an `interrupt` reaches a run that a `send` started. When stdin
closes, what runs is finished, then the conversation closes."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import IO, Any

from agentui.api import AgentuiError, Branched, Conversation, PermissionOptions, Settings, rotate_if_idle
from agentui.api.control import Command, CommandError, Continue, FollowUp, Send, outcome_json, parse_command
from agentui.api.events import ElicitationRequest, Event, PermissionDecision, PermissionRequest, PermissionResolved

GONE = "The program driving agentui closed its input, so no one can answer this question."


class CommandsOnStdio:
    def __init__(self, conversation: Conversation, out: IO[str]) -> None:
        self.conversation = conversation
        self.out = out
        self._running: set[asyncio.Task[None]] = set()
        self.closed = False
        """stdout is gone: nothing more is written."""
        self.failed = False
        self._input_open = True
        self._waiting: set[str] = set()
        """Permission (and MCP elicitation) requests not answered yet: when the input closes, each is answered no."""
        self.left: list[Conversation] = []
        """Conversations branched away from (a `continue` of kind "branch"): closed at the end with the last one."""

    def write(self, line: str) -> None:
        if self.closed:
            return
        try:
            self.out.write(line + "\n")
            self.out.flush()
        except (BrokenPipeError, ValueError):  # (the reader went away: the work goes on, unseen)
            self.closed = True

    def event(self, event: Event) -> None:
        self.write(event.to_json())
        match event:
            case PermissionRequest(request_id=request_id) | ElicitationRequest(request_id=request_id) if (
                self._input_open
            ):
                self._waiting.add(request_id)
            case PermissionRequest(request_id=request_id) | ElicitationRequest(request_id=request_id):
                self._deny(request_id)
            case PermissionResolved(request_id=request_id):
                self._waiting.discard(request_id)
            case _:
                pass

    def _deny(self, request_id: str) -> None:
        self.conversation.answer(request_id, PermissionDecision(behavior="deny", message=GONE))

    def _ended(self, command: Command | None, outcome: dict[str, Any]) -> None:
        head = {"id": command.id, "command": command.type} if command is not None else {"id": None}
        self.write(json.dumps({**outcome, **head}, ensure_ascii=False, separators=(",", ":")))

    async def serve(self, lines: AsyncIterator[str]) -> int:
        self.conversation.on(self.event)
        number = 0
        async for line in lines:
            number += 1
            if not line.strip():
                continue
            try:
                command = parse_command(line)
            except CommandError as exc:
                self.failed = True
                self._ended(None, {"type": "command_failed", "error": f"line {number}: {exc}"})
                continue
            task = asyncio.get_running_loop().create_task(self._run(command))
            self._running.add(task)
            task.add_done_callback(self._running.discard)
            await asyncio.sleep(0)  # (it starts before the next line is read: commands begin in their order)
        self._input_open = False
        for request_id in list(self._waiting):
            self._deny(request_id)
        if self._running:
            await asyncio.gather(*self._running, return_exceptions=True)
        return 1 if self.failed else 0

    def _adopt(self, conversation: Conversation) -> None:
        """Go on in `conversation` (a branch's, or an idle rotation's new session): commands go to it from now on."""
        self.left.append(self.conversation)
        self.conversation = conversation
        self.conversation.on(self.event)

    async def _run(self, command: Command) -> None:
        try:
            prompt = isinstance(command, Send | FollowUp) or (
                isinstance(command, Continue) and command.kind == "default"
            )
            if prompt and (fresh := await rotate_if_idle(self.conversation)) is not None:
                self._adopt(fresh)
            outcome = await self.conversation.handle(command)
        except AgentuiError as exc:
            self.failed = True
            self._ended(command, {"type": "command_failed", "error": str(exc)})
            return
        except Exception as exc:  # (a bug: said in one sentence, and the conversation goes on)
            logging.getLogger(__name__).exception("%s failed", command.type)
            self.failed = True
            self._ended(command, {"type": "command_failed", "error": f"{command.type} failed: {exc}"})
            return
        if isinstance(outcome, Branched):  # (the commands from now on go to the new session)
            self._adopt(outcome.conversation)
        self._ended(command, {"type": "command_done", "outcome": outcome_json(outcome)})


async def run_commands(
    settings: Settings,
    *,
    permissions: PermissionOptions | None = None,
    launch: Mapping[str, Any] | None = None,
) -> int:
    """`--input-format commands`: serve the commands on stdin until it closes; 1 if any command failed."""
    from agentui.frontends.claude_code.sdk_stdio import stdin_lines
    from agentui.frontends.print.mode import headless_conversation

    def note(sentence: str) -> None:
        sys.stderr.write(f"agentui: {sentence}\n")

    fields = {**(launch or {}), "answers_elicitation": True}  # (the program answers servers' questions too)
    conversation = headless_conversation(settings, Path.cwd(), permissions, fields, note)
    server = CommandsOnStdio(conversation, sys.stdout)
    try:
        for notice in await conversation.start_mcp():
            note(notice)
        return await server.serve(stdin_lines())
    finally:
        for each in [*server.left, server.conversation]:
            await each.aclose()
