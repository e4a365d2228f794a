"""Textual's Linux driver with the two hops of a typed key taken out: its frame is written by the thread that drew it
(direct_writer), and the key is read by the event loop (loop_input), not by threads that each wake to pass it on."""

from __future__ import annotations

import os
import signal
import threading
from functools import partial

from rich.console import RenderableType
from textual.app import App
from textual.driver import Driver
from textual.drivers import linux_driver
from textual.drivers._writer_thread import WriterThread
from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message
from textual.screen import Screen

from agentui.frontends.tui.direct_writer import DirectWriter, frame
from agentui.frontends.tui.loop_input import LoopInput


class DirectLinuxDriver(LinuxDriver):
    """Textual's Linux driver with the writer and the reader above (started again after a suspend, as Textual's
    are)."""

    def start_application_mode(self) -> None:
        # Textual's start makes its writer, starts the input thread and queries the terminal, whose reply is answered
        # by the input thread writing at once: the writer must be ours from the start, not swapped in after (what
        # went to the swapped-out one was lost: the terminal's in-band resizes were never turned on). The input
        # thread it makes is the only Thread of its module's. Only this thread starts drivers.
        linux_driver.WriterThread = DirectWriter  # type: ignore[attr-defined]
        linux_driver.Thread = self._reader  # type: ignore[attr-defined,assignment]
        try:
            super().start_application_mode()  # type: ignore[no-untyped-call]
        finally:
            linux_driver.WriterThread = WriterThread  # type: ignore[attr-defined]
            linux_driver.Thread = threading.Thread  # type: ignore[attr-defined]

    def _sigcont_application(self, *_: object) -> None:
        # Textual starts application mode again at any SIGCONT, stopped before or not: a `kill -CONT` (or a shell's
        # `bg` of a running job) left a second writer thread and the first one's terminal description behind.
        if self._must_signal_resume:  # (set by the SIGTSTP that stopped it)
            super()._sigcont_application()

    def _reader(self, *_: object, **__: object) -> LoopInput:
        # The terminal gone is a hang-up (the app ends as at SIGHUP); an error reading it ends the app as any
        # internal error does (Textual's thread panicked the app).
        hang_up = partial(os.kill, os.getpid(), signal.SIGHUP)
        return LoopInput(self.fileno, self.process_message, self._debug, hang_up, self._app._handle_exception)

    def send_message(self, message: Message) -> None:
        if threading.get_ident() == self._app._thread_id:  # read by the loop: to the app's queue now
            self._app.post_message(message)
        else:  # (as Textual's, for a caller on another thread)
            super().send_message(message)


class WritesFramesDirectly(App[None]):
    """An app on the driver above, in place of Textual's Linux driver (any other driver is left as it is)."""

    def get_driver_class(self) -> type[Driver]:
        driver = super().get_driver_class()
        return DirectLinuxDriver if driver is LinuxDriver else driver

    def _display(self, screen: Screen[object], renderable: RenderableType | None) -> None:
        with frame(self._driver):  # one write, by this thread when the terminal takes it at once
            super()._display(screen, renderable)
