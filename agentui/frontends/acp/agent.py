"""`agentui acp`: the Agent Client Protocol (Zed's open protocol; Zed and Toad are clients) over stdio, on the same
front-end surface as the app. Sessions are conversations (new, or loaded from their session files with their history
replayed as updates); a prompt's events become session updates (message and thought chunks, tool calls with their
status and output, the task list as the plan); permission questions go to the client; cancel interrupts. The wire
types and the connection are the official `agent-client-protocol` package's."""

from __future__ import annotations

import asyncio
import base64
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import acp
from acp import schema

from agentui import __version__
from agentui.api import (
    Conversation,
    ImageError,
    Launch,
    PermissionOptions,
    SessionError,
    SessionRequest,
    Settings,
    compact_command,
    describe_call,
    image_from_bytes,
    is_session_id,
    list_sessions,
    load_custom_commands,
    open_conversation,
    project_dir,
    proposed_change,
)
from agentui.api.events import (
    AgentEnd,
    Event,
    PermissionDecision,
    PermissionRequest,
    TaskListUpdate,
    TextDelta,
    ThinkingDelta,
    ToolEnd,
    ToolProgress,
    ToolStart,
    UsageUpdate,
    UserMessage,
)
from agentui.api.messages import ImageBlock, TextBlock
from agentui.frontends.acp.client_side import (
    ClientFiles,
    offers_files,
    shows_terminals,
    terminal_end,
    terminal_output,
    terminal_start,
)

log = logging.getLogger(__name__)

MODES = {
    "default": ("Default", "Edits and commands ask first"),
    "acceptEdits": ("Accept edits", "File edits in the project go ahead; commands still ask"),
    "plan": ("Plan", "Read-only: the agent looks and plans, and changes nothing"),
    "bypassPermissions": ("Bypass permissions", "Everything runs but what deny rules forbid"),
}
SESSION_PAGE = 50
OUTPUT_SHOWN = 64_000
"""Characters of a running command's output each update carries (its latest)."""
"""Sessions per page of session/list."""
_STOPS: dict[str, schema.StopReason] = {
    "end_turn": "end_turn",
    "max_turns": "max_turn_requests",
    "max_budget": "max_turn_requests",
    "max_total_tokens": "max_tokens",
    "max_duration": "max_turn_requests",
    "cancelled": "cancelled",
    "interrupted": "cancelled",
}


class AcpAgent:
    """The agent side of ACP (the `acp.Agent` protocol), one conversation per session."""

    def __init__(self, settings: Settings, *, bypass: bool = False) -> None:
        self.settings = settings
        self.modes = [mode for mode in MODES if bypass or mode != "bypassPermissions"]
        """The modes the editor may switch to: bypassPermissions only when agentui was started with
        --dangerously-skip-permissions or --allow-dangerously-skip-permissions, as in Claude Code."""
        self.client: Any = None
        self.sessions: dict[str, Conversation] = {}
        self._updates: dict[str, asyncio.Queue[Any]] = {}
        self._diffs: dict[str, Any] = {}
        """Each file-changing call's diff (the whole file before and after), as its start showed it: again with its
        end, as Zed's Claude Code adapter sends them."""
        self._pumps: dict[str, asyncio.Task[None]] = {}
        self.capabilities: schema.ClientCapabilities | None = None
        self._outputs: dict[str, str] = {}
        """Each running command's output so far (its last OUTPUT_SHOWN characters): an update replaces the call's
        content, so each one carries all of it. For a client that shows terminals, whether any has been sent."""
        self._terminals: set[str] = set()
        """The calls shown as terminals (commands, where the client draws them so)."""

    def on_connect(self, conn: Any) -> None:
        self.client = conn

    # Setting up

    async def initialize(
        self, protocol_version: int, client_capabilities: schema.ClientCapabilities | None = None, **_: Any
    ) -> schema.InitializeResponse:
        self.capabilities = client_capabilities
        return schema.InitializeResponse(
            protocol_version=min(protocol_version, acp.PROTOCOL_VERSION),
            agent_capabilities=schema.AgentCapabilities(
                load_session=True,
                prompt_capabilities=schema.PromptCapabilities(image=True, embedded_context=True),
                session_capabilities=schema.SessionCapabilities(
                    list=schema.SessionListCapabilities(),
                    fork=schema.SessionForkCapabilities(),
                    resume=schema.SessionResumeCapabilities(),
                    close=schema.SessionCloseCapabilities(),
                ),
            ),
            agent_info=schema.Implementation(name="agentui", title="agentui", version=__version__),
        )

    async def authenticate(self, method_id: str, **_: Any) -> schema.AuthenticateResponse:
        return schema.AuthenticateResponse()

    async def new_session(
        self, cwd: str, additional_directories: list[str] | None = None, **_: Any
    ) -> schema.NewSessionResponse:
        conversation = self._open(cwd, additional_directories, SessionRequest())
        self._announce(conversation)
        return schema.NewSessionResponse(
            session_id=conversation.session_id, modes=_modes(conversation.mode, self.modes)
        )

    async def load_session(
        self, cwd: str, session_id: str, additional_directories: list[str] | None = None, **_: Any
    ) -> schema.LoadSessionResponse:
        """A session's history replayed as updates: from its file, or (open in this process already) as it is."""
        conversation = self._reopened(cwd, session_id, additional_directories)
        await self._replay(conversation)
        self._announce(conversation)
        return schema.LoadSessionResponse(modes=_modes(conversation.mode, self.modes))

    async def resume_session(
        self, session_id: str, cwd: str, additional_directories: list[str] | None = None, **_: Any
    ) -> schema.ResumeSessionResponse:
        """A session to go on with, without its history replayed (the client has it)."""
        conversation = self._reopened(cwd, session_id, additional_directories)
        self._announce(conversation)
        return schema.ResumeSessionResponse(modes=_modes(conversation.mode, self.modes))

    async def fork_session(
        self, session_id: str, cwd: str, additional_directories: list[str] | None = None, **_: Any
    ) -> schema.ForkSessionResponse:
        """A new session that goes on from a copy of this one's history (the original stays as it is)."""
        if not is_session_id(session_id):
            raise acp.RequestError.invalid_params({"sessionId": session_id, "reason": "not a session id"})
        reference = session_id
        if (open_one := self.sessions.get(session_id)) is not None:
            reference = str(open_one.session.path)  # (its file, with all that was said so far)
        request = SessionRequest(resume=reference, fork=True)
        try:
            conversation = self._open(cwd, additional_directories, request)
        except SessionError as exc:
            raise acp.RequestError.invalid_params({"sessionId": session_id, "reason": str(exc)}) from None
        self._announce(conversation)
        return schema.ForkSessionResponse(
            session_id=conversation.session_id, modes=_modes(conversation.mode, self.modes)
        )

    async def close_session(self, session_id: str, **_: Any) -> schema.CloseSessionResponse:
        """The session's conversation closed (what runs stopped, its file synced); its id may be loaded again."""
        conversation = self._conversation(session_id)
        del self.sessions[session_id]
        await conversation.aclose()
        await self._flush(session_id)
        self._updates.pop(session_id, None)
        if (pump := self._pumps.pop(session_id, None)) is not None:
            pump.cancel()
        return schema.CloseSessionResponse()

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None, **_: Any) -> Any:
        """The project's sessions, newest first, a page at a time (the cursor is where the next page starts)."""
        root = Path(cwd or Path.cwd())
        found = list_sessions(project_dir(root))
        start = int(cursor) if cursor and cursor.isdigit() else 0
        page = found[start : start + SESSION_PAGE]
        infos = [
            schema.SessionInfo(session_id=info.session_id, cwd=str(root), title=info.title or info.last_prompt or None,
                               updated_at=_iso(info.modified))
            for info in page
        ]  # fmt: skip
        more = str(start + SESSION_PAGE) if start + SESSION_PAGE < len(found) else None
        return schema.ListSessionsResponse(sessions=infos, next_cursor=more)

    def _announce(self, conversation: Conversation) -> None:
        """The session's slash commands, once the response that names the session has gone (as Zed's adapter
        sends them: the response is written before the loop runs what this schedules)."""
        update = schema.AvailableCommandsUpdate(
            session_update="available_commands_update", available_commands=_commands(conversation)
        )
        asyncio.get_running_loop().call_soon(self._updates[conversation.session_id].put_nowait, update)

    def _reopened(self, cwd: str, session_id: str, directories: list[str] | None) -> Conversation:
        if (conversation := self.sessions.get(session_id)) is not None:
            return conversation
        if not is_session_id(session_id):  # (an id, never a path: the session is known by the id the client gave)
            raise acp.RequestError.invalid_params({"sessionId": session_id, "reason": "not a session id"})
        try:
            return self._open(cwd, directories, SessionRequest(resume=session_id))
        except SessionError as exc:
            raise acp.RequestError.invalid_params({"sessionId": session_id, "reason": str(exc)}) from None

    def _open(self, cwd: str, directories: list[str] | None, request: SessionRequest) -> Conversation:
        permissions = PermissionOptions(add_dirs=tuple(Path(d) for d in directories or []))
        files = ClientFiles(self.client) if offers_files(self.capabilities) else None
        launch = Launch(settings=self.settings, cwd=Path(cwd), permissions=permissions, session=request, editor=files)
        conversation = open_conversation(launch)
        session_id = conversation.session_id
        if files is not None:
            files.session_id = session_id
        self.sessions[session_id] = conversation
        queue: asyncio.Queue[Any] = asyncio.Queue()
        self._updates[session_id] = queue
        self._pumps[session_id] = asyncio.get_running_loop().create_task(self._pump(session_id, queue))
        conversation.on(lambda event: self._translate(session_id, event))
        return conversation

    async def _pump(self, session_id: str, queue: asyncio.Queue[Any]) -> None:
        """Session updates go out one at a time, in the order the events came."""
        while True:
            update = await queue.get()
            try:
                await self.client.session_update(session_id=session_id, update=update)
            except Exception:  # a client that cannot take an update must not stop the agent
                log.exception("a session update could not be sent")
            finally:
                queue.task_done()

    async def _flush(self, session_id: str) -> None:
        await self._updates[session_id].join()

    async def _replay(self, conversation: Conversation) -> None:
        """A loaded session's history, as the updates that made it: its events go through the live translation."""
        for event in conversation.replay():
            self._translate(conversation.session_id, event, replaying=True)
        await self._flush(conversation.session_id)

    # Prompts

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> schema.PromptResponse:
        """A prompt's answer; `/compact [instructions]` summarises the conversation, and `/command arguments` runs
        a custom command, as the commands the session announced say."""
        conversation = self._conversation(session_id)
        text, images = _prompt(prompt)
        if (instructions := compact_command(text)) is not None:
            result = await conversation.compact(instructions or None)
            if result.error:
                self._updates[session_id].put_nowait(acp.update_agent_message_text(f"agentui: {result.error}"))
            await self._flush(session_id)
            return schema.PromptResponse(stop_reason=_STOPS.get(result.stop, "end_turn"))
        expanded = conversation.expand_command(text)
        try:
            result = await conversation.send(expanded[0] if expanded else text, images)
        finally:
            if expanded is not None:  # (a command's allowed-tools hold for its run only)
                conversation.end_grants()
        if result.error and result.stop == "error":
            self._updates[session_id].put_nowait(acp.update_agent_message_text(f"\n\nagentui: {result.error}"))
        await self._flush(session_id)
        return schema.PromptResponse(stop_reason=_STOPS.get(result.stop, "end_turn"))

    async def cancel(self, session_id: str, **_: Any) -> None:
        if (conversation := self.sessions.get(session_id)) is not None:
            conversation.interrupt()

    async def set_session_mode(self, session_id: str, mode_id: str, **_: Any) -> schema.SetSessionModeResponse:
        if mode_id not in self.modes:
            raise acp.RequestError.invalid_params({"modeId": mode_id, "modes": list(self.modes)})
        self._conversation(session_id).set_mode(mode_id)  # type: ignore[arg-type]
        return schema.SetSessionModeResponse()

    def _conversation(self, session_id: str) -> Conversation:
        conversation = self.sessions.get(session_id)
        if conversation is None:
            raise acp.RequestError.invalid_params({"sessionId": session_id, "reason": "no such session"})
        return conversation

    async def close(self) -> None:
        for conversation in self.sessions.values():
            await conversation.aclose()
        for pump in self._pumps.values():
            pump.cancel()

    # Events into updates

    def _translate(self, session_id: str, event: Event, *, replaying: bool = False) -> None:
        queue, conversation = self._updates.get(session_id), self.sessions.get(session_id)
        if queue is None or conversation is None:  # (closed: what its closing emits goes nowhere)
            return
        match event:
            case UserMessage() if replaying:  # (live, the client shows what it sent itself)
                for block in event.message.content:
                    if isinstance(block, TextBlock) and block.text.strip():
                        queue.put_nowait(acp.update_user_message(acp.text_block(block.text)))
            case TextDelta():
                queue.put_nowait(acp.update_agent_message_text(event.text))
            case ThinkingDelta():
                queue.put_nowait(acp.update_agent_thought_text(event.text))
            case ToolStart():
                queue.put_nowait(self._started(event, conversation.root, replaying))
            case ToolProgress():
                queue.put_nowait(self._progress(event.tool_call_id, event.text))
            case ToolEnd():
                for update in self._ended(event):
                    queue.put_nowait(update)
            case TaskListUpdate():
                entries = [acp.plan_entry(task.subject, status=task.status) for task in event.tasks]
                queue.put_nowait(acp.update_plan(entries))
            case PermissionRequest():
                asyncio.get_running_loop().create_task(self._ask(session_id, event))
            case UsageUpdate() if conversation.window:  # (how full the window is, and what the session has cost)
                window = conversation.window
                cost = schema.Cost(amount=round(event.cost_usd, 6), currency="USD")
                queue.put_nowait(schema.UsageUpdate(session_update="usage_update", used=event.context_tokens,
                                                    size=window, cost=cost))  # fmt: skip
            case AgentEnd():
                pass
            case _:
                pass

    def _started(self, event: ToolStart, root: Path, replaying: bool) -> Any:
        """A call's `tool_call`: with its diff (a file's change), as a terminal (a command, where the client draws
        terminals), or as it is."""
        call_id = event.tool_call_id
        # (replayed, the file has changed since: no diff drawn from it)
        if not replaying and (diff := _diff(event.name, event.input, root)) is not None:
            self._diffs[call_id] = diff
        start = _tool_start(call_id, event.name, event.input, root)
        if call_id in self._diffs:
            return start.model_copy(update={"content": [self._diffs[call_id]]})
        if start.kind == "execute" and shows_terminals(self.capabilities):
            self._terminals.add(call_id)
            return terminal_start(start, call_id)
        return start

    def _progress(self, call_id: str, text: str) -> Any:
        """A running call's new output: the terminal's next piece, or all of it so far as the call's content."""
        if call_id in self._terminals:
            self._outputs[call_id] = ""  # (some was sent: the end need not send the result as output)
            return terminal_output(call_id, text)
        shown = self._outputs[call_id] = (self._outputs.get(call_id, "") + text)[-OUTPUT_SHOWN:]
        return acp.update_tool_call(call_id, content=[acp.tool_content(acp.text_block(shown))])

    def _ended(self, event: ToolEnd) -> list[Any]:
        call_id = event.tool_call_id
        done = _tool_done(call_id, event.content, event.is_error, event.details or None)
        streamed = self._outputs.pop(call_id, None) is not None
        if (diff := self._diffs.pop(call_id, None)) is not None and not event.is_error:
            done = done.model_copy(update={"content": [diff, *(done.content or [])]})
        if call_id not in self._terminals:
            return [done]
        self._terminals.discard(call_id)
        code = event.details.get("exitCode")
        # (a replayed end has no code recorded (Claude Code records none): it ended, well or not; one sent to the
        # background has not ended)
        sent_away = bool(event.details.get("backgroundTaskId"))
        exit_code = code if isinstance(code, int) else 1 if event.is_error else None if sent_away else 0
        output = [] if streamed else [terminal_output(call_id, str(event.details.get("stdout", _text(event.content))))]
        return [*output, terminal_end(done, call_id, exit_code)]

    async def _ask(self, session_id: str, event: PermissionRequest) -> None:
        """A permission question to the client, after the updates before it (the tool call it is about)."""
        conversation = self.sessions[session_id]
        await self._flush(session_id)
        options = [schema.PermissionOption(option_id="allow_once", name="Yes, once", kind="allow_once")]
        if event.suggestions:
            rules = ", ".join(event.suggestions)
            options.append(
                schema.PermissionOption(
                    option_id="allow_session", name=f"Yes, for this session ({rules})", kind="allow_always"
                )
            )
        options.append(schema.PermissionOption(option_id="reject_once", name="No", kind="reject_once"))
        title = f"{event.tool_name}: {describe_call(event.tool_name, event.input, conversation.root).title}"
        diff = _diff(event.tool_name, event.input, conversation.root)
        tool_call = schema.ToolCallUpdate(
            tool_call_id=event.tool_call_id, title=title[:200], status="pending", raw_input=event.input,
            content=[diff] if diff is not None else None,
        )  # fmt: skip
        try:
            response = await self.client.request_permission(session_id=session_id, tool_call=tool_call, options=options)
            outcome = response.outcome
            chosen = getattr(outcome, "option_id", None) if getattr(outcome, "outcome", "") == "selected" else None
        except Exception:  # the client could not answer: no
            log.exception("the permission request failed")
            chosen = None
        if chosen == "allow_once":
            decision = PermissionDecision(behavior="allow")
        elif chosen == "allow_session":
            decision = PermissionDecision(behavior="allow", scope="session")
        else:
            decision = PermissionDecision(behavior="deny")
        conversation.answer(event.request_id, decision)


def _tool_done(call_id: str, content: Any, is_error: bool, raw_output: dict[str, Any] | None = None) -> Any:
    """A tool call's end, as it happens or replayed from a loaded session: its result's text, failed or completed."""
    return acp.update_tool_call(
        call_id,
        status="failed" if is_error else "completed",
        content=[acp.tool_content(acp.text_block(_text(content)))],
        raw_output=raw_output,
    )


def _text(content: Any) -> str:
    return content if isinstance(content, str) else "\n".join(b.text for b in content if isinstance(b, TextBlock))


def _tool_start(
    call_id: str, name: str, arguments: dict[str, Any], root: Path, status: schema.ToolCallStatus = "in_progress"
) -> Any:
    view = describe_call(name, arguments, root)
    title = f"{name} {view.title}".strip()
    locations = [schema.ToolCallLocation(path=path) for path in view.locations] or None
    return acp.start_tool_call(
        call_id,
        title[:200],
        kind=view.shown,
        status=status,
        locations=locations,
        raw_input=arguments,
    )


def _diff(name: str, arguments: dict[str, Any], root: Path) -> Any:
    """A call that changes a file's text as ACP's diff content: the file's path and its whole text before (None for a
    new file) and after, for the editor to show; None for any other call."""
    change = proposed_change(name, arguments, root)
    locations = describe_call(name, arguments, root).locations
    if change is None or not locations:
        return None
    before, after = change
    path = Path(locations[0]) if Path(locations[0]).is_absolute() else root / locations[0]
    # (the file the change would reach, links followed: that is where the editor writes, and what the person judges)
    return acp.tool_diff_content(os.path.realpath(path), after, before if before else None)


def _commands(conversation: Conversation) -> list[schema.AvailableCommand]:
    """The slash commands a prompt may start with: /compact, and the custom commands of the project and person."""
    found = [schema.AvailableCommand(name="compact", description="Summarise the conversation to free the context",
                                     input=schema.AvailableCommandInput(root=schema.UnstructuredCommandInput(
                                         hint="instructions for the summary")))]  # fmt: skip
    for name, command in sorted(load_custom_commands(conversation.root, conversation.env).items()):
        hint = schema.AvailableCommandInput(root=schema.UnstructuredCommandInput(hint=command.argument_hint))
        found.append(schema.AvailableCommand(name=name, description=command.description or f"/{name}",
                                             input=hint if command.argument_hint else None))  # fmt: skip
    return found


def _iso(when: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(when, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _modes(current: str, offered: Sequence[str]) -> schema.SessionModeState:
    return schema.SessionModeState(
        current_mode_id=current,
        available_modes=[
            schema.SessionMode(id=mode, name=name, description=about)
            for mode, (name, about) in MODES.items()
            if mode in offered
        ],
    )


def _prompt(blocks: list[Any]) -> tuple[str, list[ImageBlock]]:
    """A prompt's text (embedded resources as their text) and images."""
    texts: list[str] = []
    images: list[ImageBlock] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            texts.append(block.text)
        elif kind == "image":
            try:
                images.append(image_from_bytes(base64.b64decode(block.data), "an image of the prompt"))
            except (ImageError, ValueError) as exc:
                texts.append(f"[an image that could not be sent: {exc}]")
        elif kind == "resource":
            resource = block.resource
            if getattr(resource, "text", None) is not None:
                texts.append(f'<resource uri="{resource.uri}">\n{resource.text}\n</resource>')
        elif kind == "resource_link":
            texts.append(f"[{block.name}]({block.uri})")
    return "\n\n".join(texts), images


class _OneLine(logging.Formatter):
    """What the protocol library logs (a line it could not parse, a failed handler) as one line, no traceback."""

    def format(self, record: logging.LogRecord) -> str:
        why = f": {record.exc_info[1]}" if record.exc_info and record.exc_info[1] else ""
        return f"agentui acp: {record.getMessage()}{why}"


async def serve(settings: Settings, *, bypass: bool = False) -> int:
    """Serve ACP on stdin and stdout until the client closes them."""
    handler = logging.StreamHandler()
    handler.setFormatter(_OneLine())
    logging.basicConfig(handlers=[handler], level=logging.WARNING, force=True)
    agent = AcpAgent(settings, bypass=bypass)
    try:
        # (session/fork, session/resume and session/close are in the protocol's unstable part, which agentui serves)
        await acp.run_agent(agent, use_unstable_protocol=True)  # type: ignore[arg-type]
    finally:
        await agent.close()
    return 0
