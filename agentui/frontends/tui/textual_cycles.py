"""Fixes to the reference cycles Textual leaves behind, carried until Textual ships them: each cycle is garbage only
the cyclic collector frees, and a long session's full collections stalled the screen for 70-160 ms (issue 34).
With these, what the screen stops using dies when its last user drops it, and the app's collector policy
(`collector.py`) can keep full collections short.

- `Strip.crop_extend` caches its result, which is the strip itself when nothing needs cropping or extending, and
  `Strip.divide` caches `[self]` when the one cut is the strip's end: every strip the compositor passes through them
  unchanged then holds itself. Those results are given as before but not kept (they cost nothing to work out again).
- A widget's `Styles` hold the widget (`node`): a removed widget, with its caches and strips, is a cycle. Once its
  removal is complete (nothing of Textual's uses it any more), its styles let go of it (and take it back if it is
  mounted again).
- `LRUCache` keeps its entries in a ring of lists, which `clear()` and the cache's end left as a cycle (every layout
  clears each widget's box-model cache). The ring is unlinked then.
- `Compositor._arrange_root` places widgets with a recursive closure, which holds itself and with it the map of every
  widget's geometry: one cycle per layout. The closure is let go once the map is made.

Checked against Textual 8.2 (tests/frontends/tui/test_textual_cycles.py fails, saying which fix can go, when Textual
stops making one of these cycles)."""

from __future__ import annotations
import __future__

import linecache
import logging
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.style import Style
    from textual.strip import Strip
    from textual.widget import Widget

log = logging.getLogger(__name__)

originals: dict[str, Any] = {}
"""Textual's own functions, as they were before `apply()`."""


def apply() -> None:
    """Patch Textual once (idempotent)."""
    if originals:
        return
    _strips()
    _removed_widgets()
    _lru_caches()
    _compositor()


def _strips() -> None:
    from textual.strip import Strip

    crop_extend, divide = originals["crop_extend"], originals["divide"] = Strip.crop_extend, Strip.divide

    def crop_extend_uncycled(self: Strip, start: int, end: int, style: Style | None) -> Strip:
        strip = crop_extend(self, start, end, style)
        if strip is self:
            _forget(self._crop_extend_cache, (start, end, style))
        return strip

    def divide_uncycled(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
        cuts = list(cuts)  # (read twice: by Textual, and for its cache key here)
        strips = divide(self, cuts)
        if any(strip is self for strip in strips):
            _forget(self._divide_cache, tuple(cut for cut in cuts if cut <= self.cell_length))
        return strips

    Strip.crop_extend = crop_extend_uncycled  # type: ignore[method-assign]
    Strip.divide = divide_uncycled  # type: ignore[method-assign]


def _forget(cache: Any, key: object) -> None:
    entries = getattr(cache, "_cache", None)  # (FIFOCache has no way to drop one key but its dict's)
    if isinstance(entries, dict):
        entries.pop(key, None)


def _removed_widgets() -> None:
    from textual.widget import Widget

    exit_loop = originals["_message_loop_exit"] = Widget._message_loop_exit
    attach = originals["_attach"] = Widget._attach

    async def message_loop_exit_unlinked(self: Widget) -> None:
        await exit_loop(self)  # (the widget is out of the DOM, its caches cleared and its message loop ended)
        self._css_styles.node = None
        self._inline_styles.node = None

    def attach_linked(self: Widget, parent: Any) -> None:
        attach(self, parent)
        if self._css_styles.node is None:  # (a removed widget mounted again, as Textual allows)
            self._css_styles.node = self
            self._inline_styles.node = self

    Widget._message_loop_exit = message_loop_exit_unlinked  # type: ignore[method-assign]
    Widget._attach = attach_linked  # type: ignore[method-assign,assignment]


def _lru_caches() -> None:
    from textual.cache import LRUCache

    clear, discard = originals["LRUCache.clear"], originals["LRUCache.discard"] = LRUCache.clear, LRUCache.discard

    def clear_unlinked(self: LRUCache[Any, Any]) -> None:
        links = list(self._cache.values())
        clear(self)  # (first: a value freed below may have a finalizer that uses the cache)
        for link in links:
            link.clear()

    def discard_unlinked(self: LRUCache[Any, Any], key: Any) -> None:
        link = self._cache.get(key)
        discard(self, key)
        if link is not None:  # (the last entry's link points at itself)
            link.clear()

    def end_unlinked(self: LRUCache[Any, Any]) -> None:
        for link in getattr(self, "_cache", {}).values():  # (a finalizer must not raise: it would print)
            link.clear()

    LRUCache.clear = clear_unlinked  # type: ignore[method-assign]
    LRUCache.discard = discard_unlinked  # type: ignore[method-assign]
    LRUCache.__del__ = end_unlinked  # type: ignore[attr-defined]


ARRANGED = "        widgets -= invisible_widgets\n        return map, widgets\n"
"""How `_arrange_root` ends in Textual 8.2; the fix lets its closure go between these lines."""


def _compositor() -> None:
    from textual import _compositor
    from textual._compositor import Compositor

    arrange = originals["_arrange_root"] = Compositor._arrange_root
    try:
        fixed = _closure_let_go(arrange, vars(_compositor))
    except (OSError, SyntaxError, ValueError):  # (a source that will not compile here: Textual's own stays)
        fixed = None
    if fixed is None:
        log.info("Textual's Compositor._arrange_root is not as expected: its cycles are left to the collector")
        return
    Compositor._arrange_root = fixed  # type: ignore[method-assign]


def _closure_let_go(function: Callable[..., Any], namespace: dict[str, Any]) -> Callable[..., Any] | None:
    """`function` made again from its source with `add_widget = None` before it returns (the closure is a cell of
    the function's, so this breaks its hold on itself), or None if its source is not the one this was written for."""
    code = getattr(function, "__code__", None)
    if code is None:
        return None
    last = max(line for _start, _end, line in code.co_lines() if line is not None)
    body = linecache.getlines(code.co_filename)[code.co_firstlineno - 1 : last]
    if not body or not body[0].startswith("    def "):
        return None
    source = "".join(body)
    if source.count(ARRANGED) != 1:
        return None
    ending = "        widgets -= invisible_widgets\n        add_widget = None\n        return map, widgets\n"
    source = "".join(line[4:] if line.strip() else line for line in source.replace(ARRANGED, ending).splitlines(True))
    source = "\n" * (code.co_firstlineno - 1) + source  # (tracebacks and profiles name Textual's own lines)
    made: dict[str, Any] = {}
    flags = __future__.annotations.compiler_flag
    exec(compile(source, code.co_filename, "exec", flags=flags, dont_inherit=True), namespace, made)
    return made.get(function.__name__)
