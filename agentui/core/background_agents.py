"""Sub-agents of a workspace as tasks: the cap on how many run at once (the others wait their turn, "pending", as
Claude Code calls a task not started), and the ones the model started with `run_in_background`, which go on while
the conversation does. The model reads one with TaskOutput and ends one with TaskStop; each is stopped when the
conversation closes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

AgentTaskStatus = Literal["pending", "running", "completed", "failed", "killed"]
MAX_SUBAGENTS = 10
"""Sub-agents running at once, by default: Claude Code runs at most 10 tool calls of one response at once
(CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY), so at most 10 sub-agents from one response; it has no cap across responses,
which background agents make possible, and agentui keeps the same number for them. AGENTUI_MAX_SUBAGENTS or the
config file's `max_subagents` changes it."""


class Slots:
    """At most `limit` holders at once; the others wait in the order they came."""

    def __init__(self, limit: int = MAX_SUBAGENTS) -> None:
        self.limit = limit
        self.running = 0
        self._waiting: list[asyncio.Future[None]] = []

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    @asynccontextmanager
    async def slot(self, queued: Callable[[], object] = lambda: None) -> AsyncIterator[None]:
        """Hold one slot for the body; `queued` is called first when the body must wait for one."""
        if self.running >= self.limit or self._waiting:
            queued()
            turn = asyncio.get_running_loop().create_future()
            self._waiting.append(turn)
            try:
                await turn
            except asyncio.CancelledError:
                if turn in self._waiting:
                    self._waiting.remove(turn)
                elif turn.done() and not turn.cancelled():
                    self._release()  # (handed a slot just as it was cancelled: it goes to the next)
                raise
        else:
            self.running += 1
        try:
            yield
        finally:
            self._release()

    def _release(self) -> None:
        while self._waiting:
            turn = self._waiting.pop(0)
            if not turn.done():
                turn.set_result(None)  # (the slot passes straight on: `running` stays as it is)
                return
        self.running -= 1


@dataclass
class AgentTask:
    """A sub-agent the model sent to the background."""

    id: str
    description: str
    agent_type: str
    tool_use_id: str
    output_path: str
    """Its transcript (`agent-<id>.jsonl`), as Claude Code's output file leads to it; "" when none is written."""
    status: AgentTaskStatus = "pending"
    result: str = ""
    error: str | None = None
    total_tokens: int = 0
    tool_uses: int = 0
    duration_ms: int = 0
    done: asyncio.Event = field(default_factory=asyncio.Event)
    runner: asyncio.Task[None] | None = None


class BackgroundAgents:
    """The workspace's sub-agent slots and its background sub-agents, by id."""

    def __init__(self) -> None:
        self.slots = Slots()
        self._tasks: dict[str, AgentTask] = {}
        self.on_change: Callable[[AgentTask], None] = lambda task: None
        """Called when one is queued, starts, ends or is stopped (the conversation emits an event for it)."""

    def start(self, task: AgentTask, work: Callable[[AgentTask], Coroutine[Any, Any, None]]) -> AgentTask:
        """Run `work(task)` on its own: it sets the task's status and result as it goes."""
        self._tasks[task.id] = task
        task.runner = asyncio.get_running_loop().create_task(self._run(task, work))
        return task

    async def _run(self, task: AgentTask, work: Callable[[AgentTask], Coroutine[Any, Any, None]]) -> None:
        try:
            await work(task)
        except asyncio.CancelledError:
            task.status = "killed"
        except Exception as exc:  # (a failure of the sub-agent's own, told to the model; never lost in a task)
            task.status, task.error = "failed", str(exc) or type(exc).__name__
        finally:
            if task.status in ("pending", "running"):
                task.status = "killed"
            task.done.set()
            self.changed(task)

    def changed(self, task: AgentTask) -> None:
        self.on_change(task)

    def get(self, task_id: str) -> AgentTask | None:
        return self._tasks.get(task_id.strip())

    def all(self) -> list[AgentTask]:
        return list(self._tasks.values())

    def running(self) -> list[AgentTask]:
        """The ones not ended (running, or waiting for a slot)."""
        return [task for task in self._tasks.values() if not task.done.is_set()]

    async def wait(self, task: AgentTask, seconds: float) -> bool:
        """Wait until it ends, at most `seconds`; True if it has ended."""
        try:
            await asyncio.wait_for(task.done.wait(), seconds)
        except TimeoutError:
            return False
        return True

    async def stop(self, task: AgentTask) -> None:
        """Cancel it (the sub-agent ends its run cleanly first) and wait until it has ended."""
        if task.runner is not None and not task.done.is_set():
            task.runner.cancel()
            await asyncio.wait([task.runner], timeout=10)

    async def stop_all(self) -> None:
        await asyncio.gather(*(self.stop(task) for task in self.running()))


@dataclass(frozen=True)
class AgentTaskInfo:
    """A background sub-agent as a front end shows it (/tasks): what it was sent to do, and what it said."""

    id: str
    description: str
    agent_type: str
    status: AgentTaskStatus
    said: str
    """Its answer, or why it failed; "" while it works."""


class _Workspace(Protocol):
    @property
    def agents(self) -> BackgroundAgents: ...


class _Project(Protocol):
    @property
    def workspace(self) -> _Workspace: ...


class _Conversation(Protocol):
    @property
    def project(self) -> _Project: ...


def background_agents(conversation: _Conversation) -> list[AgentTaskInfo]:
    """The sub-agents the model sent to the background in this conversation, running or ended, oldest first."""
    return [
        AgentTaskInfo(task.id, task.description, task.agent_type, task.status, task.error or task.result)
        for task in conversation.project.workspace.agents.all()
    ]
