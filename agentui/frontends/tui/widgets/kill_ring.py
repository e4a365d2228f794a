"""What Ctrl+U, Ctrl+K and Ctrl+W take out of the prompt, kept for Ctrl+Y to put back, as Claude Code's prompt (and
readline) does: kills one after another, with nothing else between, join into one piece."""

from __future__ import annotations

from dataclasses import dataclass

HINT_CHARS = 3
"""A kill of at least this many characters shows how to get it back (as Claude Code's)."""

Place = tuple[str, tuple[int, int]]
"""The prompt's text and its cursor."""


@dataclass
class KillRing:
    text: str = ""
    _left: Place | None = None
    """Where the last kill left the prompt: a kill from exactly there joins it."""

    def killed(self, before: Place, after: Place, *, backwards: bool) -> str:
        """Record what a kill took out of the prompt, from `before` to `after`; returns the piece it took."""
        piece = _removed(before[0], after[0])
        if piece:
            joined = self._left == before
            self.text = (piece + self.text if backwards else self.text + piece) if joined else piece
            self._left = after
        return piece


def _removed(before: str, after: str) -> str:
    """The one stretch of `before` that `after` lacks."""
    start, shortest = 0, min(len(before), len(after))
    while start < shortest and before[start] == after[start]:
        start += 1
    end = 0
    while end < shortest - start and before[-1 - end] == after[-1 - end]:
        end += 1
    return before[start : len(before) - end]
