"""Continuing a conversation, in phi-core's three kinds: "default", a new prompt (as `send`); "rerun", the last
prompt sent again, its answer and tool calls dropped first (the files are left as they are); "branch", a new prompt
on a new session forked from any earlier message (as Claude Code's --fork-session with --resume-session-at). Each
sets the trigger its run's AgentStart carries."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from agentui.core.errors import AgentuiError
from agentui.core.session.lookup import SessionRequest

ContinueKind = Literal["default", "rerun", "branch"]


class ContinueError(AgentuiError):
    """A continuation that cannot be made (no prompt to rerun, no message to branch from); one sentence."""


class _Point(Protocol):
    @property
    def uuid(self) -> str: ...


class Continuable(Protocol):
    """What a continuation acts on: a conversation (`Conversation` is one)."""

    launch: Any
    agent: Any
    session: Any

    @property
    def running(self) -> bool: ...

    async def send(self, text: str) -> Any: ...

    def prompts(self) -> Sequence[_Point]: ...

    def rewind(self, to: str, *, code: bool = True, conversation: bool = True, overwrite: bool = False) -> Any: ...


Opener = Callable[[Any], Any]
"""Opens a conversation from a launch (the assembly's `open_conversation`, as the conversation was opened)."""


@dataclass(frozen=True)
class Branched:
    """A branch's outcome: the new session and its first run's result. `conversation` is the new conversation, for
    the front end to go on with (and to close); the one branched from is left as it was."""

    session_id: str
    result: Any
    conversation: Any = field(default=None, repr=False, metadata={"json": False})


async def continue_conversation(
    conversation: Continuable, opener: Opener | None, kind: ContinueKind, text: str, at: str | None
) -> Any:
    """Do the continuation `kind` (see the module's doc): a run's result, or for a branch a `Branched`."""
    if conversation.running:
        raise ContinueError("A run is going on; continue once it has finished, or steer it.")
    match kind:
        case "default":
            if not text.strip():
                raise ContinueError("A default continuation needs a prompt.")
            return await conversation.send(text)
        case "rerun":
            points = conversation.prompts()
            if not points:
                raise ContinueError("There is no prompt in this conversation to run again.")
            rewound = conversation.rewind(points[-1].uuid, code=False)
            conversation.agent.loops.next("rerun")
            return await conversation.send(text or rewound.prompt)
        case "branch":
            return await _branch(conversation, opener, text, at)


async def _branch(conversation: Continuable, opener: Opener | None, text: str, at: str | None) -> Branched:
    if not at:
        raise ContinueError("A branch needs the message it starts from (its uuid).")
    if not text.strip():
        raise ContinueError("A branch needs a prompt.")
    if opener is None:
        raise ContinueError("This conversation was not opened to branch.")
    session = SessionRequest(resume=str(conversation.session.path), resume_at=at, fork=True)
    try:
        fork = opener(dataclasses.replace(conversation.launch, session=session))
    except AgentuiError as exc:  # (no such message: the session's own sentence)
        raise ContinueError(str(exc)) from None
    fork.agent.loops.next("branch")
    # The branch's first run is seen by whoever watches this conversation (their front end goes on with the fork
    # afterwards); this session's writer leaves another session's events alone.
    forward = fork.agent.bus.on(conversation.agent.bus.emit)
    try:
        result = await fork.send(text)
    except BaseException:
        await fork.aclose()
        raise
    finally:
        forward()
    return Branched(fork.session_id, result, fork)
