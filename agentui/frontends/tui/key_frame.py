"""A typed key's frame drawn as soon as the key is handled, not after Textual's round of idle messages and its update
timer (about a millisecond of hops on an idle machine, up to a frame's interval while an answer streams)."""

from __future__ import annotations

from itertools import islice

from textual import events
from textual.message_pump import MessagePump
from textual.widget import Widget

from agentui.frontends.tui.key_order import KeysInOrder


def draw_now(widget: Widget) -> None:
    """Draw `widget`'s repaint now, with whatever else the screen was about to draw (a streaming answer's layout:
    the same work the timer would do, only sooner). A key that changes the widget's own size goes the usual way,
    which tells its ancestors. Relies on Textual's screen update (`Screen._on_timer_update`), checked by
    tests/frontends/tui/test_key_frame.py.

    Not while more keys wait (a flood: a paste without brackets, keys faster than frames): a frame per key there costs
    more than the keys, and the app falls behind them."""
    if not widget.is_attached:
        return
    app = widget.app
    screen = widget.screen
    if screen is not app.screen or app._batch_count or not widget._repaint_required:
        return
    if _keys_waiting(app) or _keys_waiting(widget) or (isinstance(app, KeysInOrder) and app.keys_held()):
        return  # (drawn with those after it, on Textual's update timer)
    if widget._layout_required:
        return
    widget._repaint_required = False
    screen._dirty_widgets.add(widget)
    screen._on_timer_update()


def _keys_waiting(pump: MessagePump) -> bool:
    """A key among the first few messages waiting for `pump` (a look that stays cheap however long a flood is)."""
    first: list[object] = list(islice(pump._message_queue.values, 8))
    return any(isinstance(message, events.Key) for message in first)
