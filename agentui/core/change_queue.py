"""Plan mode's change queue: the edits and writes the model makes while planning, kept as proposals (not made) until
the person approves the plan, then applied together, each file backed up first so a rewind undoes them, or dropped.

Off by default (Claude Code's plan mode refuses changes); `--permission-mode plan-queue` or the setting turns it on.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agentui.core.atomic_write import atomic_write
from agentui.core.errors import AgentuiError

PLAN_QUEUE_VARIABLE = "AGENTUI_PLAN_QUEUE"
"""Set to 1: plan mode queues changes (as `--permission-mode plan-queue`), for front ends started by other programs."""


class ModeHolder(Protocol):
    """What owns the permission mode (the permission engine)."""

    @property
    def mode(self) -> str: ...


@dataclass
class Proposal:
    path: Path
    """Resolved when the permission check approved queueing it."""
    original: bytes | None
    """The file's bytes when its first change was queued (None: it did not exist), checked again before applying."""
    proposed: bytes

    @property
    def digest(self) -> str:
        """What the person is shown is checked to be what is written."""
        return hashlib.sha256(self.proposed).hexdigest()


@dataclass
class Applied:
    """What an approval did: the files changed, and those whose queued changes were dropped."""

    changed: list[Path]
    dropped: list[Path]


class QueueConflict(AgentuiError):
    """The queued changes could not be applied as they were shown; nothing was changed."""


class ChangeQueue:
    """The proposals of one session, in the order their files were first changed."""

    def __init__(self, modes: ModeHolder, *, enabled: bool = False) -> None:
        self._modes = modes
        self.enabled = enabled
        self._proposals: dict[Path, Proposal] = {}

    @property
    def active(self) -> bool:
        """Changes are queued now: the queue is on and the mode is plan."""
        return self.enabled and self._modes.mode == "plan"

    def __len__(self) -> int:
        return len(self._proposals)

    def proposals(self) -> list[Proposal]:
        return list(self._proposals.values())

    def proposed(self, path: Path) -> bytes | None:
        """The bytes the file would have once its queued changes are applied (None: nothing is queued for it)."""
        proposal = self._proposals.get(path)
        return proposal.proposed if proposal is not None else None

    def propose(self, path: Path, data: bytes) -> None:
        """`data` becomes the file's proposed content; the file's present bytes are kept, the first time, to check
        that nothing else changed it before the change is applied."""
        if (known := self._proposals.get(path)) is not None:
            known.proposed = data
            return
        try:
            original: bytes | None = path.read_bytes()
        except FileNotFoundError:
            original = None
        self._proposals[path] = Proposal(path, original, data)

    def apply(self, chosen: Mapping[str, str], before_write: Callable[[Path], None]) -> Applied:
        """The chosen files' changes made, all or none; the others dropped. `chosen`: each file with the digest of
        the content the person was shown. The queue is empty afterwards either way. Raises QueueConflict (having
        changed nothing) when a chosen change is no longer what was shown (queued again meanwhile, by a sub-agent
        say), a file changed since its change was queued, a link now stands in its path, or a write fails (those
        already written are put back)."""
        proposals, self._proposals = list(self._proposals.values()), {}
        taken = [p for p in proposals if str(p.path) in chosen]
        dropped = [p.path for p in proposals if str(p.path) not in chosen]
        for proposal in taken:
            if proposal.digest != chosen[str(proposal.path)]:
                raise QueueConflict(
                    f"the change to {proposal.path} was queued again after you were shown it, so none of the "
                    "queued changes were made"
                )
            if (problem := _moved_on(proposal)) is not None:
                raise QueueConflict(f"{problem}, so none of the queued changes were made")
        written: list[Proposal] = []
        try:
            for proposal in taken:
                before_write(proposal.path)
                atomic_write(proposal.path, proposal.proposed)
                written.append(proposal)
        except OSError as exc:
            _put_back(written)
            raise QueueConflict(
                f"{proposal.path} could not be written ({exc.strerror or exc}), so none of the queued changes were made"
            ) from exc
        return Applied([p.path for p in taken], dropped)

    def drop(self) -> list[Path]:
        """Forget every proposal (the plan was approved without them, or the queue was turned off)."""
        proposals, self._proposals = list(self._proposals), {}
        return proposals


def _moved_on(proposal: Proposal) -> str | None:
    """Why the file is no longer as it was when its change was queued, if it is not."""
    path = proposal.path
    if os.path.realpath(path.parent) != str(path.parent) or path.is_symlink():
        return f"{path} is reached through a link now"
    try:
        now: bytes | None = path.read_bytes()
    except FileNotFoundError:
        now = None
    except OSError as exc:
        return f"{path} could not be read ({exc.strerror or exc})"
    if now != proposal.original:
        return f"{path} changed since its change was queued"
    return None


def _put_back(written: list[Proposal]) -> None:
    """Undo the writes of an apply that failed part-way (best effort: the file history has them too)."""
    for proposal in reversed(written):
        try:
            if proposal.original is None:
                proposal.path.unlink(missing_ok=True)
            else:
                atomic_write(proposal.path, proposal.original)
        except OSError:
            pass
