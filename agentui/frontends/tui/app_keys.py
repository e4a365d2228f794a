"""The app's own keys, as a Claude Code user expects them: Esc and Ctrl+C stop whatever runs (the model's turn, a
`!command` of the person's); with nothing running, Ctrl+C clears a prompt that has text, and only twice on an empty
prompt quits; Esc twice on an empty prompt rewinds; Shift+Tab cycles the permission mode; Alt+T turns thinking on or
off (Claude Code 2.1.197's key for it: Tab, its key in some earlier releases, moves the focus here)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType

from agentui.frontends.tui.host import AppHost
from agentui.frontends.tui.limit_resume import LIMIT_GROUP
from agentui.frontends.tui.slash_command import CHECKS_GROUP

if TYPE_CHECKING:
    from agentui.frontends.tui.screens.main import MainScreen

QUIT_WINDOW = 2.0
THINKING_HINT = 3.0
"""Seconds "Thinking on" shows in the status bar after Alt+T (as Claude Code's notice)."""
SHELL_GROUP = "shell"
"""The workers that run the person's `!command`s (stopped by Esc and Ctrl+C as a turn is)."""


class AppKeys(AppHost):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "interrupt", "Interrupt", show=False),
        Binding("ctrl+c", "interrupt_clear_or_quit", "Quit", show=False, priority=True),
        Binding("shift+tab", "cycle_mode", "Permission mode", show=False, priority=True),
        Binding(
            "alt+t", "toggle_thinking", "Thinking on or off", show=False, priority=True
        ),  # (before the prompt, which would type the t)
    ]
    main: MainScreen
    _quit_armed_at = 0.0
    _waiting: list[str]
    """What was sent before the conversation opened (prompts, `!command`s): sent once it has."""

    def something_runs(self) -> bool:
        """Whether Esc would stop something: the model's turn, a `!command` of the person's, or what waits for the
        conversation to open."""
        if self._waiting or ((conversation := self.conversation) is not None and conversation.running):
            return True
        return any(worker.group == SHELL_GROUP and worker.is_running for worker in self.workers)

    def stop_what_runs(self) -> bool:
        """Interrupt the model's turn, the person's running `!command`s and /doctor's checks; False if nothing was
        running."""
        stopped = self.take_back_waiting()
        if (conversation := self.conversation) is not None and conversation.running:
            conversation.interrupt()
            self.view.ending = stopped = True
        for worker in self.workers:
            if worker.group in (SHELL_GROUP, CHECKS_GROUP, LIMIT_GROUP) and worker.is_running:
                worker.cancel()
                stopped = True
        return stopped

    def take_back_waiting(self) -> bool:
        """Esc or Ctrl+C while the conversation opens: what was sent meanwhile (a prompt, a `!command`) has not
        run yet, and must not run once it has opened. Nothing is lost: each is in the prompt's history as it was sent,
        and a lone one comes back into an empty prompt (never joined with another: a `!` in front would make a prompt
        a shell command)."""
        if not self._waiting:
            return False
        waiting, self._waiting = self._waiting, []
        prompt = self.prompt_input
        for text in waiting:  # (a prompt given on the command line is not in it yet)
            prompt.prompt_history.add(text)
        if len(waiting) == 1 and not prompt.text.strip():
            prompt.text = waiting[0]
            prompt.move_cursor(prompt.document.end)
            where = "it is back in the prompt"
        else:
            where = "Up brings it back from the prompt's history"
        self.say(f"Interrupted. What you sent as the conversation opened has not run; {where}.", "warning")
        return True

    def action_interrupt(self) -> None:
        """Esc: stop what runs, if anything does, and bring the keys back to the prompt."""
        if not self.stop_what_runs():
            self.main.escaped_when_idle()  # (twice on an empty prompt: rewind)
        self.prompt_input.focus()

    async def action_interrupt_clear_or_quit(self) -> None:
        if self.stop_what_runs():
            self._quit_armed_at = 0.0
            return
        prompt = self.prompt_input
        if self.screen is self.main and prompt.text:
            prompt.clear_prompt()
            self._quit_armed_at = 0.0
            return
        now = time.monotonic()
        if now - self._quit_armed_at <= QUIT_WINDOW:
            await self.quit_now()
            return
        self._quit_armed_at = now
        self.status.set(hint="Press Ctrl+C again to quit")
        self.set_timer(QUIT_WINDOW, lambda: self.status.set(hint=""))

    async def quit_now(self) -> None:
        raise NotImplementedError

    def action_cycle_mode(self) -> None:
        if self.conversation is not None:
            self.view.mode_changed(self.conversation.cycle_mode())

    def action_toggle_thinking(self) -> None:
        """Alt+T: thinking on or off for the requests from now on (this conversation only, as Claude Code's key)."""
        if (conversation := self.conversation) is None:
            self.say("Thinking can be turned on once the conversation has opened.", "warning")
            return
        from agentui.api import set_thinking, thinking_budget

        budget = set_thinking(conversation, thinking_budget(conversation) is None)
        hint = f"Thinking on ({budget:,} tokens a request)" if budget else "Thinking off"
        self.status.set(thinking=budget is not None, hint=hint)
        self.set_timer(THINKING_HINT, lambda: self.status.set(hint=""))
