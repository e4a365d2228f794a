"""Programs a credential library starts on a worker thread (botocore's credential_process), started the way agentui
starts every program (a session of their own, marked and journalled) so that a helper given up on is ended, not left
running, and whatever is left of one if agentui dies is ended at the next start."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Sequence
from typing import Any

from agentui.core.process_dir import current
from agentui.core.process_groups import signal_group


class HelperProcesses:
    """A `subprocess.Popen` stand-in for a library that takes one (botocore's ProcessProvider), remembering what it
    started so that `end()` can stop it."""

    def __init__(self) -> None:
        self._started: list[subprocess.Popen[bytes]] = []
        self._lock = threading.Lock()  # (started on worker threads, ended from the event loop's)

    def popen(self, argv: Sequence[str], **options: Any) -> subprocess.Popen[bytes]:
        directory = current()
        mark, env = directory.about_to_start(options.pop("env", None) or os.environ)
        process: subprocess.Popen[bytes] = subprocess.Popen(argv, env=env, start_new_session=True, **options)
        directory.own_group(process.pid, mark)
        with self._lock:
            self._started = [*(kept for kept in self._started if kept.poll() is None), process]
        return process

    def end(self) -> None:
        """Kill every helper still running, with whatever it started in its group: one that was given up on has had
        its time, and nothing waits for its answer any more."""
        with self._lock:
            running, self._started = [process for process in self._started if process.poll() is None], []
        for process in running:
            signal_group(process.pid, signal.SIGKILL)
