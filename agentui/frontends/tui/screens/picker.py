"""The session picker: this project's sessions, newest first, with title, last prompt, age and size; typing
filters, Tab searches the text of the sessions instead (`picker_search.py`), Enter opens, Esc goes back."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from agentui.api import SessionInfo
from agentui.frontends.tui.type_ahead import catch_up, type_into

if TYPE_CHECKING:
    from agentui.api import SearchHit, SearchResult, SessionRequest
    from agentui.frontends.tui.host import AppHost


def age(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return "just now"


def size(count: int) -> str:
    return (
        f"{count / 1_000_000:.1f} MB"
        if count >= 1_000_000
        else f"{count / 1000:.0f} KB"
        if count >= 1000
        else f"{count} B"
    )


def one_line(text: str, width: int) -> str:
    """`text` on one line of at most `width` characters: a multi-line prompt's later lines would start at the left
    edge, out of the entry's indent."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


TITLES = ("Resume a session", "Search the text of this project's sessions")
PLACEHOLDERS = (
    "Type to filter by title or prompt; Tab searches every message; Enter opens",
    "Type words to find in prompts, answers, commands and file names; Tab goes back; Enter opens there",
)
FILTER_ONLY = "Type to filter by title or prompt; Enter opens"


class SessionPicker(ModalScreen["Path | SearchHit | None"]):
    CSS_PATH = "picker.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_none", "Back", show=False),
        Binding("tab", "toggle_search", show=False, priority=True),
        Binding("down", "move(1)", show=False, priority=True),
        Binding("up", "move(-1)", show=False, priority=True),
    ]

    def __init__(
        self,
        sessions: list[SessionInfo],
        typed: Callable[[], str] = str,
        search: Callable[[str], SearchResult] | None = None,
    ) -> None:
        super().__init__()
        self.sessions = sessions
        self._typed = typed
        """What was typed after the command that opened the picker, before it was open (it is the filter's)."""
        self.shown: list[SessionInfo] = list(sessions)
        self._search = search
        """The full-text search (Tab), when there is one; it runs on a thread, as it may read new lines first."""
        self.full_text = False
        self.hits: list[SearchHit] = []
        self.searched: str | None = None
        """The words the hits shown are for (None while a search runs)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="picker") as box:
            box.border_title = TITLES[0]
            yield Input(placeholder=PLACEHOLDERS[0] if self._search else FILTER_ONLY, id="filter")
            yield OptionList(id="sessions", markup=False)
            yield Static("No sessions yet for this project.", id="empty")

    def on_mount(self) -> None:
        self._fill("")
        self.query_one("#filter", Input).focus()
        if typed := self._typed():
            type_into(self.typing_box(), typed)

    def _fill(self, query: str) -> None:
        if self.full_text:
            self.searched = None
            self._run_search(query)
            return
        words = query.lower().split()
        self.shown = [s for s in self.sessions if all(w in f"{s.title} {s.last_prompt}".lower() for w in words)]
        options = self.query_one("#sessions", OptionList)
        options.clear_options()
        now = time.time()
        for info in self.shown:
            line = Text()
            line.append(one_line(info.title, 70), style="bold")
            line.append(
                f"\n  {one_line(info.last_prompt, 90)}" if info.last_prompt and info.last_prompt != info.title else "",
                style="dim",
            )
            line.append(
                f"\n  {age(now - info.modified)} · {size(info.size)} · "
                f"{'~' if info.approximate else ''}{info.messages} messages"
                f"{' · ' + info.git_branch if info.git_branch else ''}",
                style="dim",
            )
            options.add_option(Option(line))
        if self.shown:
            options.highlighted = 0
        empty = self.query_one("#empty", Static)
        empty.update("No sessions yet for this project." if not self.sessions else self._no_title_match())
        empty.display = not self.shown

    def _no_title_match(self) -> str:
        return "No title or prompt matches." + (" Tab searches every message instead." if self._search else "")

    def action_toggle_search(self) -> None:
        if self._search is None:
            return
        self.full_text = not self.full_text
        self.query_one("#picker").border_title = TITLES[self.full_text]
        box = self.typing_box()
        box.placeholder = PLACEHOLDERS[self.full_text]
        self._fill(box.value)

    @work(thread=True, exclusive=True, group="search")
    def _run_search(self, query: str) -> None:
        from agentui.api import SearchError

        assert self._search is not None
        try:
            result = self._search(query) if query.strip() else None
        except SearchError as exc:
            self.app.call_from_thread(self._show_hits, query, [], [str(exc)])
            return
        hits, notices = (result.hits, result.notices) if result else ([], [])
        if not get_current_worker().is_cancelled:  # (a newer search, or the picker closed)
            self.app.call_from_thread(self._show_hits, query, hits, notices)

    def _show_hits(self, query: str, hits: list[SearchHit], notices: list[str]) -> None:
        from agentui.frontends.tui.screens.picker_search import hit_line

        if not self.is_attached or not self.full_text or query != self.typing_box().value:
            return  # (a search for words since changed)
        self.hits, self.searched = hits, query
        options = self.query_one("#sessions", OptionList)
        options.clear_options()
        width = max(20, options.scrollable_content_region.width - 2)
        for hit in hits:
            options.add_option(Option(hit_line(hit, width)))
        if hits:
            options.highlighted = 0
        empty = self.query_one("#empty", Static)
        said = " ".join(notices)
        if not hits:
            said = " ".join(
                [*notices, "No message matches." if query.strip() else "Type the words to find."]
                + (["(agentui search --all looks in every project.)"] if query.strip() else [])
            )
        empty.update(said)
        empty.display = bool(said)

    def typing_box(self) -> Input:
        return self.query_one("#filter", Input)

    def on_key(self, event: events.Key) -> None:
        catch_up(self.typing_box(), self.focused, event)  # (/resume and the words at once)

    def on_input_changed(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._open(self.query_one("#sessions", OptionList).highlighted)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self._open(event.option_index)

    def _open(self, index: int | None) -> None:
        if self.full_text:
            if index is not None and 0 <= index < len(self.hits) and self.searched is not None:
                self.dismiss(self.hits[index])
            return
        if index is not None and 0 <= index < len(self.shown):
            self.dismiss(self.shown[index].path)

    def action_move(self, delta: int) -> None:
        options = self.query_one("#sessions", OptionList)
        if count := len(self.hits if self.full_text else self.shown):
            options.highlighted = ((options.highlighted or 0) + delta) % count

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


def pick_session(
    app: AppHost, root: Path, new_if_none: SessionRequest | None = None, *, typed_ahead: bool = False
) -> None:
    """/resume (and --resume without an id): the sessions of the project at `root`, newest first; the one picked
    is opened, or, if none is and `new_if_none` is given, a new conversation as it asks. `typed_ahead`: what the
    prompt holds when the picker opens was typed after /resume was sent, and is the filter's."""
    from dataclasses import replace

    from agentui.api import SearchHit, SessionRequest, list_sessions, project_dir, search_sessions

    async def chosen(picked: Path | SearchHit | None) -> None:
        if isinstance(picked, SearchHit):  # at the message found (a sub-agent's: its session, whole)
            app.transcript.clear()
            at = None if picked.sidechain else picked.uuid or None
            source = picked.session_id if picked.sidechain else str(picked.path)
            await app.open_conversation(SessionRequest(resume=source, resume_at=at))
        elif picked is not None:
            app.transcript.clear()
            await app.open_conversation(SessionRequest(resume=str(picked)))
        elif new_if_none is not None:
            await app.open_conversation(replace(new_if_none, resume=None))
        app.prompt_input.focus()

    typed = app.prompt_input.take_text if typed_ahead else str

    def search(words: str) -> SearchResult:
        return search_sessions(words, cwd=root, env=app.env, limit=50, prefix=True)

    app.push_screen(SessionPicker(list_sessions(project_dir(root, app.env)), typed, search), chosen)
