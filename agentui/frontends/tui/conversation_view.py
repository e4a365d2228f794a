"""The conversation on screen: routes each engine event to its widget in the transcript, owns the widgets of the
message being streamed, the steering messages waiting to be read, and the history of a resumed session."""

from __future__ import annotations

import asyncio
import gc
import time
from typing import TYPE_CHECKING, Any, Literal, assert_never

from textual.content import Content
from textual.widgets import Static

from agentui.frontends.tui.attention import call_attention
from agentui.frontends.tui.history_view import (
    INIT_PROMPT,
    History,
    Result,
    kept_result,
    prompt_text,
    read_history,
    shell_record,
    summary_text,
)
from agentui.frontends.tui.history_window import HistoryWindow
from agentui.frontends.tui.widgets.status_bar import StatusBar, model_shares
from agentui.frontends.tui.widgets.todo_panel import TodoPanel
from agentui.frontends.tui.widgets.tool_block import ToolBlock
from agentui.frontends.tui.widgets.transcript import Notice, Transcript, UserPrompt

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from textual.widget import Widget

    from agentui.api import Conversation, LoadedSession, SessionRequest
    from agentui.api import events as ev
    from agentui.api.events import (
        AgentEnd,
        BackgroundAgentUpdate,
        BackgroundShellUpdate,
        CompactionEnd,
        ContentBlockEnd,
        ContextAdvisory,
        Event,
        LimitWait,
        MessageEnd,
        Retry,
        ToolStart,
        UserMessage,
    )
    from agentui.api.messages import Message
    from agentui.frontends.tui.host import AppHost
    from agentui.frontends.tui.widgets.answer import AssistantText, ThinkingView

SETTLE_SECONDS = 0.3
MODE_MEANINGS = {
    "default": "edits and commands ask first",
    "acceptEdits": "file edits in the project go ahead; commands still ask",
    "plan": "read-only: the agent looks and plans, and changes nothing",
    "bypassPermissions": "everything goes ahead except what deny rules forbid",
}


class ConversationView:
    def __init__(self, app: AppHost, transcript: Transcript, status: StatusBar, todos: TodoPanel) -> None:
        self.app = app
        self.transcript = transcript
        self.status = status
        self.todos = todos
        self.pending = Static("", id="pending")
        """Messages typed while the agent works, until the model has read them."""
        self.conversation: Conversation | None = None
        self.branch_listener: Callable[[Event], None] | None = None
        """Where the events of parallel attempts go (their screen), instead of the transcript."""
        # Keyed by the order of message_start events, not by message id: a server may repeat ids.
        self._texts: dict[tuple[int, int], AssistantText] = {}
        self._thinking: dict[tuple[int, int], ThinkingView] = {}
        self._tools: dict[str, ToolBlock] = {}
        self._message_widgets: dict[int, list[Any]] = {}
        self._message = 0
        self._pending: list[str] = []
        self.ending = False
        """The person has ended the run (Esc, Ctrl+C, a plain No) and the engine has not yet said it ended: what they
        send meanwhile is the next prompt, not steering for a run that will not read it."""
        self._next_prompts: list[str] = []
        self._expanding = False
        """A custom command as typed was just shown: the prompt it expanded to, which comes next, is not."""
        self.history = HistoryWindow(transcript, lambda: self._cwd)
        """A resumed session's parts, and the live ones old enough, drawn as the reader comes near them."""
        transcript.retire = self._retire
        self._previewed_in: Path | None = None
        self.verbose = False
        """Claude Code's verbose output: every tool's result and the model's thinking open as they come."""

    def say(self, message: str, level: str = "info") -> None:
        self.transcript.add(Notice(message, level))

    def tool(self, tool_call_id: str) -> ToolBlock | None:
        """The block of a call of the message being streamed (a permission question marks it)."""
        return self._tools.get(tool_call_id)

    def reset(self) -> None:
        """The conversation closed: nothing routes to its widgets any more."""
        self.conversation = None
        self.ending, self._next_prompts = False, []
        self.history.forget()
        self._forget_message()
        self.todos.show_tasks([])

    def _background_shell(self, event: BackgroundShellUpdate) -> None:
        """A line in the transcript when a background shell ends (its start shows in the Bash call's block)."""
        what = event.description or event.command
        match event.status:
            case "completed":
                self.say(f"Background shell {event.shell_id} ({what}) finished.")
            case "failed":
                self.say(
                    f"Background shell {event.shell_id} ({what}) failed with exit code {event.exit_code}.", "warning"
                )
            case "killed":
                self.say(f"Background shell {event.shell_id} ({what}) was stopped.")
            case "running":
                pass

    def _background_agent(self, event: BackgroundAgentUpdate) -> None:
        """A line in the transcript when a background sub-agent ends (its launch shows in the Agent call's block)."""
        said = {"completed": "finished", "failed": "failed", "killed": "was stopped"}.get(event.status)
        if said is not None:  # (not while it waits for a slot or runs)
            self.say(f"Background agent {event.task_id} ({event.description}) {said}.", "info")

    def _forget_message(self) -> None:
        self._texts.clear()
        self._thinking.clear()
        self._tools.clear()
        self._message_widgets.clear()

    def steering(self, text: str) -> None:
        """A message sent while the agent works: shown as waiting until the model reads it."""
        self._pending.append(text)
        self._show_pending()

    def after_the_run(self, text: str) -> None:
        """A prompt sent after the person ended the run, before it has ended: sent once it has."""
        self._next_prompts.append(text)
        self.steering(text)

    def _give_back(self, event: AgentEnd) -> None:
        """What the run ended without reading goes back into the prompt (as Claude Code gives queued messages back
        on an interrupt); what was sent after the person ended it goes out now, as the next prompt."""
        from agentui.api.messages import typed_command

        unsent, expanding = [], False
        for text in event.unsent:  # (a custom command sent while the run went on: as typed, not its expansion)
            if (typed := typed_command(text)) is not None:
                unsent.append(typed)
            elif not expanding:
                unsent.append(text)
            expanding = typed is not None
        self.ending, nexts, self._next_prompts = False, self._next_prompts, []
        self._pending = [text for text in self._pending if text not in event.unsent and text not in nexts]
        self._show_pending()
        if unsent:
            prompt = self.app.prompt_input
            prompt.text = "\n\n".join([*unsent, *([prompt.text] if prompt.text.strip() else [])])
            prompt.move_cursor(prompt.document.end)
            self.say("The run ended before the model read what you sent meanwhile; it is back in the prompt.")
        if nexts:
            self.app.send("\n\n".join(nexts))

    def _show_pending(self) -> None:
        self.pending.update(Content("\n".join(f"⏳ {text.splitlines()[0][:100]}" for text in self._pending)))
        self.pending.display = bool(self._pending)

    # Events -> widgets

    async def route(self, event: Event) -> None:
        from agentui.api import events as ev  # (loaded with the engine, after the first frame)

        status = self.status
        if event.loop_id is not None:  # a parallel attempt's: its own screen shows it; the person answers its asks
            if isinstance(event, ev.PermissionRequest):
                self.app.permissions.ask(event)
            if self.branch_listener is not None:
                self.branch_listener(event)
            return
        match event:  # what streams from the model, and what starts and ends waiting for it, sets the quiet clock
            case ev.TextDelta():
                status.waiting_since = time.monotonic()
                self._text(event.index).add(event.text)
            case ev.ThinkingDelta():
                status.waiting_since = time.monotonic()
                self._thought(event.index).add(event.text)
            case ev.ToolUseDelta():
                status.waiting_since = time.monotonic()
                self._tool(event.tool_call_id, event.name)
            case ev.ContentBlockEnd():
                status.waiting_since = time.monotonic()
                await self._block_end(event)
            case ev.MessageStart():
                status.waiting_since = time.monotonic()
                # The previous message's blocks are complete and its tool calls have ended: nothing routes to them
                # any more, and holding them here would keep every answer and tool output of a long run alive
                # after the transcript has pruned their widgets.
                self._forget_message()
                self._message += 1
                if status.status.limit_until is not None:
                    status.set(limit_until=None)
            case ev.MessageEnd():
                status.waiting_since = None
                await self._message_end(event)
            case ev.UserMessage():
                self._user_message(event)
            case ev.ToolStart():
                self._tool_start(event)
            case ev.ToolProgress():
                self._tool(event.tool_call_id, "").progress(event.text)
            case ev.ToolEnd():
                block = self._tool(event.tool_call_id, event.name)
                block.finish(event.content, event.is_error, event.details, event.denied)
                block.expanded = block.expanded or (self.verbose and not event.denied)
            case ev.TaskListUpdate():
                self.todos.show_tasks(event.tasks)
            case ev.BackgroundShellUpdate():
                self._background_shell(event)
            case ev.BackgroundAgentUpdate():
                self._background_agent(event)
            case ev.PermissionRequest() | ev.ElicitationRequest() | ev.PermissionResolved():  # (one at a time)
                self.app.permissions.ask(event)  # (and a question resolved without the person taken down)
            case ev.UsageUpdate():
                status.set(
                    tokens_in=event.total.context_tokens,
                    tokens_out=event.total.output_tokens,
                    cost_usd=event.cost_usd,
                    context_percent=event.context_percent,
                    shares=model_shares(event.by_model),
                )
            case ev.Retry() | ev.LimitWait():
                self._retry(event)
            case ev.Error() | ev.Notice() | ev.ContextAdvisory() | ev.Finding() | ev.DoomLoop():
                self._say(event)
            case ev.CompactionStart():
                self.say(f"Compacting the conversation: {event.reason or f'{event.pre_tokens:,} tokens'}…")
            case ev.CompactionEnd():
                self._compacted(event)
            case ev.AgentStart():
                status.set(busy=True, retry_until=None, limit_until=None)
            case ev.AgentEnd():
                status.waiting_since = None
                await self._run_ended(event)
            case ev.TurnStart():
                status.waiting_since = time.monotonic()
            case ev.TurnEnd() | ev.FileClaim() | ev.PromptRejected() | ev.SessionRotated():
                pass  # nothing on screen changes: the blocks around them say it (a refused claim, a rejection's Error)
            case _:
                assert_never(event)  # a new kind of event: decide here what the screen shows for it

    def _say(self, event: ev.Error | ev.Notice | ContextAdvisory | ev.Finding | ev.DoomLoop) -> None:
        """An event that is a line of the transcript: an error, a notice, a context advisory, a sub-agent's finding,
        a doom-loop nudge."""
        from agentui.api import events as ev

        match event:
            case ev.Error():
                self.say(event.message, "error")
            case ev.Notice() | ev.ContextAdvisory():
                self._notice(event)
            case ev.Finding():
                self.say(f"{event.agent} found: {event.text}")
            case ev.DoomLoop() if event.action == "nudge":  # (a stop ends the run: its Error says it)
                self.say(f"The same failing {event.tool_name} call came {event.count} times; the model was nudged.")
            case ev.DoomLoop():
                pass

    def _notice(self, event: ev.Notice | ContextAdvisory) -> None:
        """A notice as it says it; a context advisory as one line that says how full the window is."""
        from agentui.api import events as ev

        if isinstance(event, ev.ContextAdvisory):
            said = f"The context is {event.context_percent:.0f}% full ({event.context_tokens:,} tokens); /compact"
            self.say(f"{said} frees it.")
        else:
            self.say(event.message, event.level)

    async def _message_end(self, event: MessageEnd) -> None:
        from agentui.api.messages import TextBlock

        for index, part in enumerate(event.message.content):  # (text that arrived whole: a chosen attempt's)
            if isinstance(part, TextBlock) and part.text and (self._message, index) not in self._texts:
                self._text(index).add(part.text)
        for (message_id, _), widget in list(self._texts.items()):
            if message_id == self._message:
                await widget.finish()

    def _tool_start(self, event: ToolStart) -> None:
        block = self._tool(event.tool_call_id, event.name)
        if not block.arguments:
            block.set_arguments(event.input)
        if block.state != "asking":  # a call that asks starts once the answer is yes
            block.start()

    def _retry(self, event: Retry | LimitWait) -> None:
        from agentui.api import events as ev

        if isinstance(event, ev.LimitWait):
            self._limit_wait(event)
            return
        self.status.waiting_since = time.monotonic() + event.delay
        for widget in self._message_widgets.pop(self._message, []):  # that attempt's partial answer is void
            widget.remove()
        self.status.set(retry_until=time.monotonic() + event.delay, retry_reason=event.reason)
        attempt = f"attempt {event.attempt} of {event.max_attempts}"
        self.say(f"Retrying in {event.delay:.1f} s ({attempt}): {event.reason}", "warning")

    def _limit_wait(self, event: LimitWait) -> None:
        self.status.waiting_since = None  # (the wait is said, not counted as silence)
        for widget in self._message_widgets.pop(self._message, []):  # that attempt's partial answer is void
            widget.remove()
        self.status.set(limit_until=event.until)
        when = event.until.astimezone().strftime("%H:%M")
        self.say(f"{event.reason} The run waits until {when}, then goes on by itself (Esc cancels).", "warning")

    def _track(self, widget: Any) -> Any:
        self._message_widgets.setdefault(self._message, []).append(widget)
        return self.transcript.add(widget)

    def _text(self, index: int) -> AssistantText:
        key = (self._message, index)
        if key not in self._texts:
            from agentui.frontends.tui.widgets.answer import AssistantText

            self._texts[key] = self._track(AssistantText())
        return self._texts[key]

    def _thought(self, index: int) -> ThinkingView:
        key = (self._message, index)
        if key not in self._thinking:
            from agentui.frontends.tui.widgets.answer import ThinkingView

            self._thinking[key] = self._track(ThinkingView())
            self._thinking[key].collapsed = not self.verbose
        return self._thinking[key]

    def _tool(self, tool_call_id: str, name: str) -> ToolBlock:
        if tool_call_id not in self._tools:
            cwd = self.conversation.root if self.conversation else None
            self._tools[tool_call_id] = self._track(ToolBlock(tool_call_id, name, cwd))
        return self._tools[tool_call_id]

    async def _block_end(self, event: ContentBlockEnd) -> None:
        from agentui.api.messages import ThinkingBlock, ToolUseBlock

        block = event.block
        key = (self._message, event.index)
        if isinstance(block, ToolUseBlock):
            self._tool(block.id, block.name).set_arguments(block.input)
        elif isinstance(block, ThinkingBlock) and key in self._thinking:
            self._thinking[key].finish()
        elif key in self._texts:
            await self._texts[key].finish()

    def _user_message(self, event: UserMessage) -> None:
        from agentui.api.messages import typed_command

        text = prompt_text(event.message)
        if event.source == "interrupt":
            return
        if event.source == "hook":
            self.say(text)
            return
        expanding, self._expanding = self._expanding, False
        if (typed := typed_command(text)) is not None:  # a custom command as typed: shown, not its expansion
            self._expanding = True
            self.transcript.add(UserPrompt(typed))
            if not self.status.status.title:
                self.status.set(title=typed[:60])
            return
        if expanding and event.source in ("prompt", "steer"):
            return
        if event.source == "context" and (not text.strip() or shell_record(text) is not None):
            return  # a `!command` of the person's (its block is on screen already), or a note for the model
        if event.source == "steer" and text in self._pending:
            self._pending.remove(text)
            self._show_pending()
        shown = "/init" + text[len(INIT_PROMPT) :] if text.startswith(INIT_PROMPT) else text  # not our own prompt
        self.transcript.add(UserPrompt(shown, context=event.source == "context"))
        if event.source == "prompt" and not self.status.status.title:
            self.status.set(title=text.splitlines()[0][:60] if text else "")

    def _compacted(self, event: CompactionEnd) -> None:
        from agentui.frontends.tui.compaction_lines import report_text, report_title
        from agentui.frontends.tui.widgets.answer import CompactionMark

        title = " · ".join(
            filter(None, [_compacted_line(event.pre_tokens, event.post_tokens), report_title(event.report)])
        )
        self.transcript.add(CompactionMark(summary_text(event.summary), title, report_text(event.report)))
        window = self.conversation.window if self.conversation else None
        self.status.set(context_percent=round(100 * event.post_tokens / window, 1) if window else None)

    async def _run_ended(self, event: AgentEnd) -> None:
        said = "the answer is ready" if event.stop == "end_turn" else f"the run ended ({event.stop})"
        call_attention(self.app, said)
        if self.conversation is not None:
            self.conversation.end_grants()
        for widget in self._texts.values():
            await widget.finish()
        # An incremental update made while a question was on screen can leave one stale row in a real terminal
        # (the compositor holds the right frame); one full repaint once the run has settled puts it right.
        self.app.set_timer(SETTLE_SECONDS, self.transcript.screen.refresh)
        self.status.set(busy=False, retry_until=None, limit_until=None)
        self._give_back(event)
        if event.stop == "cancelled":
            self.say("Interrupted.", "warning")
            self.app.permissions.cancel_all()
        elif event.stop == "max_turns":
            self.say(f"Stopped after {event.num_turns} turns.", "warning")
        elif (limit := _limit_reached(event.stop)) is not None:
            self.say(limit, "warning")

    # What is not an event

    def mode_changed(self, mode: str) -> None:
        model = self.conversation.model if self.conversation is not None else self.status.status.model
        self.status.set(mode=mode, model=model)  # (`opusplan` changes the model with the mode)
        self.say(f"Permission mode: {mode} — {MODE_MEANINGS.get(mode, '')}")

    def start_mcp(self, conversation: Conversation) -> None:
        """In the background: the screen takes prompts meanwhile, and a server's tools join the model's list as
        soon as it is connected (a server that hangs is given up after MCP_TIMEOUT)."""
        from agentui.frontends.tui.screens.mcp_approval import McpApprovalScreen
        from agentui.frontends.tui.type_ahead import TypingHold

        async def approve(name: str, what: str) -> bool | None:
            hold = TypingHold(self.app.prompt_input)  # (it appears while the person may be typing)
            return await self.app.push_screen_wait(McpApprovalScreen(name, what, hold))

        async def start() -> None:
            for notice in await conversation.start_mcp(self.app.env, approve=approve):
                self.say(notice, "warning")
            if connected := [server.name for server in conversation.mcp_status() if server.state == "connected"]:
                self.say(f"MCP: {', '.join(connected)} connected.")

        self.app.run_worker(start(), group="mcp", exit_on_error=False)

    async def run_shell(self, command: str) -> None:
        """`!command`: the person's own command, run at once; its output joins the conversation as context."""
        from agentui.api import SHELL_TOOL

        if self.conversation is None:
            return
        self.transcript.add(UserPrompt(f"! {command}", context=True))
        block = self.transcript.add(ToolBlock("shell", SHELL_TOOL, self.conversation.root))
        block.set_arguments({"command": command})
        block.start()
        try:
            outcome = await self.conversation.run_shell(command, block.progress)
        except asyncio.CancelledError:  # Esc or Ctrl+C: the command is stopped, and the block says so
            block.finish("Interrupted.", True, {})
            self.say("Interrupted.", "warning")
            raise
        block.finish(outcome.output, outcome.is_error, outcome.details)

    async def preview(self, request: SessionRequest, cwd: Path, env: dict[str, str] | None) -> LoadedSession | None:
        """Draw the latest turns of the session `request` resumes, read from the end of its file: at once, however
        long the session is, and before the whole of it has loaded (then `show_history(..., drawn=True)`)."""
        from agentui.api import pinned_marks, preview_session

        def read() -> tuple[LoadedSession, History] | None:
            found = preview_session(request, cwd, env)
            if found is None:
                return None
            history = read_history(found.messages, found.tool_details)
            history.pinned = pinned_marks(found.session_id)
            return found, history

        read_in = await asyncio.to_thread(read)
        self._previewed_in = cwd
        previewed = read_in[0] if read_in is not None else None
        if read_in is not None:
            self.show_history(read_in[1], preview=True)
            # On screen before the rest is loaded: the loading would take turns with the drawing otherwise. (Through
            # the transcript: this may run in a handler of the app's, whose own queue waits for it.)
            painted = asyncio.get_running_loop().create_future()
            self.transcript.call_after_refresh(lambda: None if painted.done() else painted.set_result(None))
            await painted
        return previewed

    async def read_resumed(self, conversation: Conversation) -> History:
        """The history `conversation` resumed (none for a new one), read on a worker thread: a long session's is tens
        of thousands of messages."""
        resumed = conversation.resumed
        if resumed is None:
            return History([], {})
        from agentui.api import pinned_marks

        history = await asyncio.to_thread(read_history, conversation.messages, resumed.tool_details)
        history.pinned = pinned_marks(conversation.session_id)
        return history

    def show_history(self, history: History, *, preview: bool = False, drawn: bool = False) -> None:
        """A resumed session's latest parts, drawn as the live ones were, and the task list as it was left; older
        parts are drawn as the person scrolls up to them. `preview`: only the end of the file was read. `drawn`:
        the preview drew the latest parts of this same branch already; the rest is only made ready to draw."""
        if drawn and self.history.shown:
            self.history.adopt(history)
        else:
            self.history.show(history, preview=preview)  # (in place of a preview of another branch)
        if not preview:
            # The whole session: hundreds of thousands of objects that live as long as the conversation, which the
            # cyclic collector stops walking (a full collection took 200 ms, a key press's time on screen).
            gc.freeze()

    def show_rewound(self, messages: list[Message], details: dict[str, dict[str, Any]]) -> None:
        """A rewind took the conversation back: the transcript is drawn again as the conversation now is."""
        self.transcript.clear()
        self.history.forget()
        self._forget_message()
        self.show_history(read_history(messages, details))

    def drop_preview(self) -> None:
        """The session previewed could not be opened after all: its parts go."""
        self.history.drop()

    def _retire(self, widget: Widget) -> bool:
        """An old widget goes from the transcript: what it shows joins the line-drawn history (a widget that is
        not a part of the conversation, such as /help's, goes); False while a call it shows still runs."""
        part = _as_part(widget)
        if part is False:
            return False
        if part is not None:
            self.history.retire(*part, held=getattr(widget, "from_history", False))
        return True

    @property
    def _cwd(self) -> Path | None:
        """What paths in tool blocks are shown relative to (a preview is drawn before the conversation opens)."""
        return self.conversation.root if self.conversation else self._previewed_in


def _as_part(widget: Widget) -> tuple[str, Any, Any] | Literal[False] | None:
    """A live widget as a part of the history (kind, item and a call's result); None for one that is not a part of
    the conversation; False for a call not finished yet."""
    from agentui.frontends.tui.widgets.answer import AssistantText, CompactionMark

    match widget:
        case UserPrompt():
            return ("context" if widget.context else "prompt", widget.text, None)
        case Notice():
            return ("notice", (widget.message, widget.level), None)
        case AssistantText():
            return ("answer", widget.source, None) if widget.source.strip() else None
        case CompactionMark():
            return ("summary", widget.summary, None)
        case ToolBlock():
            if widget.state in ("running", "asking"):
                return False
            from agentui.api.messages import ToolUseBlock

            call = ToolUseBlock(id=widget.tool_call_id, name=widget.tool_name, input=widget.arguments)
            finished = widget.result
            return ("tool", call, None if finished is None else kept_result(Result(*finished)))
    return None


def _limit_reached(stop: str) -> str | None:
    from agentui.api import limit_reached

    return limit_reached(stop)


def _compacted_line(before: int, after: int) -> str:
    """What /compact did to the context (a resumed session's mark knows only the summary)."""
    if before and after:
        return f"Conversation compacted: context {before:,} → {after:,} tokens"
    return f"Conversation compacted to {after:,} tokens" if after else "Conversation compacted"
