"""How the app gets from its launch to an open conversation: the project's settings read (the project trusted first
where its own settings grant something), then the session opened or picked. Prompts sent before then wait for the
conversation; where none can open (no model, a broken settings file), each prompt reads the settings again first, so
a file fixed meanwhile needs no restart, and is otherwise told in one line why it was not sent. A broken file is never
left out: what it denies cannot be known."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agentui.frontends.tui.app_keys import AppKeys
from agentui.frontends.tui.screens.trust import TrustScreen
from agentui.frontends.tui.slash_command import no_model_help
from agentui.frontends.tui.type_ahead import TypingHold
from agentui.frontends.tui.widgets.transcript import UserPrompt

if TYPE_CHECKING:
    from agentui.api import Launch, Project, SessionRequest
    from agentui.api.messages import ImageBlock

log = logging.getLogger(__name__)


class AppOpening(AppKeys):
    _prepare: Callable[[], tuple[Launch | None, str | None]] | None
    """Resolves the launch (settings, permissions, session); again for a prompt while there is none."""
    _starting: bool
    """Until start-up has resolved the launch (or failed to): prompts sent meanwhile wait for the conversation."""
    _cannot_open: str | None = None
    """Why no conversation can open here (what a prompt is then told)."""
    _refusing = False
    """Telling waiting prompts why they were not sent (not a reason to read the settings again)."""
    _project: Project | None = None

    async def submit(self, typed: str, images: Sequence[ImageBlock] = ()) -> None:
        raise NotImplementedError

    def hold(self, text: str) -> None:
        """A prompt sent while there is no conversation: it waits for the one opening, or reads the settings again,
        or (telling waiting prompts why) is shown with one sentence saying why it was not sent."""
        if self._will_open():  # it goes out as soon as the conversation is open
            self._waiting.append(text)
        elif not self._refusing:
            self._waiting.append(text)
            self.run_worker(self._try_again(), group="startup", exit_on_error=False)
        else:  # what was typed is shown, and why it went nowhere, in one line (the help is above)
            self.transcript.add(UserPrompt(text))
            why = self._cannot_open or "no model is configured (see above, or /model)"
            self.say(f"Not sent: {why.rstrip('.')}.", "error")

    async def _open_project(self, *, again: bool = False) -> None:
        """The project's settings read and its conversation opened; or, where they cannot be (no model, a broken
        settings file), why not, said (once: `again` is a retry for a prompt, which is told in one line)."""
        if self.launch is None:
            if not again:
                self.say(no_model_help(self), "error")
                self.status.set(model="no model", provider="—")
            return await self._refuse_waiting()
        from agentui.api import ProjectError, open_project

        try:
            self._project = open_project(self.launch.cwd, self.launch.permissions, env=self.env)
        except ProjectError as exc:
            self._cannot_open = str(exc)
            if not again:
                self.say(str(exc), "error")
            return await self._refuse_waiting()
        if again:
            self.say("The settings read well now; the conversation opens.")
        from agentui.api import load_custom_commands

        self.custom_commands = load_custom_commands(self._project.root, self.env)
        if not self._project.trusted and self._project.held_back:  # (other notices are not trust's business)
            hold = TypingHold(self.prompt_input)  # (typed while it opens: the prompt's, not the answer)
            self.push_screen(TrustScreen(str(self._project.root), self._project.notices, hold), self._trusted)
            return
        for notice in self._project.notices:  # a rule that was ignored, a sandbox that cannot run
            self.say(notice, "warning")
        await self._start(self.launch.session)

    async def _trusted(self, trusted: bool | None) -> None:
        assert self.launch is not None and self._project is not None
        from agentui.api import open_project, trust

        if trusted:
            trust(self._project.root, self.env)
            self._project = open_project(self.launch.cwd, self.launch.permissions, env=self.env)
        for notice in self._project.notices:
            self.say(notice, "warning")
        await self._start(self.launch.session)

    async def _start(self, request: SessionRequest) -> None:
        if request.resume == "":
            from agentui.frontends.tui.screens.picker import pick_session

            pick_session(self, self._project.root if self._project else Path.cwd(), new_if_none=request)
            return
        await self.open_conversation(request)

    def _will_open(self) -> bool:
        return self._cannot_open is None and (self._starting or self.launch is not None)

    async def _try_again(self) -> None:
        """A prompt sent where no conversation could open: the launch and the project's settings are read again,
        and it goes out once the conversation is open, or is told why not. (Never with the broken file left out:
        what it denies cannot be known.)"""
        self._starting, self._cannot_open = True, None  # (prompts sent meanwhile wait with it)
        try:
            if self.launch is None and self._prepare is not None:
                self.launch, self.problem = await asyncio.to_thread(self._prepare)
        except Exception as exc:  # (as at start-up: one sentence, the app stays open)
            log.exception("reading the launch again failed")
            self._cannot_open = f"agentui could not read its settings: {type(exc).__name__}: {exc}"
        finally:
            self._starting = False
        if self._cannot_open is not None:
            return await self._refuse_waiting()
        await self._open_project(again=True)

    async def _refuse_waiting(self) -> None:
        """Prompts typed during a start-up that ended with no conversation: each is told why it was not sent."""
        waiting, self._waiting = self._waiting, []
        self._refusing = True
        try:
            for text in waiting:
                await self.submit(text)
        finally:
            self._refusing = False
