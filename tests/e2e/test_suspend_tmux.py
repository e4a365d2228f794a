"""The app stopped from outside (SIGTSTP, as a shell's job control or a terminal multiplexer sends it) and brought back
with `fg`, in a real terminal: it gives the shell its screen while stopped, comes back drawn whole, and reads keys
again."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

import pytest

from tests.e2e.test_tui_tmux import SIZES, Terminal, app_env
from tests.support.loopback import LoopbackServer
from tests.support.procs import descendants


def app_pid(terminal: Terminal, agentui_bin: str) -> int:
    """The app's process, under the terminal's shell."""
    pane = int(terminal._tmux("list-panes", "-t", "main", "-F", "#{pane_pid}").split()[0])
    (app,) = [pid for pid in descendants(pane) if agentui_bin in Path(f"/proc/{pid}/cmdline").read_bytes().decode()]
    return app


def terminal_descriptions(pid: int) -> int:
    """How many of `pid`'s descriptors are its terminal's."""
    fds = Path(f"/proc/{pid}/fd")
    links = []
    for fd in fds.iterdir():
        with contextlib.suppress(OSError):  # (one closed meanwhile)
            links.append(os.readlink(fd))
    return sum(link.startswith("/dev/pts/") for link in links)


@pytest.mark.parametrize("size", SIZES)
def test_stopped_and_brought_back_with_fg_the_app_is_drawn_whole_and_reads_keys(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path, size: tuple[int, int]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = app_env(clean_env, server, PS1="shell$ ")
    terminal = Terminal("bash --norc --noprofile -i", env, project, size=size)  # (job control: an interactive shell)
    try:
        terminal.wait_for("shell$")
        terminal.type(agentui_bin)
        terminal.keys("Enter")
        terminal.wait_for("Ask for something")
        terminal.type("before")
        terminal.wait_for("before")
        app = app_pid(terminal, agentui_bin)
        os.kill(app, signal.SIGTSTP)
        terminal.wait_for("Stopped")  # the shell's screen, its job stopped
        terminal.wait_gone("Ask for something")
        terminal.type("fg")
        terminal.keys("Enter")
        terminal.wait_for("· default ·")  # the status line, which nothing but a whole redraw brings back
        terminal.type(" after")
        screen = terminal.wait_for("before after")
        assert "agentui" in screen  # (the greeting above the prompt too)
    finally:
        terminal.close()


def test_a_continue_signal_without_a_stop_starts_nothing_again(
    agentui_bin: str, clean_env: dict[str, str], server: LoopbackServer, tmp_path: Path
) -> None:
    """SIGCONT comes to a running process too (`kill -CONT`, a shell's `bg`): Textual started its terminal mode
    again at each, with another writer thread (and ours its own description of the terminal), the last one's never
    ended."""
    project = tmp_path / "project"
    project.mkdir()
    terminal = Terminal(agentui_bin, app_env(clean_env, server), project)
    try:
        terminal.wait_for("Ask for something")
        app = app_pid(terminal, agentui_bin)
        terminal.type("one")
        terminal.wait_for("one")
        opened = terminal_descriptions(app)
        for _ in range(3):
            os.kill(app, signal.SIGCONT)
        terminal.type(" two")
        terminal.wait_for("one two")  # (the signals were handled before the keys after them)
        assert terminal_descriptions(app) == opened  # (a writer's own, not blocking, each time before)
    finally:
        terminal.close()
