"""/status and /doctor: how this session stands (version, session, directories, model and server, mode, settings
files, memory, MCP servers, sandbox, tokens), and a health check of the setup whose checks run on workers, so the
screen and its keys stay live; Esc stops them."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from agentui.frontends.tui.slash_command import CHECKS_GROUP, SlashCommand

if TYPE_CHECKING:
    from agentui.frontends.tui.host import AppHost
    from agentui.frontends.tui.widgets.report_view import DoctorView

log = logging.getLogger(__name__)


class Status(SlashCommand):
    name, description = "status", "Show the version, session, model and server, settings files, MCP and sandbox"

    async def run(self, app: AppHost, arguments: str) -> None:
        app.run_worker(self._report(app), group=CHECKS_GROUP, exit_on_error=False)

    async def _report(self, app: AppHost) -> None:
        from agentui.api import no_conversation_report, status_report
        from agentui.frontends.tui.widgets.report_view import StatusView

        conversation = app.conversation
        try:
            if conversation is None:
                rows = no_conversation_report(app.cwd, app.problem)
            else:
                rows = await status_report(conversation, app.env)
                if title := app.status.status.title:
                    rows.insert(1, ("Session name", title))
        except Exception as exc:  # a bug must not take the screen down: one sentence, and the log
            log.exception("/status failed")
            app.say(f"/status failed: {type(exc).__name__}: {exc} (the debug log has more).", "error")
            return
        app.transcript.add(StatusView(rows))


class Doctor(SlashCommand):
    name = "doctor"
    description = "Check the install and setup: ripgrep, the sandbox and its mount helper, settings, model server, MCP"

    async def run(self, app: AppHost, arguments: str) -> None:
        from agentui.frontends.tui.widgets.report_view import DoctorView

        view = app.transcript.add(DoctorView())
        app.run_worker(self._check(app, view), group=CHECKS_GROUP, exit_on_error=False)

    async def _check(self, app: AppHost, view: DoctorView) -> None:
        from agentui.api import health_checks

        try:
            checks = await health_checks(app.conversation, app.launch, app.cwd, app.env, app.problem)
        except asyncio.CancelledError:
            view.ended("Stopped checking the setup.")
            raise
        except Exception as exc:  # a bug must not take the screen down: one sentence, and the log
            log.exception("/doctor failed")
            view.ended(f"The checks failed: {type(exc).__name__}: {exc} (the debug log has more).")
            return
        view.show(checks)
