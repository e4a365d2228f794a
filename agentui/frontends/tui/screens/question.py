"""The model's questions (AskUserQuestion), one at a time: pick an option with ↑↓ and Enter or its number, toggle
several for a multi-select question and then Done, or choose Other and type an answer; Esc declines them all."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from agentui.api.events import PermissionDecision, PermissionRequest
from agentui.frontends.tui.type_ahead import TypingHold, catch_up

OTHER, DONE = "other", "done"
OPTION_ROWS = 14
"""The most rows the options take where the screen has room."""


class QuestionScreen(ModalScreen[PermissionDecision]):
    """Dismissed with an allow whose `updated_input` carries the answers, or a deny when the person declines."""

    CSS_PATH = "permission.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "decline", "Decline", show=False),
        *(Binding(str(n), f"pick({n - 1})", show=False) for n in range(1, 7)),
    ]

    def __init__(self, request: PermissionRequest, hold: TypingHold | None = None) -> None:
        super().__init__()
        self.request = request
        self.hold = hold
        """What the person goes on typing into the prompt as the questions appear (no key answers until they stop)."""
        raw = request.input.get("questions")
        self.questions: list[dict[str, Any]] = [q for q in raw if isinstance(q, dict)] if isinstance(raw, list) else []
        self.answers: dict[str, str] = {}
        self.index = 0
        self.chosen: list[str] = []
        """The labels ticked so far in a multi-select question."""

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="questions"):
            yield Static("", id="reason")
            yield OptionList(id="options")
            yield Input(placeholder="Your answer (Enter sends)", id="message", select_on_focus=False)
            yield Static("", id="hint", classes="choice")

    def on_mount(self) -> None:
        if not self.questions:  # (the arguments were checked before asking; this is for a front end's mistake)
            self.dismiss(PermissionDecision(behavior="deny"))
            return
        self._show()

    # The question on screen

    @property
    def question(self) -> dict[str, Any]:
        return self.questions[self.index]

    @property
    def multi(self) -> bool:
        return bool(self.question.get("multiSelect"))

    def _labels(self) -> list[tuple[str, str]]:
        options = self.question.get("options")
        found = [o for o in options if isinstance(o, dict)] if isinstance(options, list) else []
        return [(str(o.get("label", "")), str(o.get("description", ""))) for o in found]

    def _show(self) -> None:
        question = self.question
        dialog = self.query_one("#dialog")
        header = str(question.get("header") or "Question")
        count = f" ({self.index + 1} of {len(self.questions)})" if len(self.questions) > 1 else ""
        dialog.border_title = f"The model asks: {header}{count}"
        self.query_one("#reason", Static).update(Text(str(question.get("question", ""))))
        self.chosen = []
        options = self.query_one("#options", OptionList)
        options.set_options(self._options())
        options.highlighted = 0
        options.focus()
        box = self.query_one("#message", Input)
        box.remove_class("-visible")
        box.value = ""
        hint = "Enter or a number ticks an option; Done when ready" if self.multi else "Enter or a number chooses"
        self.query_one("#hint", Static).update(Text(f"  ↑↓ move   {hint}   ⎋ decline"))
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """The options give up rows before the question, the answer box or the keys leave the screen."""
        from agentui.frontends.tui.screens.fit import fit_dialog

        fit_dialog(self, "#dialog", "#options", OPTION_ROWS)

    def _options(self) -> list[Option]:
        labels = self._labels()
        shown = []
        for number, (label, description) in enumerate(labels, 1):
            tick = ("[x] " if label in self.chosen else "[ ] ") if self.multi else ""
            shown.append(
                Option(
                    Text.assemble(
                        f"{number}. {tick}", (label, "bold"), (f"  {description}" if description else "", "dim")
                    ),
                    id=f"o{number - 1}",
                )
            )
        shown.append(Option(Text(f"{len(labels) + 1}. Other: type an answer"), id=OTHER))
        if self.multi:
            shown.append(Option(Text("Done"), id=DONE))
        return shown

    # Answers

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "pick" and self.hold is not None and self.hold.holding:
            return False  # (typed for the prompt as the questions appeared: see on_key)
        return not (action == "pick" and self._typing)  # (a number typed into the answer is part of it)

    @property
    def _typing(self) -> bool:
        return self.query_one("#message").has_class("-visible")

    def action_pick(self, index: int) -> None:
        options = self.query_one("#options", OptionList)
        if index < options.option_count and options.get_option_at_index(index).id != DONE:
            options.highlighted = index
            self._choose(options.get_option_at_index(index).id or "")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._choose(event.option.id or "")

    def _choose(self, option_id: str) -> None:
        if option_id == OTHER:
            box = self.query_one("#message", Input)
            box.add_class("-visible")
            self.call_after_refresh(self._fit)
            self.set_focus(box)
            return
        if option_id == DONE:
            if self.chosen:
                self._answer(", ".join(self.chosen))
            return
        label = self._labels()[int(option_id[1:])][0]
        if not self.multi:
            self._answer(label)
            return
        self.chosen = [c for c in self.chosen if c != label] if label in self.chosen else [*self.chosen, label]
        options = self.query_one("#options", OptionList)
        highlighted = options.highlighted
        options.set_options(self._options())
        options.highlighted = highlighted

    def on_key(self, event: events.Key) -> None:
        """What is typed between choosing Other and the box taking the focus belongs in the box; what the person goes
        on typing as the questions appear belongs in the prompt (Enter there would pick an option)."""
        if self._typing:
            catch_up(self.query_one("#message", Input), self.focused, event)
        elif self.hold is not None:
            self.hold.hold(event, self.notify)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        typed = event.value.strip()
        if not typed:
            return
        self._answer(", ".join([*self.chosen, typed]) if self.multi else typed)

    def _answer(self, answer: str) -> None:
        self.answers[str(self.question.get("question", ""))] = answer
        if self.index + 1 < len(self.questions):
            self.index += 1
            self._show()
            return
        self.dismiss(
            PermissionDecision(behavior="allow", updated_input={**self.request.input, "answers": self.answers})
        )

    def action_decline(self) -> None:
        if self._typing:  # Esc in the answer box: back to the options
            self.query_one("#message").remove_class("-visible")
            self.query_one("#options").focus()
            return
        self.dismiss(PermissionDecision(behavior="deny", interrupt=True))
