"""Keys that reach the app together (a burst from the terminal) are handled in the order they were typed: a binding's
key (Backspace, the arrows, Ctrl+U) is done before the key after it reaches a widget, a key after one that moves the
focus goes where the focus went, a paste keeps its place, and a key whose handler waits holds the others back only
for a moment."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any, ClassVar

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, TextArea

from agentui.frontends.tui import key_order
from agentui.frontends.tui.key_order import KeysInOrder
from tests.frontends.tui.test_app import Harness, ready, until


@pytest.fixture(autouse=True)
def patient(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hold limit no key's handling comes near on a slow, busy machine (0.5 s could, and a key that reaches it holds
    nothing back: the order these tests check would then be left to chance). The test of the limit sets its own."""
    monkeypatch.setattr(key_order, "HOLD_LIMIT", 60.0)


class Waiting(Vertical):
    """A container whose handler of F5 (bubbled up from the box inside) waits until it is let go."""

    def __init__(self) -> None:
        super().__init__()
        self.go = asyncio.Event()
        self.waited = False

    async def on_key(self, event: events.Key) -> None:
        if event.key == "f5":
            self.waited = True
            await self.go.wait()


class Dialog(ModalScreen[None]):
    def compose(self) -> ComposeResult:
        yield Input(id="answer")

    def on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            self.dismiss()


class Boxes(KeysInOrder):
    BINDINGS: ClassVar = [
        Binding("f2", "to_field", "To the field"),
        Binding("f4", "open_dialog", "A dialog", priority=True),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(), Waiting():
            yield TextArea(id="area")
            yield Input(id="field")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_to_field(self) -> None:
        self.query_one(Input).focus()

    def action_open_dialog(self) -> None:
        self.push_screen(Dialog())


class PlainBoxes(App[None]):
    """The same without the ordering: Textual's own behaviour, which the tests show is wrong."""

    compose = Boxes.compose
    on_mount = Boxes.on_mount


async def soon(condition: Any) -> None:
    """Until `condition()` holds, without Pilot; the ceiling is only for a hung app."""

    async def wait() -> None:
        while True:
            if condition():
                return
            await asyncio.sleep(0.02)

    await asyncio.wait_for(wait(), 60 + key_order.HOLD_LIMIT)


def burst(app: App[Any], *keys: str | events.Paste) -> None:
    """Keys as the terminal's input thread hands them to the app: all at once, nothing handled in between."""
    for key in keys:
        if isinstance(key, events.Paste):
            app.post_message(key)
        else:
            app.post_message(events.Key(key, key if len(key) == 1 else None))


async def settled(pilot: Any, app: App[Any]) -> None:
    await until(pilot, lambda: not isinstance(app, KeysInOrder) or (not app.keys_held() and app._key_going is None))
    await pilot.pause()


async def area_text_after(app: App[Any], *keys: str | events.Paste) -> str:
    async with app.run_test() as pilot:
        await pilot.pause()
        burst(app, *keys)
        await settled(pilot, app)
        return app.query_one(TextArea).text


async def test_a_backspace_and_an_arrow_in_a_burst_act_where_they_were_typed() -> None:
    keys = ("a", "b", "c", "backspace", "d", "left", "e")
    assert await area_text_after(Boxes(), *keys) == "abed"
    assert await area_text_after(PlainBoxes(), *keys) == "abcd"  # (Textual alone: the bindings ran after the rest)


async def test_ctrl_u_in_a_field_then_a_name_keeps_the_name() -> None:
    app = Boxes()
    async with app.run_test() as pilot:
        field = app.query_one(Input)
        field.value = "old name"
        field.focus()
        await pilot.pause()
        burst(app, "ctrl+u", "n", "e", "w")
        await settled(pilot, app)
        assert field.value == "new"


async def test_keys_after_one_that_moves_the_focus_go_where_the_focus_went() -> None:
    app = Boxes()
    async with app.run_test() as pilot:
        await pilot.pause()
        burst(app, "x", "f2", "y", "z")
        await settled(pilot, app)
        assert (app.query_one(TextArea).text, app.query_one(Input).value) == ("x", "yz")


async def test_a_paste_keeps_its_place_among_the_keys() -> None:
    assert await area_text_after(Boxes(), "a", "left", events.Paste("XY")) == "XYa"


async def test_a_key_whose_handler_waits_holds_the_next_keys_back_only_for_a_moment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(key_order, "HOLD_LIMIT", 3.0)  # (long enough to see the keys held, on any machine)
    app = Boxes()
    async with app.run_test() as pilot:
        await pilot.pause()
        waiting = app.query_one(Waiting)
        area = app.query_one(TextArea)
        burst(app, "f5", "a", "b")
        try:  # (Pilot's pause waits for every widget to be idle: not while one waits)
            await soon(lambda: waiting.waited)
            assert area.text == ""  # (held behind F5, still being handled)
            await soon(lambda: area.text == "ab")  # (then let through)
            burst(app, "c", "d")  # (while F5 still waits: nothing is held behind it any more)
            await soon(lambda: area.text == "abcd")
        finally:
            waiting.go.set()
        await settled(pilot, app)
        burst(app, "e", "left", "f")  # (F5 done: keys are in order again)
        await settled(pilot, app)
        assert area.text == "abcdfe"


async def test_a_burst_into_the_apps_prompt_comes_out_as_typed(tmp_path: Path) -> None:
    app = Harness(tmp_path, []).app()
    async with app.run_test() as pilot:
        await ready(pilot)
        await pilot.pause()
        burst(app, "a", "b", "c", "backspace", "d", "left", "e")
        await settled(pilot, app)
        assert app.prompt_input.text == "abed"


async def test_a_key_that_closes_a_dialog_holds_nothing_back_after_it() -> None:
    app = Boxes()
    async with app.run_test() as pilot:
        await pilot.pause()
        await app.push_screen(Dialog())
        await pilot.pause()
        burst(app, "enter", "a", "left", "b", "backspace", "c")
        await settled(pilot, app)
        assert app.query_one(TextArea).text == "ca"
        assert app._key_stuck is None and app._key_going is None


async def test_a_key_whose_widget_went_before_handling_it_holds_nothing_back() -> None:
    app = Boxes()
    async with app.run_test() as pilot:
        await pilot.pause()
        area, field = app.query_one(TextArea), app.query_one(Input)
        # As if Left had just been sent to the area, which was then removed with the key still in its queue (that
        # moment cannot be had on purpose from outside):
        app._key_going, app._key_sent_at, app._key_at = events.Key("left", None), time.monotonic(), area
        await area.remove()
        field.focus()
        burst(app, "x", "backspace", "y", "left", "z")
        await settled(pilot, app)
        assert field.value == "zy"
        assert app._key_stuck is None and app._key_going is None


async def test_keys_after_a_priority_key_that_opens_a_dialog_go_into_the_dialog() -> None:
    """Held behind "x", then let go: F4 is taken by the app's priority binding (it is never on its way anywhere), and
    the keys after it wait until the dialog it opened has the focus (they went to the bare screen, and were lost)."""
    for typed in ("a", events.Paste("PQ")):
        app = Boxes()
        async with app.run_test() as pilot:
            await pilot.pause()
            burst(app, "x", "f4", typed, "b")
            await settled(pilot, app)
            assert isinstance(app.screen, Dialog)
            assert app.screen.query_one(Input).value == ("ab" if typed == "a" else "PQb")
            assert app.screen_stack[0].query_one(TextArea).text == "x"
