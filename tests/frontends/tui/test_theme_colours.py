"""The prompt's colours are taken from CSS when they can have changed (the app's theme, a background around it, its
focus), not at every key's frame."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import TextArea

from agentui.frontends.tui.widgets.theme_colours import ThemeColoursOnChange


class Box(App[None]):
    CSS = """
    Vertical.red { background: #800000; }
    TextArea { background: $surface 50%; }
    TextArea:focus .text-area--cursor-line { background: #004000; }
    """

    def __init__(self, area: type[TextArea] = ThemeColoursOnChange) -> None:
        super().__init__()
        self.area = area

    def compose(self) -> ComposeResult:
        with Vertical():
            yield self.area()


def counted(area: TextArea) -> list[int]:
    """How many times the area's theme takes its colours from CSS from now on (a list of one count)."""
    count, theme = [0], area._theme
    apply = theme.apply_css

    def applying(text_area: Any) -> None:
        count[0] += 1
        apply(text_area)

    theme.apply_css = applying  # type: ignore[method-assign]
    return count


@pytest.mark.parametrize("kind", [TextArea, ThemeColoursOnChange])
async def test_keys_are_drawn_without_taking_the_colours_again(kind: type[TextArea]) -> None:
    app = Box(kind)
    async with app.run_test() as pilot:
        area = app.query_one(kind)
        area.focus()
        await pilot.pause()
        count = counted(area)
        for key in "typed":
            await pilot.press(key)
            await pilot.pause()
        assert area.text == "typed"
        assert (count[0] == 0) == (kind is ThemeColoursOnChange)  # (Textual's own takes them at every key)


@pytest.mark.parametrize("kind", [TextArea, ThemeColoursOnChange])
async def test_a_background_around_it_a_new_theme_and_its_focus_are_taken(kind: type[TextArea]) -> None:
    """As Textual's own TextArea takes them."""
    app = Box(kind)
    async with app.run_test() as pilot:
        area = app.query_one(kind)
        area.focus()
        await pilot.pause()
        theme = area._theme
        assert theme.cursor_line_style is not None and theme.cursor_line_style.bgcolor is not None
        assert theme.cursor_line_style.bgcolor.name == "#004000"  # (focused)
        before = theme.base_style
        app.query_one(Vertical).add_class("red")
        await pilot.pause()
        assert area._theme.base_style != before  # the container's red is behind the text now
        app.set_focus(None)
        await pilot.pause()
        assert (
            area._theme.cursor_line_style is None
            or area._theme.cursor_line_style.bgcolor is None
            or (area._theme.cursor_line_style.bgcolor.name != "#004000")
        )
        dark = area._theme.base_style
        app.theme = "textual-light"
        await pilot.pause()
        assert area._theme.base_style != dark
