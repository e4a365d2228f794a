"""Values worked out once from objects that never change (frozen messages and blocks), kept by the object's identity
while it lives: what a long session would otherwise work out again on every turn (a message's JSON, a block's
tokens)."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class _Ref(weakref.ref):  # type: ignore[type-arg]
    """A weak reference that knows its key (one callback for all, no closure per entry)."""

    __slots__ = ("key",)
    key: int


class IdentityMemo(Generic[T]):
    """Keyed by the object itself, not by its value (hashing a frozen model hashes all it holds; equal messages are
    cheap to tell apart by identity), held by a weak reference so that an object dropped takes its value with it.
    Safe to use from several threads at once: each step is one dictionary operation."""

    def __init__(self) -> None:
        self._kept: dict[int, tuple[_Ref, T, int]] = {}
        self._dropped = self._forget  # (made once: every reference shares it)
        self.stamp = 0
        """Advanced by the user (a request built, say): what each value was last used at, for `sweep`."""
        self.made = 0
        """Values worked out so far (what a test counts)."""

    def get(self, owner: Any, make: Callable[[], T]) -> T:
        key = id(owner)
        kept = self._kept.get(key)
        if kept is not None and kept[0]() is owner:
            if kept[2] != self.stamp:
                self._kept[key] = (kept[0], kept[1], self.stamp)
            return kept[1]
        value = make()
        self.made += 1
        ref = _Ref(owner, self._dropped)
        ref.key = key
        self._kept[key] = (ref, value, self.stamp)
        return value

    def touch(self, owner: object) -> None:
        """`owner`'s value (if any) counts as used now."""
        key = id(owner)
        kept = self._kept.get(key)
        if kept is not None and kept[0]() is owner and kept[2] != self.stamp:
            self._kept[key] = (kept[0], kept[1], self.stamp)

    def __contains__(self, owner: object) -> bool:
        kept = self._kept.get(id(owner))
        return kept is not None and kept[0]() is owner

    def sweep(self, before: int) -> None:
        """Drop the values last used before stamp `before` (their objects may live on, no longer used)."""
        for key, (_, _, used) in list(self._kept.items()):  # (a snapshot: another thread may add meanwhile)
            if used < before:
                self._kept.pop(key, None)

    def clear(self) -> None:
        self._kept.clear()

    def _forget(self, ref: _Ref) -> None:
        kept = self._kept.get(ref.key)
        if kept is not None and kept[0] is ref:  # (not a newer object's at the same address)
            self._kept.pop(ref.key, None)

    def __len__(self) -> int:
        return len(self._kept)
