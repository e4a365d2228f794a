"""The commands a front end gives a conversation, as data: one union of frozen pydantic models, each with its `type`,
mirroring the event union, so that a command arrives as a JSON line as readily as a method call.

`Conversation.handle(command)` does what the command says and returns what the method it stands for returns;
`outcome_json` turns that into JSON for a protocol.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol, assert_never, cast

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from agentui.core.errors import AgentuiError
from agentui.core.events import PermissionDecision, PermissionMode
from agentui.core.messages import ImageBlock


class CommandError(AgentuiError):
    """A command that is not one: not JSON, an unknown type, a missing or wrong field."""


class _Command(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    type: str  # narrowed to a Literal by each command; declared here so it leads every JSON line
    id: str | None = None
    """The caller's name for this command, given back with its outcome."""


class Send(_Command):
    """A prompt: runs until the model has answered and its tool calls are done. Outcome: the run's result."""

    type: Literal["send"] = "send"
    text: str
    images: tuple[ImageBlock, ...] = ()


class Continue(_Command):
    """Continue the conversation: `text` as a new prompt ("default"), the last prompt run again with its answer and
    tool calls dropped ("rerun"; `text`, if given, in its place), or `text` on a new session forked at the message
    `at` ("branch"). Outcome: the run's result; for a branch, the new session's id and its result, and the
    conversation goes on there."""

    type: Literal["continue"] = "continue"
    kind: Literal["default", "rerun", "branch"] = "default"
    text: str = ""
    at: str | None = None
    """A branch's message: its session line's uuid."""


class Steer(_Command):
    """A message for the run going on: the model sees it after the current tool calls."""

    type: Literal["steer"] = "steer"
    text: str
    images: tuple[ImageBlock, ...] = ()


class FollowUp(_Command):
    """The next prompt, once the model ends its turn (a prompt at once if nothing runs). Outcome: the run's result
    when it started one, else nothing."""

    type: Literal["follow_up"] = "follow_up"
    text: str


class Interrupt(_Command):
    """Stop the running step now: the run ends "cancelled"."""

    type: Literal["interrupt"] = "interrupt"


class Answer(_Command):
    """The answer to a permission request. Outcome: whether anything was waiting for it."""

    type: Literal["answer"] = "answer"
    request_id: str
    decision: PermissionDecision


class SetMode(_Command):
    type: Literal["set_mode"] = "set_mode"
    mode: PermissionMode


class CycleMode(_Command):
    """Shift+Tab: the next permission mode. Outcome: the mode now."""

    type: Literal["cycle_mode"] = "cycle_mode"


class SetModel(_Command):
    type: Literal["set_model"] = "set_model"
    model: str


class Compact(_Command):
    """Summarise all but the recent turns now. Outcome: the run's result."""

    type: Literal["compact"] = "compact"
    instructions: str | None = None


class Pin(_Command):
    """Pin the person's prompt (its text as sent) or a tool call's result, or unpin it if it is pinned: every
    compaction carries a pinned message verbatim. Outcome: whether it is pinned now."""

    type: Literal["pin"] = "pin"
    prompt: str | None = None
    tool_call_id: str | None = None


class Rewind(_Command):
    """Back to before a prompt (a `prompts` point's uuid): the files changed since and the conversation."""

    type: Literal["rewind"] = "rewind"
    to: str
    code: bool = True
    conversation: bool = True
    overwrite: bool = False


class Tree(_Command):
    """The session's branches (rewinds, forks, attempts, sub-agents) as `agentui tree --json` prints them, the one
    the conversation is on marked current. Outcome: the tree."""

    type: Literal["tree"] = "tree"


class SwitchBranch(_Command):
    """Go on from the line `leaf` of this session's file (a `tree` node's `leaf_uuid`), as /tree does. Outcome: what
    the rewind to it restored."""

    type: Literal["switch_branch"] = "switch_branch"
    leaf: str


class RunShell(_Command):
    """The person's own `!command`. Outcome: what it printed, whether it failed, its details."""

    type: Literal["run_shell"] = "run_shell"
    command: str


class GrantForRun(_Command):
    """Allow these rules until the next run ends. Outcome: a sentence for each rule that could not be parsed."""

    type: Literal["grant_for_run"] = "grant_for_run"
    rules: tuple[str, ...]
    source: str = "command"


class EndGrants(_Command):
    type: Literal["end_grants"] = "end_grants"


class AddRule(_Command):
    """A permission rule, in force now and saved to the project's local settings. Outcome: that file."""

    type: Literal["add_rule"] = "add_rule"
    behavior: Literal["allow", "deny", "ask"]
    rule: str


class Export(_Command):
    """The conversation as text in a file. Outcome: the file."""

    type: Literal["export"] = "export"
    name: str = ""


class CompletePath(_Command):
    """What a typed path may go on as. Outcome: the candidates."""

    type: Literal["complete_path"] = "complete_path"
    typed: str


class Prompts(_Command):
    """The prompts of this branch, oldest first: the points a rewind can go back to."""

    type: Literal["prompts"] = "prompts"


class Replay(_Command):
    """The history a resumed conversation continues, as the events a live run emits. Outcome: those events."""

    type: Literal["replay"] = "replay"


class StopBackground(_Command):
    """Stop a background shell. Outcome: whether it was running."""

    type: Literal["stop_background"] = "stop_background"
    shell_id: str


Command = Annotated[
    Send
    | Continue
    | Steer
    | FollowUp
    | Interrupt
    | Answer
    | SetMode
    | CycleMode
    | SetModel
    | Compact
    | Pin
    | Rewind
    | Tree
    | SwitchBranch
    | RunShell
    | GrantForRun
    | EndGrants
    | AddRule
    | Export
    | CompletePath
    | Prompts
    | Replay
    | StopBackground,
    Field(discriminator="type"),
]


@cache
def _command_adapter() -> TypeAdapter[Command]:
    return TypeAdapter(Command)


def parse_command(line: str | bytes) -> Command:
    """A command from its JSON form; CommandError, in one sentence, for anything else."""
    try:
        return _command_adapter().validate_json(line)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise CommandError(f"not a command: {first['msg']}" + (f" at {where}" if where else "") + ".") from None


def outcome_json(outcome: object) -> Any:
    """A command's outcome as JSON: models and dataclasses as objects, paths as strings."""
    if isinstance(outcome, BaseModel):
        return outcome.model_dump(mode="json", exclude_none=True)
    if dataclasses.is_dataclass(outcome) and not isinstance(outcome, type):
        shown = [field for field in dataclasses.fields(outcome) if field.metadata.get("json", True)]
        return {field.name: outcome_json(getattr(outcome, field.name)) for field in shown}
    if isinstance(outcome, Path):
        return str(outcome)
    if isinstance(outcome, list | tuple):
        return [outcome_json(item) for item in outcome]
    if isinstance(outcome, dict):
        return {str(key): outcome_json(value) for key, value in outcome.items()}
    return outcome


class Controllable(Protocol):
    """What the commands act on: a conversation (`Conversation` is one). What each returns is the command's outcome."""

    @property
    def running(self) -> bool: ...

    async def send(self, text: str, images: Sequence[ImageBlock] = ()) -> object: ...

    async def continue_(self, kind: Literal["default", "rerun", "branch"], text: str, at: str | None) -> object: ...

    def steer(self, text: str, images: Sequence[ImageBlock] = ()) -> None: ...

    def follow_up(self, text: str) -> None: ...

    def interrupt(self) -> None: ...

    def answer(self, request_id: str, decision: PermissionDecision) -> bool: ...

    def set_mode(self, mode: PermissionMode) -> None: ...

    def cycle_mode(self) -> object: ...

    def set_model(self, model: str) -> object: ...

    async def compact(self, instructions: str | None = None) -> object: ...

    def pin(self, prompt: str | None = None, tool_call_id: str | None = None) -> bool: ...

    def rewind(self, to: str, *, code: bool = True, conversation: bool = True, overwrite: bool = False) -> object: ...

    async def run_shell(self, command: str) -> object: ...

    def grant_for_run(self, rules: list[str], source: str) -> list[str]: ...

    def end_grants(self) -> None: ...

    def add_rule(self, behavior: Literal["allow", "deny", "ask"], rule: str) -> object: ...

    def export(self, name: str = "") -> object: ...

    def complete_path(self, typed: str) -> list[str]: ...

    def prompts(self) -> Sequence[object]: ...

    def replay(self) -> Iterable[object]: ...

    async def stop_background(self, shell_id: str) -> bool: ...


async def handle(target: Controllable, command: Command) -> object:
    """Do what `command` says to `target`; what the method it stands for returns. A run cannot start while one goes
    on (CommandError): steer or follow it up instead."""
    if isinstance(command, Send | Continue | Compact) and target.running:
        raise CommandError(f"a run is going on, so `{command.type}` cannot start another; steer or follow_up it.")
    match command:
        case Send(text=text, images=images):
            return await target.send(text, images)
        case Continue(kind=kind, text=text, at=at):
            return await target.continue_(kind, text, at)
        case Steer(text=text, images=images):
            target.steer(text, images)
        case FollowUp(text=text):
            if not target.running:
                return await target.send(text)
            target.follow_up(text)
        case Interrupt():
            target.interrupt()
        case Answer(request_id=request_id, decision=decision):
            return target.answer(request_id, decision)
        case SetMode(mode=mode):
            target.set_mode(mode)
        case CycleMode():
            return target.cycle_mode()
        case SetModel(model=model):
            target.set_model(model)
        case Compact(instructions=instructions):
            return await target.compact(instructions)
        case Pin(prompt=prompt, tool_call_id=tool_call_id):
            return _pin(target, prompt, tool_call_id)
        case Rewind(to=to, code=code, conversation=history, overwrite=overwrite):
            return target.rewind(to, code=code, conversation=history, overwrite=overwrite)
        case Tree():
            from agentui.core.branch_switch import session_tree

            return session_tree(cast(Any, target)).to_json()  # (as `agentui tree --json` prints it)
        case SwitchBranch(leaf=leaf):
            from agentui.core.branch_switch import switch_branch

            return switch_branch(cast(Any, target), leaf)
        case RunShell(command=shell_command):
            return await target.run_shell(shell_command)
        case GrantForRun(rules=rules, source=source):
            return target.grant_for_run(list(rules), source)
        case EndGrants():
            target.end_grants()
        case AddRule(behavior=behavior, rule=rule):
            return target.add_rule(behavior, rule)
        case Export(name=name):
            return target.export(name)
        case CompletePath(typed=typed):
            return target.complete_path(typed)
        case Prompts():
            return target.prompts()
        case Replay():
            return list(target.replay())
        case StopBackground(shell_id=shell_id):
            return await target.stop_background(shell_id)
        case _:
            assert_never(command)
    return None


def _pin(target: Controllable, prompt: str | None, tool_call_id: str | None) -> bool:
    if (prompt is None) == (tool_call_id is None):
        raise CommandError("`pin` takes either a `prompt` or a `tool_call_id`.")
    try:
        return target.pin(prompt=prompt, tool_call_id=tool_call_id)
    except LookupError as error:
        raise CommandError(str(error)) from None
    except OSError as error:  # (the state directory unwritable, another process holding the pins too long)
        raise CommandError(f"The pin could not be saved: {error}.") from None
