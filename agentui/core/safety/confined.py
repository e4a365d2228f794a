"""A Bash command ready to start confined (in the sandbox, under the guard, or neither): its argv and environment, the
descriptors it must inherit, and what to undo once it has ended (stand-ins, private files)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

How = Literal["sandbox", "guard", "none"]


@dataclass
class Confined:
    argv: list[str]
    env: dict[str, str]
    how: How = "none"
    pass_fds: tuple[int, ...] = ()
    """Descriptors the child inherits (the seccomp program for bubblewrap); closed here once it has started."""
    cleanups: list[Callable[[], object]] = field(default_factory=list)

    def started(self) -> None:
        """The child has been started (or could not be): its inherited descriptors are closed in agentui."""
        for fd in self.pass_fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.pass_fds = ()

    def ended(self) -> None:
        """The child and everything it started have ended: undo what was set up for it (once)."""
        self.started()
        cleanups, self.cleanups = self.cleanups, []
        for cleanup in reversed(cleanups):
            cleanup()
