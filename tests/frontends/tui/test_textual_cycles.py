"""The fixes to Textual's reference cycles: a strip passed through unchanged no longer holds itself, a removed widget
is freed when its last user drops it, a cleared LRU cache and a layout's map leave nothing for the collector, and
what each patched method gives is unchanged. Each fix has a test that fails when Textual stops making its cycle."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest
from rich.segment import Segment
from rich.style import Style
from textual._compositor import Compositor
from textual.app import App, ComposeResult
from textual.cache import LRUCache
from textual.containers import Vertical
from textual.dom import DOMNode
from textual.strip import Strip
from textual.widgets import Static

from agentui.frontends.tui import textual_cycles


@pytest.fixture
def no_collector() -> Iterator[None]:
    textual_cycles.apply()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def strip() -> Strip:
    return Strip([Segment("hello ", Style(bold=True)), Segment("world")], 11)


class Watched(Strip):
    """A strip that can be watched for its end (Strip itself takes no weak reference)."""

    __slots__ = ("__weakref__",)


def test_a_strip_passed_through_unchanged_is_freed_without_the_collector(no_collector: None) -> None:
    made = Watched([Segment("hello ", Style(bold=True)), Segment("world")], 11)
    assert made.crop_extend(0, 11, None) is made
    assert list(made.divide([11])) == [made]
    assert made.crop_extend(0, 11, None) is made  # (again: not from a cache now, the same answer)
    gone = weakref.ref(made)
    del made
    assert gone() is None


def test_what_is_cropped_extended_or_divided_is_as_textual_makes_it(no_collector: None) -> None:
    own = textual_cycles.originals
    for start, end, style in [(0, 11, None), (2, 8, None), (0, 15, Style(italic=True)), (6, 20, None), (3, 3, None)]:
        assert list(strip().crop_extend(start, end, style)) == list(own["crop_extend"](strip(), start, end, style))
    for cuts in ([11], [4, 11], [3, 6, 9, 11], [20], [0, 11]):
        ours = [list(part) for part in strip().divide(iter(cuts))]  # (an iterator: read once only)
        theirs = [list(part) for part in own["divide"](strip(), list(cuts))]
        assert ours == theirs, cuts
    changed = strip()
    assert changed.crop_extend(2, 8, None) is changed.crop_extend(2, 8, None)  # (what changes is still cached)


def test_textual_still_caches_a_strip_in_itself_or_this_fix_can_go() -> None:
    textual_cycles.apply()
    made = strip()
    textual_cycles.originals["crop_extend"](made, 0, 11, None)
    textual_cycles.originals["divide"](made, [11])
    held = [value for cache in (made._crop_extend_cache, made._divide_cache) for value in cache._cache.values()]
    assert any(value is made or value == [made] for value in held), (
        "Textual's Strip no longer caches itself: agentui/frontends/tui/textual_cycles.py can be dropped"
    )


class Value:
    """Something held by what is tested, watched for its end."""


class Boxes(App[None]):
    def compose(self) -> ComposeResult:
        with Vertical(id="boxes"):
            yield Static("first")
            yield Static("second")


async def test_a_removed_widget_is_freed_without_the_collector(no_collector: None) -> None:
    async with Boxes().run_test(size=(40, 10)) as pilot:
        boxes = pilot.app.query_one("#boxes")
        widget = Static("going")
        await boxes.mount(widget)
        await pilot.pause()
        gone = weakref.ref(widget)
        await widget.remove()
        del widget
        for n in range(6):  # (each layout is kept in the parent's cache for the next four)
            await boxes.mount(Static(f"other {n}"))
            await pilot.pause()
        assert gone() is None


async def test_a_removed_widget_mounted_again_has_its_styles_back(no_collector: None) -> None:
    async with Boxes().run_test(size=(40, 10)) as pilot:
        boxes = pilot.app.query_one("#boxes")
        widget = Static("back again")
        await boxes.mount(widget)
        await widget.remove()
        assert widget._css_styles.node is None
        await boxes.mount(widget)
        await pilot.pause()
        assert widget._css_styles.node is widget and widget._inline_styles.node is widget
        widget.styles.background = "red"  # (a style set on it reaches the screen: its styles know their node)
        await pilot.pause()
        assert widget.styles.background.rich_color.name == "#ff0000"
        assert "back again" in "".join(
            segment.text for strip in widget.render_lines(widget.region.reset_offset) for segment in strip
        )


def test_textual_s_styles_still_hold_their_node_or_this_fix_can_go() -> None:
    textual_cycles.apply()
    node = DOMNode()
    assert node in gc.get_referents(vars(node._css_styles)), (
        "Textual's Styles no longer hold their node: the removed widgets' fix in "
        "agentui/frontends/tui/textual_cycles.py can go"
    )


@pytest.mark.parametrize("end", ["clear", "discard", "dropped"])
def test_an_lru_cache_s_entries_are_freed_without_the_collector(no_collector: None, end: str) -> None:
    value = Value()
    gone = weakref.ref(value)
    cache: LRUCache[str, object] = LRUCache(4)
    cache.set("only" if end == "discard" else "a", value)
    if end != "discard":
        for key in "bcdef":  # (past its size: one was evicted)
            cache.set(key, key)
        assert cache.get("a") is None and cache.get("f") == "f"
        cache.set("a", value)
    del value
    if end == "clear":
        cache.clear()
        assert len(cache) == 0 and cache.get("a") is None
        cache.set("x", "y")  # (still works after)
        assert cache.get("x") == "y"
    elif end == "discard":
        cache.discard("only")
        assert len(cache) == 0
    else:
        del cache
    assert gone() is None


def test_textual_s_lru_cache_still_rings_its_entries_or_this_fix_can_go(no_collector: None) -> None:
    value = Value()
    gone = weakref.ref(value)
    cache: LRUCache[str, object] = LRUCache(4)
    cache.set("a", value)
    cache.set("b", 2)
    del value
    textual_cycles.originals["LRUCache.clear"](cache)
    assert gone() is not None, "Textual's LRUCache.clear frees its entries: its fix in textual_cycles.py can go"
    gc.collect()


async def test_a_layout_leaves_nothing_for_the_collector_and_places_widgets_as_textual_does(
    no_collector: None,
) -> None:
    async with Boxes().run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        compositor = screen._compositor
        ours, theirs = Compositor._arrange_root, textual_cycles.originals["_arrange_root"]
        assert ours is not theirs
        placed = {}
        for name, arrange in (("ours", ours), ("theirs", theirs)):
            gc.collect()
            gc.set_debug(gc.DEBUG_SAVEALL)
            try:
                found, widgets = arrange(compositor, screen, screen.size)
                placed[name] = (dict(found), set(widgets))
                del found, widgets
                gc.collect()
                closures = [thing for thing in gc.garbage if getattr(thing, "__name__", "") == "add_widget"]
            finally:
                gc.set_debug(0)
                gc.garbage.clear()
            if name == "ours":
                assert closures == []
            else:
                assert closures, "Textual's _arrange_root leaves no cycle: its fix in textual_cycles.py can go"
        assert placed["ours"] == placed["theirs"] and len(placed["ours"][0]) >= 4


def test_a_compositor_not_as_expected_is_left_as_textual_made_it() -> None:
    """(A later Textual whose method ends otherwise keeps its own, cycle and all: never a half-made one.)"""

    class Other:
        def _arrange_root(self, root: object) -> tuple[dict[str, object], set[object]]:
            widgets: set[object] = set()
            return {}, widgets

    assert textual_cycles._closure_let_go(Other._arrange_root, {}) is None
    assert textual_cycles._closure_let_go(len, {}) is None  # (no source at all)
