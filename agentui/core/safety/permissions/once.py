"""A cached property without the lock Python 3.11's `functools.cached_property` takes at every first use: the
permission check computes thousands of them per command (each word's texts, each path's forms)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


class once(Generic[T]):
    """Computed at the first read, then kept in the instance's `__dict__` (also of a frozen dataclass), where later
    reads find it without calling anything."""

    def __init__(self, function: Callable[[Any], T]) -> None:
        self.function = function
        self.name = function.__name__
        self.__doc__ = function.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> once[T]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> T | once[T]:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.function(instance)
        return value
