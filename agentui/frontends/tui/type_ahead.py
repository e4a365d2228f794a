"""Keys typed into a box just opened: the box takes the focus a moment after the key that opens it (a screen is
composed, then focused), and what fast typing sends meanwhile belongs in the box, in order, not in the prompt or
nowhere. And the reverse for a question that opens by itself while the person is typing (a permission question, the
model's questions): what they go on typing is the prompt's, never an answer."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from textual import events
from textual.widgets import Input


@runtime_checkable
class TakesTyping(Protocol):
    """A screen with a box that what is typed belongs in (a search, a filter)."""

    def typing_box(self) -> Input: ...


def catch_up(box: Input, focused: object, event: events.Key) -> None:
    """A key typed after the box was opened but before it took the focus goes into the box (the focus moves a
    moment after the key that opens it, and fast typing gets there first)."""
    if focused is not box and event.is_printable and event.character:
        event.stop()
        event.prevent_default()
        type_into(box, event.character)


def type_into(box: Input, text: str) -> None:
    """`text` at the end of what the box holds, the cursor after it."""
    box.value += text
    box.cursor_position = len(box.value)


HOLD_SETTING = "AGENTUI_TYPING_HOLD"
"""Seconds in place of 0.5: longer for a slow reader; an end-to-end test's typist on a loaded machine can pause longer
than a person would, and is given an hour (its keys must be held however slowly they come)."""


def _usable(given: str) -> float | None:
    """`given` as seconds to hold, or None if it is not a number from 0 to a day (forever would leave only Esc to
    answer a question)."""
    try:
        seconds = float(given)
    except ValueError:
        return None
    return seconds if 0 <= seconds <= 86400 else None


def _hold_seconds(given: str | None) -> float:
    seconds = _usable(given) if given else None
    return 0.5 if seconds is None else seconds  # (a value that is not usable is said at start-up: hold_problem)


def hold_problem(env: dict[str, str] | None) -> str | None:
    """One sentence if the environment's AGENTUI_TYPING_HOLD is not a number of seconds that can be used."""
    given = (os.environ if env is None else env).get(HOLD_SETTING)
    if given and _usable(given) is None:
        return f"{HOLD_SETTING} is {given!r}, not a number of seconds from 0 to 86400 such as 1.5; 0.5 is used."
    return None


HOLD_SECONDS = _hold_seconds(os.environ.get(HOLD_SETTING))
"""A question that appears while the person is typing takes no key as an answer until they have stopped typing for
this long: about the time it takes to see that something has appeared, and to stop."""

HOLD_CHECK_SECONDS = 0.1
"""How often a question that holds back its box looks again whether the person has stopped typing."""

HELD = "What you were typing as this question appeared went on into your prompt; answer it once you have read it."


class Prompt(Protocol):
    """Where the person was typing: when they last typed a character into it, and how to add one."""

    typed_at: float

    def insert(self, text: str) -> object: ...


class TypingHold:
    """A question's keys while the person is still typing what they were typing before it appeared: a `y` meant for
    the prompt must not approve a command. Characters (and Tab and Enter) go on into the prompt, in order, until the
    person pauses; Esc still answers No at once."""

    def __init__(self, prompt: Prompt) -> None:
        self._prompt = prompt
        self._typed_at = prompt.typed_at
        self.held = False
        """Some keys were held (given to the prompt) while this question was on screen."""

    @property
    def holding(self) -> bool:
        """The person typed a moment ago: a key now was meant for the prompt. The prompt's own last key counts too:
        the question is made when it is asked, and keys already on their way go to the prompt until it is shown."""
        return time.monotonic() - max(self._typed_at, self._prompt.typed_at) < HOLD_SECONDS

    def hold(self, event: events.Key, notify: Callable[[str], object]) -> bool:
        """Take the key for the prompt if the person is still typing (True; `notify` says so the first time); else
        leave it to the question."""
        if not self.holding or not (event.is_printable or event.key in ("tab", "enter")):
            return False
        event.stop()
        event.prevent_default()
        self._typed_at = time.monotonic()
        if event.is_printable and event.character:
            self._prompt.insert(event.character)
        if not self.held:
            self.held = True
            notify(HELD)
        return True
