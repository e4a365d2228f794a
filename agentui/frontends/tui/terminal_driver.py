"""Textual's Linux driver with a typed key's frame written by the thread that drew it (direct_writer), not by a thread
that wakes to write it, and started again only after a stop."""

from __future__ import annotations

from rich.console import RenderableType
from textual.app import App
from textual.driver import Driver
from textual.drivers import linux_driver
from textual.drivers._writer_thread import WriterThread
from textual.drivers.linux_driver import LinuxDriver
from textual.screen import Screen

from agentui.frontends.tui.direct_writer import DirectWriter, frame


class DirectLinuxDriver(LinuxDriver):
    """Textual's Linux driver with a DirectWriter for its writer (started again after a suspend, as Textual's is)."""

    def start_application_mode(self) -> None:
        # Textual's start makes its writer, starts the input thread and queries the terminal, whose reply is answered
        # by the input thread writing at once: the writer must be ours from the start, not swapped in after (what
        # went to the swapped-out one was lost: the terminal's in-band resizes were never turned on). Only this
        # thread makes drivers' writers.
        linux_driver.WriterThread = DirectWriter  # type: ignore[attr-defined]
        try:
            super().start_application_mode()  # type: ignore[no-untyped-call]
        finally:
            linux_driver.WriterThread = WriterThread  # type: ignore[attr-defined]

    def _sigcont_application(self, *_: object) -> None:
        # Textual starts application mode again at any SIGCONT, stopped before or not: a `kill -CONT` (or a shell's
        # `bg` of a running job) left a second writer thread and the first one's terminal description behind.
        if self._must_signal_resume:  # (set by the SIGTSTP that stopped it)
            super()._sigcont_application()


class WritesFramesDirectly(App[None]):
    """An app on the driver above, in place of Textual's Linux driver (any other driver is left as it is)."""

    def get_driver_class(self) -> type[Driver]:
        driver = super().get_driver_class()
        return DirectLinuxDriver if driver is LinuxDriver else driver

    def _display(self, screen: Screen[object], renderable: RenderableType | None) -> None:
        with frame(self._driver):  # one write, by this thread when the terminal takes it at once
            super()._display(screen, renderable)
