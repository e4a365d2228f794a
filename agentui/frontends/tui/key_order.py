"""Keys handled in the order they were typed. Textual runs a key's binding (Backspace and the arrows in a text box,
Ctrl+U in a field) only once the key has bubbled up from the focused widget to the app, and hands the keys that came
meanwhile straight to the focused widget: a burst from the terminal (fast typing on a loaded machine, a held key, a
paste without brackets) of "abc", Backspace, "d" came out "abcd". Here a key (or a paste) waits until the one before
it has been handled all the way (stopped by a widget, or past the app's bindings), then goes to whatever has the focus
by then, as it would have if it had been typed a moment later (a focus that moves later, after a message the key's
handler posted, is not waited for). A key still going after HOLD_LIMIT seconds (a handler that waits on something)
holds nothing back from then on, until it is done."""

from __future__ import annotations

import time
from collections import deque
from typing import Any

from textual import events
from textual.app import App, ScreenStackError
from textual.message_pump import MessagePump
from textual.timer import Timer

HOLD_LIMIT = 0.5
"""Seconds a key may hold back the keys after it."""

Typed = events.Key | events.Paste


class KeysInOrder(App[Any]):
    """An app whose keys and pastes from the terminal reach their widgets one at a time, in order."""

    _key_going: Typed | None = None
    """The last key sent on, until it has been handled all the way."""
    _key_sent_at = 0.0
    _key_stuck: Typed | None = None
    """A key that went on past HOLD_LIMIT: until it is done, keys are sent on as they come, without waiting."""
    _key_timer: Timer | None = None
    _key_at: MessagePump | None = None
    """Where the going (or stuck) key was last followed to."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._keys_held: deque[Typed] = deque()

    def keys_held(self) -> bool:
        """Some keys wait for the one before them."""
        return bool(self._keys_held)

    async def on_event(self, event: events.Event) -> None:
        if not isinstance(event, Typed) or event.is_forwarded:
            await super().on_event(event)
            return
        self._forget_lost_key()
        if self._gave_up() and self._keys_held:
            self.call_later(self._release)
        if self._key_going is not None or self._keys_held:
            self._keys_held.append(event)
            if self._key_going is not None and self._key_timer is None:
                self._key_timer = self.set_timer(self._hold_left(), self._on_hold_limit)
            return
        await self._send_on(event)

    def _hold_left(self) -> float:
        """Seconds until the going key has held the others back for HOLD_LIMIT."""
        return max(HOLD_LIMIT - (time.monotonic() - self._key_sent_at), 0.01)

    async def _send_on(self, event: Typed) -> None:
        """Textual's own handling of a key from the terminal: the app's priority bindings, else to the focused widget
        (or the screen); followed from there up to the app while it bubbles."""
        try:
            target: MessagePump | None = self.focused or self.screen
        except ScreenStackError:  # (closing: Textual says so its own way)
            target = None
        await super().on_event(event)
        if target is not None and event.is_forwarded and self._key_stuck is None:
            self._key_going, self._key_sent_at, self._key_at = event, time.monotonic(), target
            if not target.call_later(self._follow, event, target):
                self._key_done(event)

    def _follow(self, event: Typed, pump: MessagePump) -> None:
        """After `pump` has handled `event`: it stopped there, or went on to `pump`'s parent (Textual's rule for
        bubbling, in MessagePump._on_message), where it is followed again."""
        if event is not self._key_going and event is not self._key_stuck:
            return
        parent = pump._parent
        stopped = event._stop_propagation and event._sender is not parent  # (the sender's own parent still gets it)
        went_on = not (pump is self or parent is None or stopped) and pump.is_parent_active and pump.is_attached
        if parent is None or not went_on or not parent.call_later(self._follow, event, parent):
            self._key_done(event)
        else:
            self._key_at = parent

    def _forget_lost_key(self) -> None:
        """A key whose widget was removed before it handled it will never be done: it holds nothing back."""
        at = self._key_at
        if at is not None and at is not self and (at._closing or at._closed or not at.is_attached):
            for event in (self._key_going, self._key_stuck):
                if event is not None:
                    self._key_done(event)

    def _key_done(self, event: Typed) -> None:
        if event is self._key_stuck:
            self._key_stuck = None
        if event is self._key_going:
            self._key_going = None
            if self._keys_held:
                self.call_later(self._release)

    def _gave_up(self, early: float = 0.0) -> bool:
        """The going key has held the others back for HOLD_LIMIT (less `early`: a timer can fire a little before its
        time): it is stuck from now on."""
        going = self._key_going
        if going is None or time.monotonic() - self._key_sent_at < HOLD_LIMIT - early:
            return False
        self._key_stuck, self._key_going = going, None
        return True

    def _on_hold_limit(self) -> None:
        self._key_timer = None
        self._forget_lost_key()
        self._gave_up(early=0.01)
        if self._key_going is None:
            self.call_later(self._release)
        elif self._keys_held:
            self._key_timer = self.set_timer(self._hold_left(), self._on_hold_limit)

    async def _release(self) -> None:
        """The first held key. The next one follows once this one is done; or, if this one was not sent on (a priority
        binding took it), after what that binding set going has had its turn (a screen it opened takes the focus)."""
        held = self._keys_held
        if held and self._key_going is None:
            await self._send_on(held.popleft())
            if held and self._key_going is None:
                self.call_later(self._release)
        if not held and self._key_timer is not None:
            self._key_timer.stop()
            self._key_timer = None
