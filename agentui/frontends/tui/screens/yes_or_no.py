"""YesOrNoScreen: a question the person answers with one key (y, n, Esc) before anything else goes on; the trust and
MCP approval questions are two. One that appears while the person is typing takes no key as an answer until they
stop (`hold`)."""

from __future__ import annotations

from typing import TypeVar

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from agentui.frontends.tui.type_ahead import TypingHold

AnswerT = TypeVar("AnswerT")


class YesOrNoScreen(ModalScreen[AnswerT]):
    """A subclass sets BINDINGS from its keys to `answer(...)` and says its title, body and choices."""

    DEFAULT_CSS = """
    YesOrNoScreen { align: center middle; background: $background 60%; }
    YesOrNoScreen #question {
        width: 80%;
        max-width: 100;
        height: auto;
        padding: 1 2;
        border: thick $warning;
        background: $panel;
    }
    YesOrNoScreen .choice { color: $text-muted; margin-top: 1; }
    """

    def __init__(self, title: str, body: str, notes: list[str], choices: str, hold: TypingHold | None = None) -> None:
        super().__init__()
        self._title, self._body, self._notes, self._choices = title, body, notes, choices
        self.hold = hold

    def compose(self) -> ComposeResult:
        with Vertical(id="question") as box:
            box.border_title = self._title
            yield Static(Content(self._body))
            for note in self._notes:
                yield Static(Content(note), classes="choice")
            yield Static(Content(self._choices), classes="choice")

    def on_key(self, event: events.Key) -> None:
        """What the person goes on typing as the question appears belongs in the prompt (before the bindings)."""
        if self.hold is not None:
            self.hold.hold(event, self.notify)

    def action_answer(self, answer: AnswerT) -> None:
        self.dismiss(answer)
