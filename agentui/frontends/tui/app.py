"""The app a person works in: the screen, start-up, the prompt and the keys. The conversation on screen (events to
widgets) is `ConversationView`, slash commands are `slash_commands`, permission questions `PermissionQueue`, the way
from the launch to an open conversation `AppOpening`, the app's own keys `AppKeys`.

What flows back to the engine goes through the conversation's commands (agentui.api): a prompt, a permission
decision, an interrupt, a mode."""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console, RenderableType
from textual import work
from textual._compositor import CompositorUpdate
from textual.containers import Vertical

from agentui import __version__
from agentui.frontends.tui import textual_cycles
from agentui.frontends.tui.app_keys import SHELL_GROUP
from agentui.frontends.tui.app_opening import AppOpening
from agentui.frontends.tui.clipboard import Copier
from agentui.frontends.tui.collector import CollectorPolicy, collector_held
from agentui.frontends.tui.completions import completions
from agentui.frontends.tui.conversation_view import ConversationView
from agentui.frontends.tui.frame_writer import FrameWriter, redrawn_after_suspends
from agentui.frontends.tui.history import PromptHistory, history_file
from agentui.frontends.tui.key_order import KeysInOrder
from agentui.frontends.tui.limit_resume import go_on_after_limit
from agentui.frontends.tui.permission_queue import PermissionQueue
from agentui.frontends.tui.screens.main import MainScreen
from agentui.frontends.tui.status_line_driver import StatusLineDriver
from agentui.frontends.tui.terminal_driver import WritesFramesDirectly
from agentui.frontends.tui.terminal_text import show_controls, visible_update
from agentui.frontends.tui.themes import apply_themes
from agentui.frontends.tui.type_ahead import hold_problem
from agentui.frontends.tui.widgets.prompt_input import Completion, CompletionList, PromptInput
from agentui.frontends.tui.widgets.status_bar import StatusBar
from agentui.frontends.tui.widgets.todo_panel import TodoPanel
from agentui.frontends.tui.widgets.transcript import Notice, Transcript

if TYPE_CHECKING:  # the engine is imported after the first frame (see _load_engine), not with the app
    from textual.screen import Screen

    from agentui.api import (
        Conversation,
        CustomCommand,
        Launch,
        LoadedSession,
        Provider,
        SessionRequest,
    )
    from agentui.api.events import Subscription
    from agentui.api.messages import ImageBlock

log = logging.getLogger(__name__)

Prepare = Callable[[], "tuple[Launch | None, str | None]"]
"""Resolves what to launch (settings, permissions, session) once the first frame is up; (None, why) if it cannot."""


class AgentApp(AppOpening, KeysInOrder, WritesFramesDirectly):
    TITLE = "agentui"
    ENABLE_COMMAND_PALETTE = False
    view: ConversationView
    permissions: PermissionQueue
    status_line: StatusLineDriver

    def __init__(
        self,
        launch: Launch | None,
        *,
        problem: str | None = None,
        provider_factory: Callable[[], Provider] | None = None,
        env: dict[str, str] | None = None,
        first_prompt: str | None = None,
        prepare: Prepare | None = None,
        resuming: Callable[[], SessionRequest] | None = None,
        cwd: Path | None = None,
    ) -> None:
        textual_cycles.apply()  # (before anything is drawn)
        show_controls()  # (ESC and C1 controls in text are drawn as \xNN: terminal_text.py)
        super().__init__()
        self.collector = CollectorPolicy()
        self.frames = FrameWriter()
        """What the terminal shows, so that each frame writes only what changed."""
        self.launch = launch
        self.problem = problem
        self.env = env
        self._prepare = prepare
        self._resuming = resuming
        """With `prepare`: the session the launch will ask for, known before the launch is resolved."""
        self._cwd = launch.cwd if launch else (cwd or Path.cwd())
        self._provider_factory = provider_factory
        self._waiting = [first_prompt] if first_prompt else []
        self._starting = prepare is not None
        # An unhandled error ends the app through Textual's own handler (return code 1), which prints a traceback to
        # `error_console` once the terminal is restored: it is kept here instead, for run_app to turn into one
        # sentence and the log. (Under Pilot, Textual re-raises the error in the test, as it should.)
        self._crash_report = io.StringIO()
        self.error_console = Console(file=self._crash_report, width=120, color_system=None, highlight=False)
        self._previewed: LoadedSession | None = None
        self._subscription: Subscription | None = None
        self.handles_signals = False  # (see tui/signals.py; set by `run_app`, never in a test's process)
        self.ended_by: int | None = None
        self.custom_commands: dict[str, CustomCommand] = {}
        self.chosen_model: str | None = None
        """What /model was given last (a conversation opened after it uses it too)."""
        self.permissions = PermissionQueue(self)
        self.history = PromptHistory(history_file(self._cwd, env))
        # Widgets are held by reference, not queried: App.query_one searches the screen on top, and events keep
        # arriving while a question is still showing.
        self.transcript = Transcript(id="transcript")
        self.status = StatusBar()
        self.status_line = StatusLineDriver(self)
        """The settings' statusLine command, run as the conversation changes; its line is drawn under the prompt."""
        self.status.on_set = self.status_line.status_set
        self.view = ConversationView(self, self.transcript, self.status, TodoPanel())
        completion_list = CompletionList()
        self.prompt_input = PromptInput(self.history, completion_list, self.completions)
        self.prompt_input.busy = self.something_runs
        below = Vertical(self.status_line.bar, self.status, id="below-prompt")
        others = (self.view.pending, self.view.todos, completion_list, below)
        window = self.view.history
        self.main = MainScreen(self.transcript, window, self.prompt_input, self.history, Copier(self), *others)
        self.transcript.on_moved = window.near

    def _display(self, screen: Screen[object], renderable: RenderableType | None) -> None:
        # Textual's update, written as the cells that changed (frame_writer.py); an inline app writes its own way.
        # Every frame passes here: no control character in its text reaches the terminal (terminal_text.py).
        if isinstance(renderable, CompositorUpdate):
            renderable = visible_update(renderable)
        if isinstance(renderable, CompositorUpdate) and not self.is_inline:
            renderable = self.frames.update(renderable, *self.size)
        super()._display(screen, renderable)

    def redraw(self) -> None:
        self.frames.forget()
        self.refresh(repaint=True)

    def get_default_screen(self) -> MainScreen:
        return self.main

    @property
    def conversation(self) -> Conversation | None:
        return self.view.conversation

    @property
    def cwd(self) -> Path:
        return self.launch.cwd if self.launch is not None else self._cwd

    def say(self, message: str, level: str = "info") -> None:
        self.transcript.add(Notice(message, level))

    def completions(self, before_cursor: str) -> list[Completion]:
        return completions(before_cursor, self.custom_commands, self.conversation)

    def on_mount(self) -> None:
        if self.handles_signals:
            from agentui.frontends.tui.signals import end_on_signals

            end_on_signals(self)
        for problem in [*apply_themes(self, self.env), hold_problem(self.env)]:
            if problem:
                self.call_later(self.say, problem, "warning")
        # Once the main screen's widgets are mounted; as a worker of its own, so that the app's messages (a refresh,
        # a key) go on being handled while start-up waits for the session and the engine.
        self.call_after_refresh(lambda: self.run_worker(self._startup(), group="startup"))
        redrawn_after_suspends(self, self.frames)

    async def _startup(self) -> None:
        self.prompt_input.focus()
        self.say(f"agentui {__version__} — type a request; /help for keys and commands.")
        # The screen is up and takes input now; what is typed meanwhile waits for the conversation.
        try:
            # A resumed session's latest turns come first, before the settings and the engine have even loaded.
            if self._resuming is not None:
                request = await asyncio.to_thread(self._resuming)
                self._previewed = await self.view.preview(request, self._cwd, self.env)
            if self._prepare is not None:
                self.launch, self.problem = await asyncio.to_thread(self._prepare)
            if self.launch is not None and self._resuming is None:
                self._previewed = await self.view.preview(self.launch.session, self._cwd, self.env)
            await asyncio.to_thread(_load_engine)
            self.prompt_input.set_editor_mode(await asyncio.to_thread(_editor_mode, self._cwd, self.env) == "vim")
        except Exception as exc:  # a broken install or launch: one sentence, the app stays open
            log.exception("start-up failed")
            self.say(f"agentui could not start its engine: {type(exc).__name__}: {exc}.", "error")
            return
        finally:
            self._starting = False
        # What is loaded by now (modules, classes, the screen) lives as long as the app (collector.py).
        self.collector.start(asyncio.get_running_loop())
        await self._open_project()
        self.run_worker(asyncio.to_thread(_warm_highlighting), group="warm", exit_on_error=False)

    # Conversations

    async def open_conversation(self, request: SessionRequest) -> None:
        assert self.launch is not None
        await self._close()
        previewed, self._previewed = self._previewed, None
        previewed = previewed or await self.view.preview(request, self._cwd, self.env)
        with collector_held():
            conversation = await self._load(request, previewed)
        if conversation is None:
            return
        waiting, self._waiting = self._waiting, []
        for text in waiting:
            await self.submit(text)
        if not waiting:  # (a session resumed in the middle of a limit wait goes on with it)
            go_on_after_limit(self, conversation)

    async def _load(self, request: SessionRequest, previewed: LoadedSession | None) -> Conversation | None:
        """The conversation `request` opens, its resumed history shown; None if it could not be opened (a new one is
        opened in its place)."""
        from agentui.api import ProjectError, SessionError, SessionRequest
        from agentui.api import open_conversation as open_one

        assert self.launch is not None
        problems: list[str] = []
        try:  # (on a worker thread: a long session takes a while to load, and the screen stays usable)
            conversation = await asyncio.to_thread(
                open_one,
                replace(self.launch, session=request, answers_elicitation=True),  # (the person answers servers)
                project=self._project,
                provider=self._provider_factory() if self._provider_factory else None,
                on_error=problems.append,
                env=self.env,
            )
        except (SessionError, ProjectError) as exc:
            self.view.drop_preview()  # (a session that is locked by another agentui, say: it is not the one open)
            self.say(str(exc), "error")
            if request != SessionRequest():
                await self.open_conversation(SessionRequest())  # keep working, in a new session
            return None
        for problem in problems:
            self.say(problem, "warning")
        return await self._adopt(conversation, previewed)

    async def _adopt(self, conversation: Conversation, previewed: LoadedSession | None = None) -> Conversation:
        """The conversation on screen from now on: its resumed history shown, its events drawn, the status bar
        its."""
        assert self.launch is not None  # (a conversation comes from a launch)
        history = await self.view.read_resumed(conversation)  # (before a prompt can be sent, which would join it)
        self.view.conversation = conversation
        self._subscription = conversation.subscribe()
        self._consume(self._subscription)
        self.view.start_mcp(conversation)
        if (resumed := conversation.resumed) is not None:
            same = previewed is not None and previewed.leaf_uuid == resumed.leaf_uuid
            self.view.show_history(history, drawn=same)
            self.say(f"Resumed {resumed.title or resumed.session_id} ({resumed.message_lines} messages).")
        self.view.todos.show_tasks(conversation.tasks)
        self.prompt_input.offer_completions()  # (`@` typed while the project opened has its files to offer now)
        title = resumed.title if resumed and resumed.title else ""
        from agentui.api import thinking_budget

        alias = self.launch.settings.model_alias or ""
        if self.chosen_model is not None:  # (a /model choice outlasts /clear and /resume, as Claude Code's does)
            alias = conversation.set_model(self.chosen_model).alias or ""
        self.status.set(
            model=conversation.model,
            alias=alias,
            provider=self.launch.settings.provider,
            mode=conversation.mode,
            title=title,
            thinking=thinking_budget(conversation) is not None,
        )
        self.status_line.start(conversation)
        from agentui.api import verbose_output

        self.view.verbose = verbose_output(conversation)
        return conversation

    async def on_unmount(self) -> None:
        self.collector.stop()
        await self._close()  # however the app ends, the session file is synced and released

    async def _close(self) -> None:
        self.status_line.stop()
        if self._subscription is not None:
            self._subscription.close()
            self._subscription = None
        if (conversation := self.conversation) is not None:
            self.view.reset()
            await conversation.aclose()

    @work(group="events", exclusive=True)
    async def _consume(self, subscription: Subscription) -> None:
        async for event in subscription:
            try:
                await self.view.route(event)
                self.status_line.saw(event)
            except Exception:  # one odd event must never take the screen down
                log.exception("showing %s failed", event.type)

    # The prompt

    async def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        # Whatever was being read further up, what this prompt brings (its questions above all) is at the end.
        self.main.action_scroll_transcript("end")
        await self.submit(message.text, message.images)

    async def submit(self, typed: str, images: Sequence[ImageBlock] = ()) -> None:
        """What the person sent: a command, a shell command, a note, or a prompt."""
        from agentui.frontends.tui.slash_commands import remember, run_command

        text = typed.strip()
        waits = text.startswith("!") or (text.startswith("/") and text.split()[0] not in ("/help", "/quit"))
        if waits and self.conversation is None and self._will_open():
            self._waiting.append(typed)  # typed during start-up: it runs once the conversation is open
        elif text.startswith("/"):
            await run_command(self, text)
        elif text.startswith("!"):
            if command := text[1:].strip():  # (a worker: the keys still work while it runs, and stop it)
                self.run_worker(self.view.run_shell(command), group=SHELL_GROUP, exit_on_error=False)
        elif text.startswith("#"):
            remember(self, text[1:].strip())
        else:
            self.send(typed, images)

    def send(self, text: str, images: Sequence[ImageBlock] = ()) -> None:
        if (conversation := self.conversation) is None:
            self.hold(text)
        elif conversation.running and self.view.ending:
            self.view.after_the_run(text)
        elif conversation.running:
            conversation.steer(text, images)
            self.view.steering(text)
        elif self.launch is not None and self.launch.idle_rotate:
            self.run_worker(self._send_after_idle(conversation, text, images), group="run", exit_on_error=False)
        else:
            self.run_worker(conversation.send(text, images), group="run", exit_on_error=False)

    async def _send_after_idle(self, conversation: Conversation, text: str, images: Sequence[ImageBlock]) -> None:
        """--idle-rotate: a prompt after a longer idle gap goes on in a new session, which carries a summary of this
        one (the transcript above stays, as it was)."""
        from agentui.api import rotate_if_idle

        fresh = await rotate_if_idle(conversation)  # (None unless it sat idle that long: then a summary is made)
        if fresh is not None:
            await self._close()
            conversation = await self._adopt(fresh)
            self.say(f"Idle longer than --idle-rotate: a new session ({fresh.session_id}) goes on from a summary.")
        await conversation.send(text, images)

    # Keys

    async def quit_now(self) -> None:
        await self._close()
        self.exit(return_code=0)

    @property
    def crash_report(self) -> str:
        """What Textual wrote after an unhandled error ended the app (its traceback), or ""."""
        return self._crash_report.getvalue()


def _editor_mode(cwd: Path, env: dict[str, str] | None) -> str:
    """Claude Code's `editorMode` setting ("vim" or "normal"), read on a worker thread with the engine."""
    from agentui.api import editor_mode

    return editor_mode(cwd, env)


def _warm_highlighting() -> None:
    from agentui.frontends.tui.widgets.markdown_lines import warm_highlighting

    try:
        warm_highlighting()
    except Exception:  # (only a head start: the first code block loads what it needs itself)
        log.exception("warming the highlighter failed")


def _load_engine() -> None:
    """On a worker thread, so the first frame never waits for it."""
    # Imported for their cost, here and not when the first prompt or question needs them.
    import agentui.frontends.tui.screens.permission
    import agentui.frontends.tui.widgets.answer  # noqa: F401  (Markdown, for the first answer)
    from agentui.api import Conversation  # noqa: F401  (the engine: pydantic models, providers, tools)
