"""The app's collector policy (issue 34: no full collection the person can feel): every few young collections
everything is collected and what lives is frozen, so no collection walks the whole session; nothing runs while a
session opens; and what the app makes in a session of turns is freed without the collector, so that freezing leaks
none of it; and once the app is idle, what died frozen anyway is collected."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.segment import Segment
from textual.css.styles import Styles
from textual.geometry import Spacing
from textual.map_geometry import MapGeometry
from textual.strip import Strip
from textual.widget import Widget

from agentui.frontends.tui.collector import (
    NEVER,
    SWEEP_EVERY,
    YOUNG_COLLECTION_EVERY,
    CollectorPolicy,
    collector_held,
)
from tests.frontends.tui.test_app import ready
from tests.frontends.tui.test_history_lines import ask_turns, reading_turns
from tests.support.waiting import eventually


class Value:
    """An object in a reference cycle of its own."""

    def __init__(self) -> None:
        self.itself = self


@pytest.fixture
def thawed() -> Iterator[None]:
    """The process's collector left as it was found: nothing frozen, no policy installed."""
    threshold = gc.get_threshold()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


async def _settled() -> None:
    for _ in range(3):  # (the sweep is called soon on the loop: a few turns of it)
        await asyncio.sleep(0)


def _in_youngest(thing: object) -> bool:
    return any(found is thing for found in gc.get_objects(0))


def _frozen(thing: object) -> bool:
    """Tracked, and in no generation: in the permanent one, which no collection walks."""
    return gc.is_tracked(thing) and not any(found is thing for found in gc.get_objects())


async def test_every_few_young_collections_everything_is_collected_and_what_lives_frozen(thawed: None) -> None:
    policy = CollectorPolicy()
    policy.start(asyncio.get_running_loop())
    try:
        assert gc.get_threshold()[:2] == (YOUNG_COLLECTION_EVERY, NEVER)  # (CPython's own older collections off)
        kept, dead = Value(), Value()
        gone = weakref.ref(dead)
        for _ in range(SWEEP_EVERY):
            gc.collect(0)  # (both promoted out of the youngest generation; the sweep is now due)
        assert not _in_youngest(kept) and not _in_youngest(dead)
        del dead  # garbage that only an older generation's collection would find
        await _settled()
        assert policy.sweeps == 1
        assert gone() is None
        assert _frozen(kept)  # out of every later collection's sight
        for _ in range(SWEEP_EVERY - 1):
            gc.collect(0)
        await _settled()
        assert policy.sweeps == 1  # (not yet)
        gc.collect(0)
        for _ in range(SWEEP_EVERY):  # (more before the loop turns: still one sweep)
            gc.collect(0)
        await _settled()
        assert policy.sweeps == 2
    finally:
        policy.stop()


async def test_nothing_is_swept_while_a_session_opens_and_nothing_after_the_app_ends(thawed: None) -> None:
    before = gc.get_threshold()
    policy = CollectorPolicy()
    policy.start(asyncio.get_running_loop())
    try:
        with collector_held():
            for _ in range(SWEEP_EVERY):
                gc.collect(0)
            await _settled()
            assert policy.sweeps == 0 and not gc.isenabled()
        assert gc.isenabled()
    finally:
        policy.stop()
    assert gc.get_threshold() == before
    for _ in range(SWEEP_EVERY):
        gc.collect(0)
    await _settled()
    assert policy.sweeps == 0


async def test_what_died_frozen_is_collected_once_the_app_is_idle(thawed: None) -> None:
    policy = CollectorPolicy()
    policy.idle_after = 0.2
    policy.start(asyncio.get_running_loop())
    try:
        late = Value()  # (alive at a sweep: frozen)
        gone = weakref.ref(late)
        for _ in range(SWEEP_EVERY):
            gc.collect(0)
        await _settled()
        assert policy.sweeps == 1 and _frozen(late)
        del late  # dead, in a cycle no sweep will walk
        assert gone() is not None
        await eventually(lambda: policy.reclaims > 0)
        assert policy.reclaims == 1
        assert gone() is None
        await asyncio.sleep(0.5)  # (idle on: nothing more to do until the next sweep)
        assert policy.reclaims == 1
    finally:
        policy.stop()


ANSWER = "answer **{}**\n\n- one\n- two"
"""(Markdown: drawn by the parser, not as plain prose.)"""

# What the app made and the collector would have to find: Textual's widgets and what hangs off them.
WATCHED = (Widget, Styles, MapGeometry, Strip, Segment, Spacing)


async def test_what_a_session_of_turns_leaves_is_freed_without_the_collector(tmp_path: Path, thawed: None) -> None:
    """Everything is thawed and collected after 40 turns (widgets made, retired into the line-drawn history, laid
    out and drawn): none of the app's widgets, styles, layout maps or strips is left in a cycle, so what the policy
    froze can die without it."""
    turns = 40
    app = reading_turns(tmp_path, turns, ANSWER.format).app()
    gc.unfreeze()
    gc.collect()  # (what earlier tests left)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await ask_turns(pilot, turns, ANSWER.format)
        assert app.collector.sweeps > 0  # (the policy ran meanwhile)
        gc.unfreeze()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            left = Counter(type(thing).__qualname__ for thing in gc.garbage if isinstance(thing, WATCHED))
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
    assert not left, f"cyclic garbage the app made: {left.most_common(10)}"
