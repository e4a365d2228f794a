"""The app a person works in: the transcript, the prompt, the status bar, and the keys.

It reads the engine's events from one subscription to the agent's bus and routes each to its widget. What flows
back to the engine is only ever an answer: a prompt, a permission decision, a cancel.
"""

from __future__ import annotations

import asyncio
import gc
import io
import logging
import re
import time
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, assert_never

from rich.console import Console
from textual import events, work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import Static

from agentui import __version__
from agentui.tui.commands import BUILTIN, CustomCommand, load_custom_commands
from agentui.tui.history import PromptHistory, history_file
from agentui.tui.screens.main import MainScreen
from agentui.tui.screens.trust import TrustScreen
from agentui.tui.themes import DEFAULT_THEME, load_themes, remembered_theme
from agentui.tui.widgets.prompt_input import Completion, CompletionList, PromptInput
from agentui.tui.widgets.status_bar import StatusBar
from agentui.tui.widgets.todo_panel import TodoPanel
from agentui.tui.widgets.tool_block import ToolBlock
from agentui.tui.widgets.transcript import Notice, Transcript, UserPrompt

if TYPE_CHECKING:  # the engine is imported after the first frame (see _load_engine), not with the app
    from agentui.core.conversation import Conversation, Launch
    from agentui.core.events import (
        AgentEnd,
        CompactionEnd,
        ContentBlockEnd,
        Event,
        PermissionDecision,
        PermissionRequest,
        Subscription,
        UserMessage,
    )
    from agentui.core.frontend import Project, Provider, SessionRequest
    from agentui.core.messages import Message
    from agentui.tui.screens.permission import PermissionScreen
    from agentui.tui.widgets.answer import AssistantText, ThinkingView

log = logging.getLogger(__name__)

Prepare = Callable[[], "tuple[Launch | None, str | None]"]
"""Resolves what to launch (settings, permissions, session) once the first frame is up; (None, why) if it cannot."""

QUIT_WINDOW = 2.0
SETTLE_SECONDS = 0.3
MAX_FILE_COMPLETIONS = 5000
YOUNG_COLLECTION_EVERY = 10_000
"""Allocations between collections of the youngest generation (CPython's default is 700)."""
HISTORY_SHOWN = 120
"""How many parts (prompts, answers, tool calls) of a resumed session are drawn: every one costs layout time."""
MODE_MEANINGS = {
    "default": "edits and commands ask first",
    "acceptEdits": "file edits in the project go ahead; commands still ask",
    "plan": "read-only: the agent looks and plans, and changes nothing",
    "bypassPermissions": "everything goes ahead except what deny rules forbid",
}
INIT_PROMPT = (
    "Please analyse this codebase and create a CLAUDE.md file at its root, for future sessions to read. Include "
    "the commands to build, lint and test (and to run a single test), and the big-picture architecture that takes "
    "reading several files to understand. Keep it short and specific to this project; if a CLAUDE.md exists, "
    "improve it instead."
)
HELP = (
    "Keys: Enter sends · Ctrl+J new line · ↑/↓ history · Esc interrupts and returns to the prompt · "
    "Shift+Tab permission mode ·\nPageUp/PageDown scroll · Ctrl+Home/Ctrl+End top and end · Tab moves to the "
    "blocks (Enter expands one) · Ctrl+O copies the last answer (or the block in focus) ·\nCtrl+R searches "
    "earlier prompts · Ctrl+F finds in the transcript · Ctrl+L clears the view · Ctrl+C twice quits ·\n"
    "!command runs a shell command · "
    "#note adds to CLAUDE.md · @ completes files\nCommands: "
)


class AgentApp(App[None]):
    TITLE = "agentui"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "interrupt", "Interrupt", show=False),
        Binding("ctrl+c", "quit_twice", "Quit", show=False, priority=True),
        Binding("ctrl+l", "clear_view", "Clear the view", show=False),
        Binding("shift+tab", "cycle_mode", "Permission mode", show=False, priority=True),
        # The transcript scrolls from wherever focus is (it is almost always in the prompt).
        Binding("pageup", "scroll_transcript('page_up')", "Scroll up", show=False, priority=True),
        Binding("pagedown", "scroll_transcript('page_down')", "Scroll down", show=False, priority=True),
        Binding("ctrl+home", "scroll_transcript('home')", "Scroll to the top", show=False, priority=True),
        Binding("ctrl+end", "scroll_transcript('end')", "Scroll to the end", show=False, priority=True),
        Binding("ctrl+o", "copy", "Copy", show=False, priority=True),
        Binding("ctrl+r", "search_history", "Search earlier prompts", show=False),
        Binding("ctrl+f", "find", "Find in the transcript", show=False, priority=True),
    ]

    def __init__(
        self,
        launch: Launch | None,
        *,
        problem: str | None = None,
        provider_factory: Callable[[], Provider] | None = None,
        env: dict[str, str] | None = None,
        first_prompt: str | None = None,
        prepare: Prepare | None = None,
        cwd: Path | None = None,
    ) -> None:
        super().__init__()
        self.launch = launch
        self._prepare = prepare
        self._waiting: list[str] = [first_prompt] if first_prompt else []  # sent once the conversation opens
        """Allow rules a custom command's `allowed-tools` added for the run it started."""
        self._starting = prepare is not None
        """Until start-up has resolved the launch (or failed to): prompts sent meanwhile wait for the conversation."""
        self.problem = problem
        self.conversation: Conversation | None = None
        # An unhandled error ends the app through Textual's own handler (return code 1), which prints a traceback to
        # `error_console` once the terminal is restored: it is kept here instead, for run_app to turn into one
        # sentence and the log. (Under Pilot, Textual re-raises the error in the test, as it should.)
        self._crash_report = io.StringIO()
        self.error_console = Console(file=self._crash_report, width=120, color_system=None, highlight=False)
        self._provider_factory = provider_factory
        self._env = env
        self._project: Project | None = None
        self._subscription: Subscription | None = None
        # Keyed by the order of message_start events, not by message id: a server may repeat ids.
        self._texts: dict[tuple[int, int], AssistantText] = {}
        self._thinking: dict[tuple[int, int], ThinkingView] = {}
        self._tools: dict[str, ToolBlock] = {}
        self._message_widgets: dict[int, list[Any]] = {}
        self._message = 0
        self._questions: deque[PermissionRequest] = deque()
        self._asking: PermissionScreen | None = None
        self._pending: list[str] = []
        self._found: list[Any] = []
        """Ctrl+F's matches, newest first, and which is shown."""
        self._found_at = -1
        self._quit_armed_at = 0.0
        self._custom: dict[str, CustomCommand] = {}
        self._files: list[str] | None = None
        root = launch.cwd if launch else (cwd or Path.cwd())
        self.history = PromptHistory(history_file(root, env))

    # Layout

    def get_default_screen(self) -> MainScreen:
        # Widgets are held by reference, not queried: App.query_one searches the screen on top, and events keep
        # arriving while a question is still showing.
        self.transcript = Transcript(id="transcript")
        self.pending = Static("", id="pending")
        self.todos = TodoPanel()
        completions = CompletionList()
        self.prompt_input = PromptInput(self.history, completions, self._completions)
        self.status = StatusBar()
        return MainScreen(self.transcript, self.pending, self.todos, completions, self.prompt_input, self.status)

    def say(self, message: str, level: str = "info") -> None:
        self.transcript.add(Notice(message, level))

    def on_mount(self) -> None:
        self._load_themes()
        self.call_after_refresh(self._startup)  # once the main screen's widgets are mounted

    async def _startup(self) -> None:
        self.prompt_input.focus()
        self.say(f"agentui {__version__} — type a request; /help for keys and commands.")
        # The screen is up and takes input now; what is typed meanwhile waits for the conversation.
        try:
            await asyncio.to_thread(self._load_engine)
        except Exception as exc:  # a broken install or launch: one sentence, the app stays open
            log.exception("start-up failed")
            self.say(f"agentui could not start its engine: {type(exc).__name__}: {exc}.", "error")
            return
        finally:
            self._starting = False
        # What is loaded by now (modules, classes, the screen) lives as long as the app: out of the cyclic
        # collector's sight, a full collection while an answer streams scans only what the conversation made.
        # And the youngest generation is collected less often, so the short-lived lines of a streaming answer die
        # young instead of being promoted into the generations whose collections stall the screen.
        gc.freeze()
        gc.set_threshold(YOUNG_COLLECTION_EVERY, *gc.get_threshold()[1:])
        if self.launch is None:
            self.say(self._no_model_help(), "error")
            self.status.set(model="no model", provider="—")
            waiting, self._waiting = self._waiting, []
            for text in waiting:  # typed before this was known
                self._send(text)
            return
        from agentui.core.frontend import ProjectError, open_project

        try:
            self._project = open_project(self.launch.cwd, self.launch.permissions, env=self._env)
        except ProjectError as exc:
            self.say(str(exc), "error")
            return
        self._custom = load_custom_commands(self._project.root, self._env)
        if not self._project.trusted and self._project.held_back:  # (other notices are not trust's business)
            self.push_screen(TrustScreen(str(self._project.root), self._project.notices), self._trusted)
            return
        for notice in self._project.notices:  # a rule that was ignored, a sandbox that cannot run
            self.say(notice, "warning")
        await self._start(self.launch.session)

    def _load_engine(self) -> None:
        """On a worker thread, so the first frame never waits for it: resolve the launch and import the engine."""
        if self._prepare is not None:
            self.launch, self.problem = self._prepare()
            self._prepare = None
        # Imported for their cost, here and not when the first prompt or question needs them.
        import agentui.core.conversation  # the engine: pydantic models, providers, tools
        import agentui.tui.screens.permission
        import agentui.tui.widgets.answer  # noqa: F401  (Markdown, for the first answer)

    async def _trusted(self, trusted: bool | None) -> None:
        assert self.launch is not None and self._project is not None
        from agentui.core.frontend import open_project

        if trusted:
            from agentui.core.frontend import trust

            trust(self._project.root, self._env)
            self._project = open_project(self.launch.cwd, self.launch.permissions, env=self._env)
        for notice in self._project.notices:
            self.say(notice, "warning")
        await self._start(self.launch.session)

    async def _start(self, request: SessionRequest) -> None:
        if request.resume == "":
            self.action_resume_picker(new_if_none=request)
            return
        await self._open(request)

    # Conversations

    async def _open(self, request: SessionRequest) -> None:
        from agentui.core.conversation import Conversation
        from agentui.core.frontend import ProjectError, SessionError, SessionRequest

        assert self.launch is not None
        if self.conversation is not None:
            await self._close()
        try:
            self.conversation = Conversation.open(
                replace(self.launch, session=request),
                project=self._project,
                provider=self._provider_factory() if self._provider_factory else None,
                on_error=lambda message: self.call_later(self.say, message, "warning"),
                env=self._env,
            )
        except (SessionError, ProjectError) as exc:
            self.say(str(exc), "error")
            if request != SessionRequest():
                await self._open(SessionRequest())  # keep working, in a new session
            return
        self._subscription = self.conversation.subscribe()
        self._consume(self._subscription)
        self._start_mcp(self.conversation)
        resumed = self.conversation.session.resumed_from
        if resumed is not None:
            self._show_history(self.conversation.messages, resumed.tool_details)
            # counted as the session picker counts them: the lines of the conversation, not merged messages
            count = sum(1 for entry in resumed.chain if entry.get("type") in ("user", "assistant"))
            self.say(f"Resumed {resumed.title or resumed.session_id} ({count} messages).")
        self.status.set(
            model=self.conversation.model,
            provider=self.launch.settings.provider,
            mode=self.conversation.mode,
            title=resumed.title if resumed and resumed.title else "",
        )
        waiting, self._waiting = self._waiting, []
        for text in waiting:
            self._send(text)

    @work(group="mcp", exit_on_error=False)
    async def _start_mcp(self, conversation: Conversation) -> None:
        """In the background: the screen takes prompts meanwhile, and a server's tools join the model's list as
        soon as it is connected (a server that hangs is given up after MCP_TIMEOUT)."""
        for notice in await conversation.start_mcp(self._env, approve=self._approve_mcp_server):
            self.say(notice, "warning")
        if conversation.mcp is not None:
            connected = [server.name for server in conversation.mcp.servers if server.state == "connected"]
            if connected:
                self.say(f"MCP: {', '.join(connected)} connected.")

    async def _approve_mcp_server(self, name: str, what: str) -> bool | None:
        from agentui.tui.screens.mcp_approval import McpApprovalScreen

        return await self.push_screen_wait(McpApprovalScreen(name, what))

    async def on_unmount(self) -> None:
        await self._close()  # however the app ends, the session file is synced and released

    async def _close(self) -> None:
        if self._subscription is not None:
            self._subscription.close()
            self._subscription = None
        if self.conversation is not None:
            await self.conversation.aclose()
            self.conversation = None
        self._texts.clear()
        self._thinking.clear()
        self._tools.clear()
        self._message_widgets.clear()
        self.todos.show_todos([])

    @work(group="events", exclusive=True)
    async def _consume(self, subscription: Subscription) -> None:
        async for event in subscription:
            try:
                await self._route(event)
            except Exception:  # one odd event must never take the screen down
                log.exception("showing %s failed", event.type)

    # Events -> widgets

    async def _route(self, event: Event) -> None:
        from agentui.core import events as ev  # (loaded with the engine, after the first frame)

        match event:  # what streams from the model, and what starts and ends waiting for it, sets the quiet clock
            case ev.TextDelta():
                self.status.waiting_since = time.monotonic()
                self._text(event.index).add(event.text)
            case ev.ThinkingDelta():
                self.status.waiting_since = time.monotonic()
                self._thought(event.index).add(event.text)
            case ev.ToolUseDelta():
                self.status.waiting_since = time.monotonic()
                self._tool(event.tool_call_id, event.name)
            case ev.ContentBlockEnd():
                self.status.waiting_since = time.monotonic()
                await self._block_end(event)
            case ev.MessageStart():
                self.status.waiting_since = time.monotonic()
                # The previous message's blocks are complete and its tool calls have ended: nothing routes to them
                # any more, and holding them here would keep every answer and tool output of a long run alive
                # after the transcript has pruned their widgets.
                self._texts.clear()
                self._thinking.clear()
                self._tools.clear()
                self._message_widgets.clear()
                self._message += 1
            case ev.MessageEnd():
                self.status.waiting_since = None
                for (message_id, _), widget in list(self._texts.items()):
                    if message_id == self._message:
                        await widget.finish()
            case ev.UserMessage():
                self._user_message(event)
            case ev.ToolStart():
                block = self._tool(event.tool_call_id, event.name)
                if not block.arguments:
                    block.set_arguments(event.input)
                if block.state != "asking":  # a call that asks starts once the answer is yes
                    block.start()
            case ev.ToolProgress():
                self._tool(event.tool_call_id, "").progress(event.text)
            case ev.ToolEnd():
                self._tool(event.tool_call_id, event.name).finish(event.content, event.is_error, event.details)
                if event.name == "TodoWrite" and not event.is_error:
                    self.todos.show_todos(event.details.get("newTodos") or [])
            case ev.PermissionRequest():
                self._ask(event)
            case ev.UsageUpdate():
                self.status.set(
                    tokens_in=event.total.context_tokens,
                    tokens_out=event.total.output_tokens,
                    cost_usd=event.cost_usd,
                    context_percent=event.context_percent,
                )
            case ev.Retry():
                self.status.waiting_since = time.monotonic() + event.delay
                for widget in self._message_widgets.pop(self._message, []):  # that attempt's partial answer is void
                    widget.remove()
                self.status.set(retry_until=time.monotonic() + event.delay, retry_reason=event.reason)
                attempt = f"attempt {event.attempt} of {event.max_attempts}"
                self.say(f"Retrying in {event.delay:.1f} s ({attempt}): {event.reason}", "warning")
            case ev.Error():
                self.say(event.message, "error")
            case ev.Notice():
                self.say(event.message, event.level)
            case ev.CompactionStart():
                self.say(f"Compacting the conversation ({event.pre_tokens:,} tokens)…")
            case ev.CompactionEnd():
                self._compacted(event)
            case ev.AgentStart():
                self.status.set(busy=True, retry_until=None)
            case ev.AgentEnd():
                self.status.waiting_since = None
                await self._run_ended(event)
            case ev.TurnStart():
                self.status.waiting_since = time.monotonic()
            case ev.TurnEnd() | ev.PermissionResolved():
                pass  # nothing on screen changes: the blocks and questions around them say it
            case _:
                assert_never(event)  # a new kind of event: decide here what the screen shows for it

    def _compacted(self, event: CompactionEnd) -> None:
        from agentui.tui.widgets.answer import CompactionMark

        self.transcript.add(
            CompactionMark(_summary_text(event.summary), f"Conversation compacted to {event.post_tokens:,} tokens")
        )
        window = self.conversation.window if self.conversation else None
        self.status.set(context_percent=round(100 * event.post_tokens / window, 1) if window else None)

    def _track(self, widget: Any) -> Any:
        self._message_widgets.setdefault(self._message, []).append(widget)
        return self.transcript.add(widget)

    def _text(self, index: int) -> AssistantText:
        key = (self._message, index)
        if key not in self._texts:
            from agentui.tui.widgets.answer import AssistantText

            self._texts[key] = self._track(AssistantText())
        return self._texts[key]

    def _thought(self, index: int) -> ThinkingView:
        key = (self._message, index)
        if key not in self._thinking:
            from agentui.tui.widgets.answer import ThinkingView

            self._thinking[key] = self._track(ThinkingView())
        return self._thinking[key]

    def _tool(self, tool_call_id: str, name: str) -> ToolBlock:
        if tool_call_id not in self._tools:
            cwd = self.conversation.project.root if self.conversation else None
            self._tools[tool_call_id] = self._track(ToolBlock(tool_call_id, name, cwd))
        return self._tools[tool_call_id]

    async def _block_end(self, event: ContentBlockEnd) -> None:
        from agentui.core.messages import ThinkingBlock, ToolUseBlock

        block = event.block
        key = (self._message, event.index)
        if isinstance(block, ToolUseBlock):
            self._tool(block.id, block.name).set_arguments(block.input)
        elif isinstance(block, ThinkingBlock) and key in self._thinking:
            self._thinking[key].finish()
        elif key in self._texts:
            await self._texts[key].finish()

    def _user_message(self, event: UserMessage) -> None:
        text = event.message.text
        if event.source == "interrupt":
            return
        if event.source == "hook":
            self.say(text)
            return
        if event.source == "context" and _shell_record(text) is not None:
            return  # a `!command` of the person's: its block is on screen already
        if event.source == "steer" and text in self._pending:
            self._pending.remove(text)
            self._show_pending()
        shown = "/init" + text[len(INIT_PROMPT) :] if text.startswith(INIT_PROMPT) else text  # not our own prompt
        self.transcript.add(UserPrompt(shown, context=event.source == "context"))
        if event.source == "prompt" and not self.status.status.title:
            self.status.set(title=text.splitlines()[0][:60] if text else "")

    async def _run_ended(self, event: AgentEnd) -> None:
        from agentui.core.events import PermissionDecision

        self.call_attention("the answer is ready" if event.stop == "end_turn" else f"the run ended ({event.stop})")
        if self.conversation is not None:
            self.conversation.end_grants()
        for widget in self._texts.values():
            await widget.finish()
        # An incremental update made while a question was on screen can leave one stale row in a real terminal
        # (the compositor holds the right frame); one full repaint once the run has settled puts it right.
        self.set_timer(SETTLE_SECONDS, self.transcript.screen.refresh)
        self.status.set(busy=False, retry_until=None)
        if event.stop == "cancelled":
            self.say("Interrupted.", "warning")
            self._questions.clear()
            if self._asking is not None:
                self._asking.dismiss(PermissionDecision(behavior="deny"))
        elif event.stop == "max_turns":
            self.say(f"Stopped after {event.num_turns} turns.", "warning")

    # Permission questions, one at a time

    def _ask(self, request: PermissionRequest) -> None:
        self._questions.append(request)
        if self._asking is None:
            self._next_question()

    def _next_question(self) -> None:
        if not self._questions or self.conversation is None:
            self._asking = None
            self.prompt_input.focus()
            return
        from agentui.tui.screens.permission import PermissionScreen

        request = self._questions.popleft()
        tool = self._tools.get(request.tool_call_id)
        if tool is not None:
            tool.set_arguments(request.input)
            tool.ask()
        self._asking = PermissionScreen(request, self.conversation.project.root)
        self.push_screen(self._asking, lambda decision: self._answered(request, decision))
        self.call_attention(f"{request.tool_name} is waiting for your answer")

    def _answered(self, request: PermissionRequest, decision: PermissionDecision | None) -> None:
        # Tell the engine only once the question is gone and the transcript is back on screen: what the answer
        # sets off (the tool's result, the next answer) must not update a screen that is still hidden.
        self.call_after_refresh(self._deliver_answer, request, decision)

    def _deliver_answer(self, request: PermissionRequest, decision: PermissionDecision | None) -> None:
        from agentui.core.events import PermissionDecision

        self._asking = None
        tool = self._tools.get(request.tool_call_id)
        if tool is not None and decision is not None and decision.behavior == "allow":
            tool.start()
        if self.conversation is not None:
            self.conversation.answer(request.request_id, decision or PermissionDecision(behavior="deny"))
            if decision is not None and decision.scope == "always" and decision.behavior == "allow":
                self.say(
                    f"Saved to .claude/settings.local.json: {', '.join(request.suggestions) or request.tool_name}."
                )
        self._next_question()

    # The prompt

    async def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        text = message.text.strip()
        # Whatever was being read further up, what this prompt brings (its questions above all) is at the end.
        self.action_scroll_transcript("end")
        if text.startswith("/"):
            await self._command(text)
        elif text.startswith("!"):
            await self._shell(text[1:].strip())
        elif text.startswith("#"):
            self._remember(text[1:].strip())
        else:
            self._send(message.text)

    def _send(self, text: str) -> None:
        if self.conversation is None:
            if self._starting or self.launch is not None:  # it goes out as soon as the conversation is open
                self._waiting.append(text)
            else:  # what was typed is shown, and why it went nowhere, in one line (the help is above)
                self.transcript.add(UserPrompt(text))
                self.say("Not sent: no model is configured (see above, or /model).", "error")
            return
        conversation = self.conversation
        if conversation.running:
            conversation.steer(text)
            self._pending.append(text)
            self._show_pending()
            return
        self.run_worker(conversation.send(text), group="run", exit_on_error=False)

    def _show_pending(self) -> None:
        self.pending.update(Content("\n".join(f"⏳ {text.splitlines()[0][:100]}" for text in self._pending)))
        self.pending.display = bool(self._pending)

    def _completions(self, before_cursor: str) -> list[Completion]:
        if before_cursor.startswith("/") and " " not in before_cursor:
            typed = before_cursor[1:].lower()
            names = {**BUILTIN, **{name: c.description or "custom command" for name, c in self._custom.items()}}
            return [
                Completion(f"/{name}", description)
                for name, description in sorted(names.items())
                if name.startswith(typed)
            ]
        word = before_cursor.split()[-1] if before_cursor.split() else ""
        if word.startswith("@") and self.conversation is not None:
            typed = word[1:].lower()
            found = [path for path in self._project_files() if typed in path.lower()]
            return [Completion(f"@{path}") for path in sorted(found, key=lambda path: _file_rank(path, typed))]
        return []

    def _project_files(self) -> list[str]:
        if self._files is None and self.conversation is not None:
            from agentui.core.frontend import walk_files

            root = self.conversation.project.root
            files: list[str] = []
            for path in walk_files(root, root):
                files.append(path.relative_to(root).as_posix())
                if len(files) >= MAX_FILE_COMPLETIONS:
                    break
            self._files = sorted(files)
        return self._files or []

    async def _shell(self, command: str) -> None:
        """`!command`: the person's own command, run at once; its output joins the conversation as context."""
        if self.conversation is None or not command:
            return
        self.transcript.add(UserPrompt(f"! {command}", context=True))
        block = self.transcript.add(ToolBlock("shell", "Bash", self.conversation.root))
        block.set_arguments({"command": command})
        block.start()
        outcome = await self.conversation.run_shell(command, block.progress)
        block.finish(outcome.output, outcome.is_error, outcome.details)

    def _remember(self, note: str) -> None:
        """`#note`: a line for the project's memory file."""
        if not note:
            return
        root = self.conversation.project.root if self.conversation else (self.launch.cwd if self.launch else Path.cwd())
        memory = root / "CLAUDE.md"
        try:
            existing = memory.read_text(encoding="utf-8") if memory.exists() else ""
            separator = "" if not existing or existing.endswith("\n") else "\n"
            with memory.open("a", encoding="utf-8") as handle:
                handle.write(f"{separator}- {note}\n")
        except OSError as exc:
            self.say(f"CLAUDE.md could not be written ({exc.strerror or exc}).", "error")
            return
        self.say(f"Added to {memory}: {note}")

    # Slash commands

    async def _command(self, text: str) -> None:
        name, _, arguments = text[1:].partition(" ")
        arguments = arguments.strip()
        handler = getattr(self, f"_command_{name.replace('-', '_')}", None)
        if name in BUILTIN and handler is not None:
            await handler(arguments)
        elif name in self._custom:
            self._grant_for_run(self._custom[name])
            self._send(self._custom[name].expand(arguments))
        else:
            self.say(f"There is no command /{name}; /help lists them.", "warning")

    def _grant_for_run(self, command: Any) -> None:
        """A custom command's `allowed-tools` are allowed while the run it starts lasts, as in Claude Code; a
        project's command files grant only once the project is trusted, like its settings."""
        if not command.allowed_tools or self.conversation is None or self.conversation.running:
            return
        project = self.conversation.project
        from_project = command.path is not None and project.root in command.path.parents
        if from_project and not project.trusted:
            self.say(
                f"/{command.name} asks for {', '.join(command.allowed_tools)}; this project is not trusted, "
                "so they are asked for as usual.",
                "warning",
            )
            return
        for problem in self.conversation.grant_for_run(list(command.allowed_tools), f"command /{command.name}"):
            self.say(f"/{command.name}: {problem}", "warning")

    async def _command_help(self, arguments: str) -> None:
        commands = [f"/{name}" for name in BUILTIN] + [f"/{name}" for name in sorted(self._custom)]
        self.say(HELP + " ".join(commands))

    async def _command_clear(self, arguments: str) -> None:
        from agentui.core.frontend import SessionRequest

        self.transcript.clear()
        self.status.set(title="", tokens_in=0, tokens_out=0, cost_usd=0.0, context_percent=None)
        if self.launch is not None:
            await self._open(SessionRequest())
            self.say("New session started; the previous one is saved (/resume brings it back).")

    async def _command_compact(self, arguments: str) -> None:
        if self.conversation is None:
            return
        conversation = self.conversation
        if conversation.running:
            self.say("The agent is working; /compact once it has finished (or press Esc).", "warning")
            return
        self.run_worker(conversation.compact(arguments or None), group="run", exit_on_error=False)

    async def _command_memory(self, arguments: str) -> None:
        files = self.conversation.memory_files if self.conversation else []
        if not files:
            self.say(
                "No memory files are loaded. Add instructions to CLAUDE.md in the project (#note adds a line), "
                "or to ~/.claude/CLAUDE.md for every project."
            )
            return
        lines = [
            f"- {f.path} ({f.kind}{', imported by ' + str(f.imported_by) if f.imported_by else ''}, "
            f"{len(f.text):,} characters)"
            for f in files
        ]
        self.say("Memory files the model reads, in order:\n" + "\n".join(lines))

    async def _command_mcp(self, arguments: str) -> None:
        hub = self.conversation.mcp if self.conversation else None
        if hub is None or not hub.servers:
            self.say(
                "No MCP servers are in use. Configure them in .mcp.json (approved in your settings), "
                "~/.claude.json, or with --mcp-config."
            )
            return
        lines = []
        for server in hub.servers:
            if server.state == "connected":
                names = ", ".join(tool.name for tool in server.tools) or "no tools"
                lines.append(f"- {server.name} ({server.config.scope}): connected, {len(server.tools)} tools: {names}")
            else:
                lines.append(
                    f"- {server.name} ({server.config.scope}): {server.state}"
                    f"{' — ' + server.error if server.error else ''} (log: {server.log_path})"
                )
        self.say("MCP servers:\n" + "\n".join(lines))

    async def _command_resume(self, arguments: str) -> None:
        from agentui.core.frontend import SessionRequest

        if arguments:
            await self._open(SessionRequest(resume=arguments))
        else:
            self.action_resume_picker()

    def _no_model_help(self) -> str:
        from agentui.core.frontend import config_dir

        config = config_dir(self._env) / "config.json"
        example = '{"provider": "openai", "base_url": "http://127.0.0.1:11434/v1", "model": "qwen2.5-coder"}'
        return (
            f"{self.problem or 'No model is configured.'}\nOr write {config}, for example {example}, "
            "and start agentui again."
        )

    async def _command_model(self, arguments: str) -> None:
        if self.conversation is None:
            self.say(self._no_model_help(), "warning")
            return
        if arguments:
            self.conversation.set_model(arguments)
            self.status.set(model=arguments)
            self.say(f"Model set to {arguments} for the next requests.")
        else:
            self.say(f"Model: {self.conversation.model} ({self.launch.settings.provider if self.launch else ''}).")

    async def _command_cost(self, arguments: str) -> None:
        if self.conversation is None:
            return
        usage, cost = self.conversation.usage
        self.say(
            f"This session: {usage.input_tokens:,} input, {usage.cache_creation_input_tokens:,} cache write, "
            f"{usage.cache_read_input_tokens:,} cache read, {usage.output_tokens:,} output tokens; "
            f"about ${cost:.4f} at list prices."
        )

    async def _command_permissions(self, arguments: str) -> None:
        if self.conversation is None:
            return
        conversation = self.conversation
        behavior, _, rule = arguments.partition(" ")
        if behavior in ("allow", "deny", "ask") and rule.strip():
            try:
                path = conversation.add_rule(behavior, rule.strip())  # type: ignore[arg-type]
            except ValueError as exc:  # (RuleError: the rule does not parse)
                self.say(f"{exc}.", "error")
                return
            self.say(f"Added {behavior} rule {rule.strip()} (saved to {path}).")
            return
        lines = [f"Mode: {conversation.mode} (Shift+Tab cycles)."]
        for kind in ("deny", "ask", "allow"):
            rules = [f"{text} [{source}]" for behavior_, text, source in conversation.rules() if behavior_ == kind]
            lines.append(f"{kind}: " + (", ".join(rules) if rules else "none"))
        lines.append("Add one with /permissions allow|deny|ask <rule>, e.g. /permissions allow Bash(npm test:*).")
        self.say("\n".join(lines))

    async def _command_theme(self, arguments: str) -> None:
        if not arguments:
            self.say("Themes: " + ", ".join(sorted(self.available_themes)) + f" (now {self.theme}).")
            return
        if arguments not in self.available_themes:
            self.say(f"There is no theme {arguments!r}; /theme lists them.", "warning")
            return
        self.theme = arguments
        from agentui.core.frontend import ConfigError, save_config_value

        try:
            save_config_value("theme", arguments, self._env)
        except (ConfigError, OSError) as exc:
            self.say(f"Theme set, but it could not be remembered: {exc}", "warning")
            return
        self.say(f"Theme set to {arguments}.")

    async def _command_init(self, arguments: str) -> None:
        self._send(INIT_PROMPT + (f"\n\n{arguments}" if arguments else ""))

    async def _command_export(self, arguments: str) -> None:
        if self.conversation is None:
            return
        messages = self.conversation.messages
        if not messages:
            self.say("There is nothing to export yet: this conversation is empty.", "warning")
            return
        if arguments:  # a name given is relative to the project, as typed
            path = Path(arguments) if Path(arguments).is_absolute() else self.conversation.project.root / arguments
        else:  # else out of the project, where it would be committed by accident
            from agentui.core.frontend import data_dir

            name = f"{self.conversation.project.root.name}-{datetime.now():%Y%m%d-%H%M%S}-"
            path = data_dir(self._env) / "exports" / f"{name}{self.conversation.session_id[:8]}.md"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(export_markdown(messages), encoding="utf-8")
        except OSError as exc:
            self.say(f"The conversation could not be exported ({exc.strerror or exc}).", "error")
            return
        self.say(f"Exported to {path}.")

    async def _command_quit(self, arguments: str) -> None:
        await self._quit()

    # Keys

    def action_interrupt(self) -> None:
        """Esc: stop the run, if one is going, and bring the keys back to the prompt."""
        if self.conversation is not None:
            self.conversation.interrupt()
        self.prompt_input.focus()

    def action_find(self) -> None:
        """Ctrl+F: find text in the transcript."""
        from agentui.tui.screens.transcript_search import TranscriptSearch

        self._found = []
        self._found_at = -1
        self.push_screen(TranscriptSearch(self._find), lambda _: self._unmark())

    def _find(self, text: str, again: bool) -> str:
        """Scroll to the newest part of the transcript holding `text` (with `again`, the next one up) and mark it;
        the search's title says where it is."""
        self._unmark()
        if not text.strip():
            self._found = []
            return "Find"
        if not again or not self._found:
            needle = text.lower()
            self._found = [w for w in reversed(self.transcript.children) if needle in _searchable(w).lower()]
            self._found_at = -1
        if not self._found:
            return "Find: no match"
        self._found_at = (self._found_at + 1) % len(self._found)
        widget = self._found[self._found_at]
        widget.add_class("-found")
        self.transcript.scroll_to_widget(widget, animate=False, top=True)
        return f"Find: match {self._found_at + 1} of {len(self._found)}, newest first"

    def _unmark(self) -> None:
        for widget in self.transcript.query(".-found"):
            widget.remove_class("-found")

    def action_search_history(self) -> None:
        """Ctrl+R: pick an earlier prompt of this project into the prompt."""
        from agentui.tui.screens.history_search import HistorySearch

        def picked(text: str | None) -> None:
            if text is not None:
                self.prompt_input.text = text
                self.prompt_input.move_cursor(self.prompt_input.document.end)
            self.prompt_input.focus()

        self.push_screen(HistorySearch(self.history.entries), picked)

    def call_attention(self, message: str) -> None:
        """When the terminal is not in focus (the person is in another window): the bell, and a desktop
        notification where the terminal shows one (OSC 777 for foot, rxvt, Ghostty; OSC 9 for iTerm2, Windows
        Terminal, WezTerm, kitty); terminals that know neither ignore them."""
        if self.app_focus:
            return
        self.bell()
        if self._driver is not None:
            text = message.replace("\x1b", "").replace("\x07", "").replace(";", ",")
            self._driver.write(f"\x1b]777;notify;agentui;{text}\x07\x1b]9;agentui: {text}\x07")

    def action_copy(self) -> None:
        """Ctrl+O: the focused tool block's output (or its diff), else the last answer, as its raw Markdown: through
        the terminal (OSC 52), with no wrapping or borders in it."""
        focused = self.focused
        if isinstance(focused, ToolBlock) and focused.copy_text:
            text, what = focused.copy_text, f"the {focused.tool_name} result"
        else:
            from agentui.tui.widgets.answer import AssistantText

            answers = [w for w in self.transcript.query(AssistantText) if w.source.strip()]
            if not answers:
                self.say("There is nothing to copy yet.", "warning")
                return
            text, what = answers[-1].source, "the last answer"
        self.copy_to_clipboard(text)
        lines = text.count("\n") + 1
        self.notify(f"Copied {what} ({lines} line{'' if lines == 1 else 's'}).", timeout=3)

    def action_scroll_transcript(self, where: str) -> None:
        transcript = self.transcript
        if where == "page_up":
            transcript.scroll_page_up(animate=False)
        elif where == "page_down":
            transcript.scroll_page_down(animate=False)
        elif where == "home":
            transcript.scroll_home(animate=False)
        else:
            transcript.scroll_end(animate=False)
            transcript.anchor()  # at the end again: follow what arrives

    def on_key(self, event: events.Key) -> None:
        """A character typed while focus is elsewhere (a tool block, the transcript) goes to the prompt, with the
        focus: typing is never lost."""
        if (
            event.is_printable
            and event.character
            and len(self.screen_stack) == 1
            and self.focused is not self.prompt_input
        ):
            event.stop()
            self.prompt_input.focus()
            self.prompt_input.insert(event.character)

    async def action_quit_twice(self) -> None:
        now = time.monotonic()
        if now - self._quit_armed_at <= QUIT_WINDOW:
            await self._quit()
            return
        self._quit_armed_at = now
        self.status.set(hint="Press Ctrl+C again to quit")
        self.set_timer(QUIT_WINDOW, lambda: self.status.set(hint=""))

    async def _quit(self) -> None:
        await self._close()
        self.exit(return_code=0)

    def action_clear_view(self) -> None:
        self.transcript.clear()

    def action_cycle_mode(self) -> None:
        if self.conversation is None:
            return
        mode = self.conversation.cycle_mode()
        self.status.set(mode=mode)
        self.say(f"Permission mode: {mode} — {MODE_MEANINGS.get(mode, '')}")

    def action_resume_picker(self, new_if_none: SessionRequest | None = None) -> None:
        from agentui.core.frontend import SessionRequest, list_sessions, project_dir
        from agentui.tui.screens.picker import SessionPicker

        root = self._project.root if self._project else Path.cwd()
        sessions = list_sessions(project_dir(root, self._env))

        async def chosen(path: Path | None) -> None:
            if path is not None:
                self.transcript.clear()
                await self._open(SessionRequest(resume=str(path)))
            elif new_if_none is not None:
                await self._open(replace(new_if_none, resume=None))
            self.prompt_input.focus()

        self.push_screen(SessionPicker(sessions), chosen)

    # History on screen

    def _show_history(self, messages: list[Message], details: dict[str, dict[str, Any]]) -> None:
        from agentui.core.frontend import is_summary
        from agentui.core.messages import TextBlock, ToolResultBlock, ToolUseBlock
        from agentui.tui.widgets.answer import AssistantText, CompactionMark

        # What would be shown, newest last, as cheap tuples; widgets are made only for the part the transcript
        # keeps, so a resumed session of thousands of turns costs what its last few hundred blocks cost.
        shown: list[tuple[str, Any]] = []
        for message in messages:
            if is_summary(message):
                shown.append(("summary", message.text))
                continue
            for block in message.content:
                if isinstance(block, TextBlock) and block.text.strip():
                    if message.role == "user" and block.text.startswith("[Request interrupted by user"):
                        shown.append(("notice", "Interrupted."))
                    elif message.role == "user" and (record := _shell_record(block.text)) is not None:
                        shown.append(("shell", record))
                    else:
                        shown.append(("prompt" if message.role == "user" else "answer", block.text))
                elif isinstance(block, ToolUseBlock):
                    shown.append(("tool", block))
        keep = HISTORY_SHOWN  # the latest turns: a screenful and well beyond, not the whole session at once
        earlier, shown = max(0, len(shown) - keep), shown[-keep:]
        results = {b.tool_use_id: b for m in messages for b in m.content if isinstance(b, ToolResultBlock)}
        cwd = self.conversation.project.root if self.conversation else None
        widgets: list[Any] = [Notice(f"{earlier:,} earlier parts of this session are not shown.")] if earlier else []
        finishing = []
        for kind, item in shown:
            if kind == "summary":
                widgets.append(CompactionMark(_summary_text(item)))
            elif kind == "notice":
                widgets.append(Notice(item))
            elif kind == "shell":
                command, output = item
                widgets.append(UserPrompt(f"! {command}", context=True))
                own = ToolBlock(f"shell-{len(widgets)}", "Bash", cwd)
                own.set_arguments({"command": command})
                widgets.append(own)
                finishing.append((own, ToolResultBlock(tool_use_id=own.tool_call_id, content=output)))
            elif kind == "prompt":
                widgets.append(UserPrompt(item))
            elif kind == "answer":
                widgets.append(AssistantText(item))
            else:
                tool = ToolBlock(item.id, item.name, cwd)
                tool.set_arguments(item.input)
                widgets.append(tool)
                if (result := results.get(item.id)) is not None:
                    finishing.append((tool, result))
        self.transcript.add_all(widgets)
        todo_calls = [b for m in messages for b in m.content if isinstance(b, ToolUseBlock) and b.name == "TodoWrite"]
        if todo_calls:  # the task list as it was left
            self.todos.show_todos(todo_calls[-1].input.get("todos") or [])
        for tool, result in finishing:
            tool.call_after_refresh(tool.finish, result.content, result.is_error, details.get(result.tool_use_id, {}))

    # Themes and failures

    def _load_themes(self) -> None:
        themes, problems = load_themes(self._env)
        for theme in themes:
            self.register_theme(theme)
        wanted = remembered_theme(self._env)
        self.theme = wanted if wanted in self.available_themes else DEFAULT_THEME
        for problem in problems:
            self.call_later(self.say, problem, "warning")

    @property
    def crash_report(self) -> str:
        """What Textual wrote after an unhandled error ended the app (its traceback), or ""."""
        return self._crash_report.getvalue()


def export_markdown(messages: list[Message]) -> str:
    """The conversation as Markdown: prompts, answers, and each tool call as a line."""
    from agentui.core.messages import TextBlock, ToolUseBlock

    parts = []
    for message in messages:
        for block in message.content:
            if isinstance(block, TextBlock) and block.text.strip():
                parts.append(f"## {'You' if message.role == 'user' else 'Assistant'}\n\n{block.text}\n")
            elif isinstance(block, ToolUseBlock):
                from agentui.tui.widgets.tool_block import call_summary

                parts.append(f"> **{block.name}** `{call_summary(block.name, block.input)}`\n")
    return "\n".join(parts)


def _searchable(widget: Any) -> str:
    """The text of a transcript part as a search sees it (the source of an answer, a block's call and result)."""
    for attribute in ("source", "text", "message"):
        value = getattr(widget, attribute, None)
        if isinstance(value, str):
            return value
    if isinstance(widget, ToolBlock):
        return widget.search_text
    return ""


def _file_rank(path: str, typed: str) -> tuple[int, bool, int, str]:
    """Best first: the file's name starts with what was typed, then a directory's does, then it is in the name,
    then anywhere; within each, visible before hidden, shorter before longer."""
    lowered = path.lower()
    name = lowered.rsplit("/", 1)[-1]
    if name.startswith(typed):
        rank = 0
    elif any(part.startswith(typed) for part in lowered.split("/")[:-1]):
        rank = 1
    elif typed in name:
        rank = 2
    else:
        rank = 3
    hidden = any(part.startswith(".") for part in lowered.split("/"))
    return rank, hidden, len(path), path


_SHELL_RECORD = re.compile(r"^<bash-input>(.*?)</bash-input>\s*(?:<bash-stdout>(.*?)</bash-stdout>)?", re.DOTALL)


def _shell_record(text: str) -> tuple[str, str] | None:
    """A `!command` as the session holds it (Claude Code's `<bash-input>` and `<bash-stdout>` tags): the command and
    its output, or None for any other text."""
    found = _SHELL_RECORD.match(text)
    return (found[1], found[2] or "") if found else None


def _summary_text(text: str) -> str:
    from agentui.core.frontend import SUMMARY_PREFIX

    return text.removeprefix(SUMMARY_PREFIX)
