"""When each message joined the history (compaction's time gaps): known for the messages it holds, by identity, and
not a reason to keep alive a message it no longer holds (issue 34's flat memory)."""

from __future__ import annotations

import gc
import weakref

from agentui.core.context.history import History
from agentui.core.context.window import TokenCounter
from agentui.core.messages import Message, TextBlock


def message(text: str) -> Message:
    return Message(role="user", content=[TextBlock(text=text)])


def history() -> History:
    kept = History(counter=TokenCounter({}, exact=False))
    ticks = iter(range(100, 200))
    kept.clock = lambda: float(next(ticks))
    return kept


def test_each_message_has_the_time_it_joined_and_equal_ones_are_two() -> None:
    kept = history()
    first, again = message("go on"), message("go on")  # (equal in value)
    kept.messages.append(first)
    kept.stamp()
    kept.messages.append(again)
    kept.stamp()
    assert kept.times_of([first, again, message("never joined")]) == [100.0, 101.0, None]


def test_a_message_the_history_no_longer_holds_is_not_kept_alive_by_its_time() -> None:
    """Old tool results are shortened in place as a long run goes on: the times kept every one whole (50 MB over
    1,000 turns of 50 KB reads)."""
    kept = history()
    old = message("a tool's long output " * 1000)
    kept.messages.append(old)
    kept.stamp()
    gone = weakref.ref(old)
    kept.messages[0] = message("[the output was shortened]")  # in place, as old tool results are shortened
    del old
    gc.collect()
    assert gone() is None
    assert kept._times == {}  # (its entry went with it)
