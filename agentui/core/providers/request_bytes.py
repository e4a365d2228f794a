"""A request body as bytes, built from each message's JSON made once: a turn costs what is new in it, not the whole
history again (a 1,000-turn session re-serialised 180,000 tokens for every request)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from agentui.core.escapes import scrub
from agentui.core.identity_memo import IdentityMemo
from agentui.core.messages import (
    DocumentBlock,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)

ON_A_THREAD = 256 * 1024
"""Characters new to a request (not made for an earlier one) past which it is made on a thread, not the event loop's."""
SWEEP_EVERY = 16
"""Requests between sweeps of the pieces no request used lately (a compacted history's old messages may live on)."""


def dumps(value: Any) -> bytes:
    """Compact JSON as the APIs take it; a lone surrogate (from an old session) is sent visibly rather than not at
    all."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    except UnicodeEncodeError:
        return json.dumps(scrub(value), ensure_ascii=False, separators=(",", ":")).encode()


class JsonPieces:
    """The JSON a provider sends for each message, made the first time it is sent and kept while the message lives
    and requests still send it (a sub-agent's request may be built on another thread while the parent's is)."""

    def __init__(self) -> None:
        self._memo: IdentityMemo[bytes] = IdentityMemo()
        self._lock = threading.Lock()
        self._prefix: tuple[list[Message], Any, Callable[[int], tuple[int, Any]] | None] = ([], None, None)
        """The messages the last request began with, and what the provider made of them: the next request, the same
        history with a turn more, goes on from there."""

    @property
    def made(self) -> int:
        """Pieces serialised so far (what a test counts)."""
        return self._memo.made

    def piece(self, owner: Any, make: Callable[[], Iterable[Any]]) -> bytes:
        """`owner`'s piece: the values `make()` gives, as JSON joined by commas (b"" for none), made once."""
        return self._memo.get(owner, lambda: b",".join(dumps(value) for value in make()))

    def new_chars(self, messages: Sequence[Message]) -> int:
        """About how many characters at the end of `messages` are not made yet (a message changed in the middle, a
        tool result shortened, is small)."""
        size = 0
        for message in reversed(messages):
            if message in self._memo:
                break
            size += _rough_size(message)
        return size

    async def build(self, messages: Sequence[Message], build: Callable[[], bytes]) -> bytes:
        """What `build` makes of a request of `messages`: on a thread when much of it is new (a resumed session's
        first request, a large paste or image), else at once (a turn's own costs less than a thread's hand-off, and
        no memory arena of the thread's)."""
        if self.new_chars(messages) > ON_A_THREAD:
            return await asyncio.to_thread(build)
        return build()

    def resume(self, messages: Sequence[Message]) -> tuple[int, Any]:
        """How many of `messages` the last request began with, and what was made of them (0 and None if it began
        otherwise). When the history changed since (an old tool result shortened, a message dropped), from the
        latest point before the first change that the last request marked (`keep`'s `before`)."""
        kept, made, before = self._prefix
        count = len(kept)
        if count and len(messages) >= count and messages[count - 1] is kept[-1] and list(messages[:count]) == kept:
            return count, made  # (list equality looks at identity first: one pass in C over the same objects)
        if before is None or not count:
            return 0, None
        first = next(
            (index for index, (now, then) in enumerate(zip(messages, kept, strict=False)) if now is not then),
            min(len(messages), count),
        )
        return before(first)

    def keep(
        self, messages: Sequence[Message], made: Any, before: Callable[[int], tuple[int, Any]] | None = None
    ) -> None:
        """What was made of `messages`, for the next request that begins with them. `before(k)`, for a request
        whose messages are these up to index k only: an index no greater than k, and what was made of the messages
        before it (0 and None for nothing)."""
        self._prefix = (list(messages), made, before)

    def request_done(self) -> None:
        """One more request was built; now and then, drop the pieces none of the last requests used."""
        with self._lock:
            self._memo.stamp += 1
            if self._memo.stamp % SWEEP_EVERY:
                return
        for message in self._prefix[0]:  # (taken whole from the prefix, their pieces were not asked for: still used)
            self._memo.touch(message)
        self._memo.sweep(self._memo.stamp - SWEEP_EVERY)

    def __len__(self) -> int:
        return len(self._memo)


def _rough_size(message: Message) -> int:
    size = 0
    for block in message.content:
        match block:
            case TextBlock(text=text) | ThinkingBlock(thinking=text):
                size += len(text)
            case ToolResultBlock(content=str() as text):
                size += len(text)
            case ToolResultBlock(content=items):
                size += sum(len(str(getattr(item, "text", "") or getattr(item, "source", ""))) for item in items)
            case ImageBlock(source=source) | DocumentBlock(source=source):
                size += len(str(source.get("data", "")))
            case ToolUseBlock(input=arguments):
                size += sum(len(str(value)) for value in arguments.values())
    return size


def body(head: Mapping[str, Any], messages: Iterable[bytes]) -> bytes:
    """The JSON object `head` with `"messages"`, the array of the given message JSONs (each one or more messages; an
    empty one is left out), as its last member."""
    opened = dumps(dict(head))[:-1]
    listed = b",".join(part for part in messages if part)
    return opened + (b',"messages":[' if len(opened) > 1 else b'"messages":[') + listed + b"]}"
