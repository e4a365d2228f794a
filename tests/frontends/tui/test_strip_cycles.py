"""The fix to Textual's Strip caches: a strip passed through unchanged no longer holds itself, so it is freed when
its last user drops it (not by a full collection while an answer streams), and what the methods give is unchanged."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from agentui.frontends.tui import strip_cycles


@pytest.fixture
def no_collector() -> Iterator[None]:
    strip_cycles.apply()
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
    own = strip_cycles.originals
    for start, end, style in [(0, 11, None), (2, 8, None), (0, 15, Style(italic=True)), (6, 20, None), (3, 3, None)]:
        assert list(strip().crop_extend(start, end, style)) == list(own["crop_extend"](strip(), start, end, style))
    for cuts in ([11], [4, 11], [3, 6, 9, 11], [20], [0, 11]):
        ours = [list(part) for part in strip().divide(iter(cuts))]  # (an iterator: read once only)
        theirs = [list(part) for part in own["divide"](strip(), list(cuts))]
        assert ours == theirs, cuts
    changed = strip()
    assert changed.crop_extend(2, 8, None) is changed.crop_extend(2, 8, None)  # (what changes is still cached)


def test_textual_still_caches_a_strip_in_itself_or_this_fix_can_go() -> None:
    strip_cycles.apply()
    made = strip()
    strip_cycles.originals["crop_extend"](made, 0, 11, None)
    strip_cycles.originals["divide"](made, [11])
    held = [value for cache in (made._crop_extend_cache, made._divide_cache) for value in cache._cache.values()]
    assert any(value is made or value == [made] for value in held), (
        "Textual's Strip no longer caches itself: agentui/frontends/tui/strip_cycles.py can be dropped"
    )
