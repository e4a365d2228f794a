"""When the status line's command runs: as the conversation opens, then whenever it changes (a message, the tokens,
the model or the permission mode), 300 ms after the last change as Claude Code waits, and every `refreshInterval`
seconds if the setting asks. Each run is a worker that a newer one replaces (its command stopped); what it printed
goes under the prompt, and a run that fails leaves only the built-in status bar and says why, once."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from agentui.frontends.tui.widgets.status_line import EDGE, StatusLineBar

if TYPE_CHECKING:
    from textual.timer import Timer

    from agentui.api import Conversation, StatusReport
    from agentui.api.events import Event
    from agentui.frontends.tui.host import AppHost
    from agentui.frontends.tui.widgets.status_bar import Status

log = logging.getLogger(__name__)

WAIT = 0.3
"""Seconds after the last change before the command runs (Claude Code's 300 ms)."""
GROUP = "status-line"


class StatusLineDriver:
    def __init__(self, app: AppHost) -> None:
        self.app = app
        self.bar = StatusLineBar()
        self.report: StatusReport | None = None
        self.runs = 0
        """Runs finished (for tests to wait on)."""
        self._told = False
        self._waiting: Timer | None = None
        self._every: Timer | None = None
        self._seen: tuple[str, str] = ("", "")

    def start(self, conversation: Conversation) -> None:
        """The open conversation's status line, if the settings give one: run now, then as it changes."""
        from agentui.api import status_line_report

        self.stop()
        self.report = status_line_report(conversation)
        if self.report is None:
            return
        self._told = False
        self._run()
        if (seconds := self.report.refresh_seconds) is not None:
            self._every = self.app.set_interval(seconds, self.changed)

    def stop(self) -> None:
        """No conversation (or another one): no runs, no line."""
        self.report = None
        for timer in (self._waiting, self._every):
            if timer is not None:
                timer.stop()
        self._waiting = self._every = None
        for worker in self.app.workers:
            if worker.group == GROUP:
                worker.cancel()
        self.bar.show(None)

    def saw(self, event: Event) -> None:
        """An event of the conversation: a new message, new usage or a compaction is a change to show."""
        from agentui.api import events as ev

        if self.report is not None and isinstance(
            event, ev.UserMessage | ev.MessageEnd | ev.UsageUpdate | ev.CompactionEnd | ev.AgentEnd
        ):
            self.changed()

    def status_set(self, status: Status) -> None:
        """The built-in status bar changed: a new model or permission mode is a change to show."""
        seen = (status.model, status.mode)
        if seen != self._seen:
            self._seen = seen
            self.changed()

    def changed(self) -> None:
        """Run once nothing has changed for `WAIT` seconds."""
        if self.report is None:
            return
        if self._waiting is not None:
            self._waiting.stop()
        self._waiting = self.app.set_timer(WAIT, self._run)

    def _run(self) -> None:
        self._waiting = None
        if (report := self.report) is not None:  # (a newer run replaces one still going: its command is stopped)
            self.app.run_worker(self._refresh(report), group=GROUP, exclusive=True, exit_on_error=False)

    async def _refresh(self, report: StatusReport) -> None:
        try:
            outcome = await report.refresh(columns=max(1, self.app.size.width - 2 * (EDGE + report.padding)))
        except Exception as exc:  # a bug in agentui's part of it: one sentence, the built-in bar stays
            log.exception("the status line failed")
            if report is self.report:
                self.bar.show(None)
                self._tell(f"The status line could not run ({type(exc).__name__}: {exc}).")
                self.runs += 1
            return
        if report is not self.report:  # (the conversation changed while it ran)
            return
        self.bar.show(outcome.text, report.padding)
        if outcome.problem is not None:
            self._tell(outcome.problem)
        self.runs += 1

    def _tell(self, problem: str) -> None:
        if not self._told:
            self._told = True
            self.app.say(problem, "warning")
