"""The blackboard a conversation's agents share (the root agent, its sub-agents and parallel attempts): file claims,
so two never change one file at once (the second waits for the holder to end, up to a ceiling, or is told who holds
it; attempts change their own working copies' files, so they never wait for each other); findings, posted by one
for the others to read; and the count of failing calls repeated across them all."""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentui.core.events import AgentEnd, AgentStart, DoomLoop, Event, EventBus, FileClaim, Finding
from agentui.core.loop.doom_loop import DoomLoops, LoopStopped

CLAIM_WAIT = 30.0
"""Seconds an agent waits for another's claim on a file before it is told who holds it."""


@dataclass(frozen=True)
class Posted:
    agent: str
    text: str


class Blackboard:
    """One per conversation, made by its root agent and shared by every agent spawned from it."""

    def __init__(self, emit: Callable[[Event], None], session_id: str, claim_wait: float = CLAIM_WAIT) -> None:
        self.emit, self.session_id, self.claim_wait = emit, session_id, claim_wait
        self.claims: dict[str, Member] = {}
        """A claimed file (as its agent's working directory names it) -> the agent holding it."""
        self.findings: list[Posted] = []
        self.loops = DoomLoops()
        self._members: list[Member] = []
        """The root and the spawned agents that have not ended (an ended one matters no more)."""
        self._numbers = itertools.count(1)

    def join(self, name: str | None, cwd: Path, parent: Member | None = None) -> Member:
        """A member for a new agent (`name`, else a numbered one), spawned by `parent`'s (None: the root)."""
        member = Member(self, name or f"agent {next(self._numbers)}", cwd, parent)
        self._members = [*(m for m in self._members if m.parent is None or not m.ended), member]
        return member

    def peers(self, member: Member) -> bool:
        """Whether another agent is running beside `member`."""
        return any(other.live and other is not member for other in self._members)


def seat(inherited: Member | None, bus: EventBus, session_id: str, cwd: Path) -> Member:
    """An agent's member: the one it was spawned with, else the first of a new blackboard (a root agent's); either
    way watching the agent's bus."""
    return (inherited or Blackboard(bus.emit, session_id).join("main", cwd)).watch(bus)


class Member:
    """One agent's place on the blackboard: its claims, its posts, and what its run's end releases."""

    def __init__(self, board: Blackboard, name: str, cwd: Path, parent: Member | None) -> None:
        self.board, self.name, self.parent = board, name, parent
        self.cwd = Path(os.path.realpath(cwd))  # (as the dispatcher resolves the paths it claims)
        self.live = False
        self.claimed: set[str] = set()
        self._ended = asyncio.Event()

    @property
    def ended(self) -> bool:
        return self._ended.is_set()

    def spawn(self, name: str | None, cwd: Path) -> Member:
        """The member of an agent this one spawns."""
        return self.board.join(name, cwd, self)

    def watch(self, bus: EventBus) -> Member:
        """Follow the agent's runs on its bus: live from its start, its claims released at its end."""
        bus.on(self._seen)
        return self

    def _seen(self, event: Event) -> None:
        match event:
            case AgentStart():
                self.live = True
                self._ended.clear()
                if self.parent is None:  # (a run of the root: a new count of failing calls)
                    self.board.loops.reset()
            case AgentEnd():
                self.live = False
                self.release()
                self._ended.set()
            case _:
                pass

    def told(self) -> bool:
        """Whether its claims go on the bus: a spawned agent's always, the root's while another runs beside it (a
        conversation without sub-agents or attempts says nothing of them)."""
        return self.parent is not None or self.board.peers(self)

    def _ancestors(self) -> list[Member]:
        found, member = [], self.parent
        while member is not None:
            found.append(member)
            member = member.parent
        return found

    # File claims

    async def claim(self, path: Path) -> str | None:
        """Claim `path` before changing it: None once it is this agent's, else the sentence the model reads (another
        agent held it for longer than the board waits). An ancestor's claim does not count: it waits on this one."""
        key, board = self._key(path), self.board
        deadline = asyncio.get_running_loop().time() + board.claim_wait
        while (holder := self._holder(key)) is not None:  # (again after a wait: another waiter may have taken it)
            self._tell(key, "waiting", holder)
            try:
                await asyncio.wait_for(holder._ended.wait(), max(0.0, deadline - asyncio.get_running_loop().time()))
            except TimeoutError:
                self._tell(key, "refused", holder)
                shown = self._shown(key)
                return (
                    f"Not changed: {shown} is claimed by another agent working beside you ({holder.name}), which is "
                    "still running. Work on other files, or wait for it to finish and try again."
                )
        board.claims[key] = self
        if key not in self.claimed:
            self.claimed.add(key)
            if self.told():
                self._tell(key, "claimed")
        return None

    def _holder(self, key: str) -> Member | None:
        """Another running agent holding `key` that this one must wait for (not an ancestor: it waits on this one)."""
        holder = self.board.claims.get(key)
        if holder is None or holder is self or not holder.live or holder in self._ancestors():
            return None
        return holder

    def release(self) -> None:
        """Let go of every claim (the agent's run ended)."""
        told = self.told()
        for key in sorted(self.claimed):
            if self.board.claims.get(key) is self:
                del self.board.claims[key]
                if told:
                    self._tell(key, "released")
        self.claimed.clear()

    def _key(self, path: Path) -> str:
        """The file itself (resolved, as the dispatcher checked it): agents in one directory claim the same file,
        while parallel attempts, each in its own working copy, never wait for each other's copies."""
        return os.path.realpath(path)

    def _shown(self, key: str) -> str:
        """The file as this agent's working directory names it."""
        try:
            return Path(key).relative_to(self.cwd).as_posix()
        except ValueError:
            return key

    def _tell(self, key: str, state: Any, holder: Member | None = None) -> None:
        board = self.board
        said = FileClaim(
            session_id=board.session_id,
            path=self._shown(key),
            agent=self.name,
            state=state,
            holder=holder and holder.name,
        )
        board.emit(said)

    # Findings

    def post(self, text: str) -> None:
        self.board.findings.append(Posted(self.name, text))
        self.board.emit(Finding(session_id=self.board.session_id, agent=self.name, text=text))

    def others(self) -> list[tuple[str, str]]:
        """The findings the other agents posted, oldest first, as (agent, text)."""
        return [(posted.agent, posted.text) for posted in self.board.findings if posted.agent != self.name]

    # Doom loops

    def failed(self, tool: str, arguments: dict[str, Any], error: str) -> str | None:
        """Count a failing call: the nudge for the model at the third identical one, else None (from the fourth the
        run is stopped: `check` raises)."""
        repeat = self.board.loops.failed(tool, arguments, error)
        if repeat is None:
            return None
        board = self.board
        board.emit(
            DoomLoop(
                session_id=board.session_id, agent=self.name, tool_name=tool, input=arguments,
                error=error[:2000], count=repeat.count, action=repeat.action, message=repeat.message,
            )
        )  # fmt: skip
        return repeat.message if repeat.action == "nudge" else None

    def check(self) -> None:
        """Raise LoopStopped when a call has failed too often in this run (by this agent or any other)."""
        if (stopped := self.board.loops.stopped) is not None:
            raise LoopStopped(stopped)
