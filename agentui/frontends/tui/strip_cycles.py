"""A fix to Textual's `Strip` caches, carried until Textual ships one: a strip that caches itself is in a reference
cycle, so only the cyclic collector frees it, and its full collections stalled the screen (issue 34).

`Strip.crop_extend` caches its result, which is the strip itself when nothing needs cropping or extending, and
`Strip.divide` caches `[self]` when the one cut is the strip's end: every strip the compositor passes through them
unchanged then holds itself (a 20,000-token answer left ~13,000 strips and ~94,000 of their caches to the
collector). Here those results are given as before but not kept (they cost nothing to work out again), so such a
strip dies when its last user drops it. Checked against Textual 8.2: drop this module when `Strip` stops caching
itself (tests/frontends/tui/test_strip_cycles.py fails then, saying so)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.style import Style
    from textual.strip import Strip

originals: dict[str, Any] = {}
"""Textual's own methods, as they were before `apply()`."""


def apply() -> None:
    """Patch `Strip` once (idempotent)."""
    if originals:
        return
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
