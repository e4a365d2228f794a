"""/try N [prompt]: parallel attempts side by side — each branch's work as it happens, then the evaluation's ranking
and reasons and each branch's changes, and keys to apply one (1-9), none (n), or keep them all for later (k)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Log, Static

if TYPE_CHECKING:
    from agentui.api import AttemptConfig, Attempts, Conversation, Verdict
    from agentui.api.events import Event

PATCH_LINES = 400
"""Of each branch's changes, the columns show this many lines (the applied patch is whole)."""


class AttemptsScreen(ModalScreen[str]):
    """Dismissed with a sentence saying what was done."""

    CSS_PATH = "picker.tcss"
    DEFAULT_CSS = """
    AttemptsScreen #branches { height: 1fr; }
    AttemptsScreen .branch { width: 1fr; border: round $primary; }
    AttemptsScreen .branch Log { height: 1fr; }
    AttemptsScreen #verdict { height: auto; max-height: 8; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "stop_or_none", "Stop / apply none", show=False),
        Binding("n", "none", "Apply none", show=False),
        Binding("k", "keep", "Keep them for later", show=False),
        *(Binding(str(n), f"pick({n})", f"Apply attempt {n}", show=False) for n in range(1, 10)),
    ]

    def __init__(self, conversation: Conversation, prompt: str, configs: list[AttemptConfig], evaluate: str) -> None:
        super().__init__()
        self.conversation, self.prompt, self.configs, self.evaluate = conversation, prompt, configs, evaluate
        self.attempts: Attempts | None = None
        self.verdict: Verdict | None = None
        self._asked_to_stop = False

    def compose(self) -> ComposeResult:
        with Vertical(id="picker") as box:
            box.border_title = f"Trying {len(self.configs)} ways at once: {self.prompt.splitlines()[0][:60]}"
            with Horizontal(id="branches"):
                for number, config in enumerate(self.configs, 1):
                    with Vertical(classes="branch") as column:
                        column.border_title = f"{number} · b{number} · {config.model or self.conversation.model}"
                        yield Log(id=f"log-b{number}", auto_scroll=True)
            yield Static(f"Working… (Esc stops them all; evaluation: {self.evaluate})", id="verdict")

    def on_mount(self) -> None:
        self.app.view.branch_listener = self.branch_event  # type: ignore[attr-defined]
        self._run()

    def on_unmount(self) -> None:
        self.app.view.branch_listener = None  # type: ignore[attr-defined]

    def branch_event(self, event: Event) -> None:
        """An event of a branch (its loop_id says which): a line in its column."""
        from agentui.api import call_summary
        from agentui.api import events as ev

        log = self.query(f"#log-{event.loop_id}").first(Log) if event.loop_id else None
        if log is None:
            return
        match event:
            case ev.TextDelta():
                log.write(event.text)
            case ev.ToolStart():
                summary = call_summary(event.name, event.input, self.conversation.root)
                log.write(f"\n→ {event.name} {' '.join(summary.split())[:80]}\n")  # (its one line, not a dict)
            case ev.ToolEnd():
                log.write(f"{'✗' if event.is_error else '✓'} {event.name}\n")
            case ev.PermissionRequest():
                log.write(f"? asks: {event.reason}\n")
            case ev.AgentEnd():
                log.write(f"\n[{event.stop}]\n")
            case _:
                pass

    @work(exclusive=True, group="attempts")
    async def _run(self) -> None:
        from agentui.api import WorkingCopyError

        try:
            self.attempts, self.verdict = await self.conversation.attempt(self.prompt, self.configs, self.evaluate)
        except WorkingCopyError as exc:
            self.dismiss(str(exc))
            return
        except Exception as exc:  # (a judge that failed, say: nothing is applied, and the person is told)
            self.dismiss(f"The attempts stopped: {exc}")
            return
        for branch in self.attempts.branches:
            log = self.query_one(f"#log-{branch.id}", Log)
            patch = branch.patch.splitlines()[:PATCH_LINES]
            log.write("\n— changes —\n" + "\n".join(patch) + "\n" if patch else "\n— no files changed —\n")
        verdict = self.verdict
        ranking = " > ".join(verdict.ranking) if verdict.ranking else "none"
        chosen = f"chosen: {verdict.chosen}" if verdict.chosen else "none chosen"
        keys = f"1-{len(self.configs)} applies one · n none · k keeps them for later"
        self.query_one("#verdict", Static).update(f"{chosen} · ranking: {ranking}\n{verdict.reasons}\n{keys}")

    def action_pick(self, number: int) -> None:
        if self.attempts is None or number > len(self.attempts.branches):
            return
        from agentui.api import WorkingCopyError

        branch = self.attempts.branches[number - 1]
        try:
            self.attempts.apply(branch.id)
        except WorkingCopyError as exc:
            self.attempts.close()
            self.dismiss(str(exc))
            return
        self.attempts.close()
        files = branch.patch.count("\ndiff --git ") + branch.patch.startswith("diff --git ")
        self.dismiss(f"Applied attempt {number} ({branch.id}): {files} file{'' if files == 1 else 's'} changed.")

    def action_none(self) -> None:
        if self.attempts is None:
            return
        self.attempts.close()
        self.dismiss("No attempt was applied; the conversation goes on as before them.")

    def action_keep(self) -> None:
        if self.attempts is None:
            return
        where = ", ".join(f"{b.id} in {b.copy.root}" for b in self.attempts.branches)
        self.dismiss(f"The attempts are kept for later, nothing applied: {where}.")

    def action_stop_or_none(self) -> None:
        if self.attempts is None:  # still working: stop every branch (the worker then ends)
            if not self._asked_to_stop:
                self._asked_to_stop = True
                self.workers.cancel_group(self, "attempts")
                self.dismiss("The attempts were stopped; nothing was applied.")
            return
        self.action_none()
