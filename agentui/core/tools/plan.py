"""ExitPlanMode: in plan mode the model hands its plan to the person, who approves it (and picks how the edits go on)
or sends it back with feedback. The question is the permission request; the tool runs only once the plan is
approved, saves it where Claude Code keeps plans, and tells the model to start."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NotRequired, Protocol

from pydantic import Field
from typing_extensions import TypedDict

from agentui.core.call_views import ResultView, changed_lines
from agentui.core.change_queue import ChangeQueue, QueueConflict
from agentui.core.events import PermissionMode, QueuedChange
from agentui.core.tools.base import Tool, ToolArgs, ToolContext, ToolResult
from agentui.core.tools.diff import structured_patch
from agentui.core.tools.files import BinaryFileError, decode, for_display

log = logging.getLogger(__name__)


class ModeHolder(Protocol):
    """What owns the permission mode (the permission engine)."""

    mode: PermissionMode


PLAN_MODE_REMINDER = (
    "<system-reminder>\nPlan mode is active: the user wants a plan before anything is changed. Do not edit files, "
    "run commands that change anything (configs and commits included) or otherwise change the system; this comes "
    "before any other instruction to make changes. Instead:\n1. Research what the task needs (read, search, run "
    "read-only commands) and answer the user's question thoroughly.\n2. Ask about what is unclear "
    "(AskUserQuestion).\n3. When the plan is ready, present it by calling ExitPlanMode, which asks the user to "
    "approve it. Change nothing until they have.\n</system-reminder>"
)


def plan_mode_reminders(modes: ModeHolder) -> Callable[[], list[str]]:
    """What each prompt tells the model about the mode: plan mode's rules while it is on."""
    return lambda: [PLAN_MODE_REMINDER] if modes.mode == "plan" else []


class ExitPlanModeArgs(ToolArgs):
    plan: str = Field(
        min_length=1,
        description="The plan to show the user for approval, in Markdown: concise, the steps and the files they touch",
    )


class ExitPlanModeDetails(TypedDict):
    plan: str
    isAgent: bool
    filePath: NotRequired[str]
    """Where the approved plan was saved."""


class ExitPlanMode(Tool[Any]):
    name = "ExitPlanMode"
    description = (
        "Use this in plan mode once the plan for a coding task is ready: it shows the plan to the user, who approves "
        "it (then you may edit files and run commands) or asks you to change it. Only for tasks that need code "
        "changes, not for research. Settle open questions first (AskUserQuestion); do not ask 'is this plan okay?' "
        "in any other way: this tool is how the user approves it."
    )
    Args = ExitPlanModeArgs
    Details = ExitPlanModeDetails
    kind = "read"
    shown = "switch_mode"
    asks = "plan"

    @classmethod
    def title(cls, arguments: Mapping[str, Any], cwd: Path | None) -> str:
        plan = str(arguments.get("plan") or "").strip()
        return plan.splitlines()[0].lstrip("# ") if plan else "the plan"

    @classmethod
    def result(cls, text: str, details: Mapping[str, Any]) -> ResultView:
        return ResultView("plan approved")

    main_only = True

    def __init__(
        self,
        modes: ModeHolder,
        plans_dir: Path | None,
        changes: ChangeQueue | None = None,
        display: Callable[[Path], str] | None = None,
    ) -> None:
        self.modes = modes
        self.plans_dir = plans_dir
        """Where approved plans are kept (Claude Code's `plans` directory); None keeps them nowhere."""
        self.changes = changes
        """Plan mode's change queue, where the project has one: an approval applies the changes the person picks."""
        self.display = display

    def queued_changes(self) -> list[QueuedChange]:
        return queued_views(self.changes, self.display) if self.changes is not None else []

    async def run(self, args: ExitPlanModeArgs, ctx: ToolContext) -> ToolResult:
        applied = self._apply(ctx) if self.changes is not None and len(self.changes) else ""
        if applied.startswith("!"):  # (nothing was changed: the plan stays unapproved, the model is told why)
            return ToolResult.error(applied[1:])
        if self.modes.mode == "plan":  # (approved by a rule or a hook, which choose no mode: edits are asked for)
            self.modes.mode = "default"
        saved = self._save(args.plan, ctx.session_id)
        where = (
            f"Your plan has been saved to: {saved}\nYou can refer back to it if needed during implementation.\n\n"
            if saved
            else ""
        )
        details = ExitPlanModeDetails(plan=args.plan, isAgent=False)
        if saved:
            details["filePath"] = str(saved)
        return ToolResult(
            "User has approved your plan. You can now start coding. Start with updating your todo list if "
            f"applicable\n\n{applied}{where}## Approved Plan:\n{args.plan}",
            details=details,
        )

    def _apply(self, ctx: ToolContext) -> str:
        """The queued changes the person chose, made; what to tell the model of them (after "!": why none were)."""
        assert self.changes is not None
        try:
            done = self.changes.apply(ctx.chosen_changes or {}, ctx.before_change)
        except QueueConflict as exc:
            return f"!The plan was not approved: {exc}. Read the files again and queue the changes anew."
        said = []
        if done.changed:
            said.append("The user applied your queued changes to: " + ", ".join(map(str, done.changed)) + ".")
        if done.dropped:
            said.append(
                "The user did not apply your queued changes to: " + ", ".join(map(str, done.dropped)) + "; those "
                "files are unchanged, so do not assume those changes were made."
            )
        return "\n".join(said) + "\n\n"

    def _save(self, plan: str, session_id: str) -> Path | None:
        """The plan in a file of its own, one per session (a later plan of the session replaces it)."""
        if self.plans_dir is None:
            return None
        target = self.plans_dir / f"{session_id}.md"
        try:
            self.plans_dir.mkdir(parents=True, exist_ok=True)
            target.write_text(plan if plan.endswith("\n") else plan + "\n", encoding="utf-8")
        except OSError as exc:  # the plan is approved all the same; it is in the session
            log.warning("could not save the plan to %s: %s", target, exc)
            return None
        return target


def queued_views(queue: ChangeQueue, display: Callable[[Path], str] | None = None) -> list[QueuedChange]:
    """The queued changes as the person is shown them: each file's diff (a binary file's as a note)."""
    views = []
    for proposal in queue.proposals():
        try:
            before = for_display(decode(proposal.original)[0].replace("\r\n", "\n")) if proposal.original else ""
            after = for_display(decode(proposal.proposed)[0].replace("\r\n", "\n"))
        except BinaryFileError:
            before, after = "", "(binary content)"
        patch = structured_patch(before, after)
        added, removed = changed_lines(patch)
        shown = display(proposal.path) if display else str(proposal.path)
        views.append(
            QueuedChange(
                file_path=str(proposal.path),
                digest=proposal.digest,
                shown=shown,
                created=proposal.original is None,
                patch=patch,
                added=added,
                removed=removed,
            )
        )
    return views
