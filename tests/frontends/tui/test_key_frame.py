"""A typed key's frame is drawn as soon as the key is handled, with what it typed, before Textual's own round of idle
messages and its update timer would have drawn it; a key that changes the layout is left to that round."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.widget import Widget
from textual.widgets import Static, TextArea

from agentui.frontends.tui.key_frame import draw_now


class Counter(Widget):
    DEFAULT_CSS = "Counter { height: 1; }"
    count = 0

    def render(self) -> str:
        return f"count {self.count}"


class Drawn(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.frames: list[Any] = []

    def compose(self) -> ComposeResult:
        yield Counter()
        yield Static("below")
        yield TextArea()

    def _display(self, screen: Any, renderable: Any) -> None:
        if renderable is not None:
            self.frames.append(renderable)
        super()._display(screen, renderable)


def text_of(app: App[None], update: Any) -> str:
    """What a frame writes, its escapes included."""
    return str(update.render_segments(app.console))


async def test_a_repaint_is_drawn_at_once_with_its_new_content() -> None:
    app = Drawn()
    async with app.run_test() as pilot:
        await pilot.pause()
        counter = app.query_one(Counter)
        counter.count = 7
        counter.refresh()
        before = len(app.frames)
        draw_now(counter)  # no await: nothing else of the app's has run
        assert len(app.frames) == before + 1
        assert "count 7" in text_of(app, app.frames[-1])
        draw_now(counter)  # nothing left to draw
        assert len(app.frames) == before + 1


async def test_a_change_of_layout_goes_the_usual_way() -> None:
    app = Drawn()
    async with app.run_test() as pilot:
        await pilot.pause()
        static = app.query_one(Static)
        static.update("two\nlines")  # a layout: the static grows
        before = len(app.frames)
        draw_now(static)
        assert len(app.frames) == before
        await pilot.pause()
        assert any("lines" in text_of(app, frame) for frame in app.frames[before:])


async def test_a_layout_the_screen_was_about_to_do_is_done_with_it() -> None:
    app = Drawn()
    async with app.run_test() as pilot:
        await pilot.pause()
        counter = app.query_one(Counter)
        app.screen.refresh(layout=True)  # as while an answer streams: the screen's layout is due at its next tick
        counter.count = 5
        counter.refresh()
        before = len(app.frames)
        draw_now(counter)
        drawn = "".join(text_of(app, frame) for frame in app.frames[before:])  # (as Textual's tick draws it)
        assert "count 5" in drawn and "below" in drawn  # the whole screen, laid out


async def test_a_screen_above_is_not_drawn_over() -> None:
    from textual.screen import ModalScreen

    app = Drawn()
    async with app.run_test() as pilot:
        await pilot.pause()
        counter = app.query_one(Counter)
        await app.push_screen(ModalScreen())
        await pilot.pause()
        counter.count = 3
        counter.refresh()
        before = len(app.frames)
        draw_now(counter)
        assert len(app.frames) == before


async def test_a_key_with_more_waiting_behind_it_is_drawn_with_them() -> None:
    """A flood of keys (a paste without brackets): a frame per key would cost more than the keys themselves."""
    from textual import events

    app = Drawn()
    async with app.run_test() as pilot:
        await pilot.pause()
        counter = app.query_one(Counter)
        counter.count = 4
        counter.refresh()
        app.post_message(events.Key("a", "a"))  # (the next key, not handled yet)
        before = len(app.frames)
        draw_now(counter)
        assert len(app.frames) == before
        await pilot.pause()
        assert any("count 4" in text_of(app, frame) for frame in app.frames[before:])
