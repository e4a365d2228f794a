"""What a tool is (name, description, argument model, permission kind, `run`), its result, and the registry."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict

from agentui.core.call_views import Asks, ResultView, Shown, compact
from agentui.core.messages import ResultBlock
from agentui.core.providers.base import ToolSpec

if TYPE_CHECKING:
    from agentui.core.events import QueuedChange

ToolKind = Literal["read", "write", "execute"]
_UNSAFE_IN_NAME = re.compile(r"[^A-Za-z0-9_-]")
MAX_TOOL_NAME = 64  # the Messages API's limit on tool names


def external_tool_name(kind: str, source: str, name: str) -> str:
    """A tool from elsewhere, named as Claude Code names MCP tools: `mcp__github__create_issue`,
    `openapi__pets__listPets` (what a name may not hold becomes `_`; at most 64 characters)."""
    return f"{kind}__{_UNSAFE_IN_NAME.sub('_', source)}__{_UNSAFE_IN_NAME.sub('_', name)}"[:MAX_TOOL_NAME]


class ToolArgs(BaseModel):
    """Base for argument models: unknown arguments are an error the model sees (`additionalProperties: false`)."""

    model_config = ConfigDict(extra="forbid")


@dataclass
class ToolResult:
    """`content` goes to the model; `details` goes to the UI and the session's `toolUseResult`, never the model."""

    content: str | list[ResultBlock]
    details: Mapping[str, Any] = field(default_factory=dict)
    is_error: bool = False
    cached: bool = False
    """Answered from the results the model already holds, without running the tool."""
    denied: bool = False
    """Refused (a deny rule, the person, a hook): the tool did not run."""
    from_editor: bool = False
    """Read from an editor's buffer, which may change with the file on disk as it was: never answered again from the
    results cache."""
    context: tuple[str, ...] = ()
    """Texts for the model after the results of the call's response, in the same message (a skill's instructions);
    the session records each as a line of its own after the result, as Claude Code does."""

    @classmethod
    def error(cls, message: str, *, denied: bool = False, **details: Any) -> ToolResult:
        return cls(content=message, details=details, is_error=True, denied=denied)


@dataclass
class ToolContext:
    """What a running tool may know and do besides its arguments."""

    cwd: Path
    session_id: str
    tool_call_id: str
    progress: Callable[[str], None] = lambda text: None
    """Report partial output (a command's lines as they come); the UI shows it live."""
    checked_path: Path | None = None
    """The resolved path the permission check approved; file tools act on it and nothing else."""
    protection_lifted: bool = False
    """The person answered a question that named this call's write to a protected path; the guard does not hold
    this call (`agentui.core.safety.guard`)."""
    chosen_changes: Mapping[str, str] | None = None
    """With a plan the person approved: the queued changes they chose to apply, each file (resolved) with the
    digest of the content they were shown."""
    before_change: Callable[[Path], None] = lambda path: None
    """Back up a (resolved) file this call is about to change besides its checked path (an approved plan's queued
    changes), so a rewind of the prompt undoes the change."""


ArgsT = TypeVar("ArgsT", bound=ToolArgs)


class Tool(Generic[ArgsT]):
    """Subclass with `name`, `description`, `Args`, `kind`, and implement `run`."""

    name: ClassVar[str]
    description: ClassVar[str]
    Args: ClassVar[type[ToolArgs]]
    Details: ClassVar[Any] = dict[str, Any]
    """The shape of its successful results' `details` (a TypedDict, or a union of them by kind of result), which the
    session records as the call's `toolUseResult`: Claude Code's shape where it has one, then agentui's own keys. (A
    result answered from what the model already holds, `ToolResult.cached`, has the cache's own: `result_cache.py`.)"""
    kind: ClassVar[ToolKind]
    aliases: ClassVar[tuple[str, ...]] = ()
    """Other names the tool answers to (Claude Code 2.0's, in sessions and from models that learned them)."""
    main_only: ClassVar[bool] = False
    """True for tools that put something to the person (questions, plans): sub-agents are not given them."""
    offered: bool = True
    """False: the tool runs when called, but the model is not offered it (TodoWrite beside the task tools)."""

    # How its calls are shown (`agentui.core.tool_views` reads these by the tool's name, for live and resumed calls)
    shown: ClassVar[Shown] = "other"
    asks: ClassVar[Asks] = "permission"
    opens: ClassVar[bool] = False
    """Its result is worth seeing without asking (a change, a command's output, the task list)."""
    tail: ClassVar[bool] = False
    """The end of its output matters most."""

    @classmethod
    def title(cls, arguments: Mapping[str, Any], cwd: Path | None) -> str:
        """The one line that says what a call does (paths shown relative to `cwd`)."""
        return compact(arguments)

    @classmethod
    def locations(cls, arguments: Mapping[str, Any]) -> tuple[str, ...]:
        """The files a call reads or changes, as given (by default its `file_path` or `notebook_path`)."""
        path = arguments.get("file_path") or arguments.get("notebook_path")
        return (path,) if isinstance(path, str) and path else ()

    @classmethod
    def command(cls, arguments: Mapping[str, Any]) -> str | None:
        """The exact text a call runs, shown whole when it asks (None for a call that runs no command)."""
        return None

    @classmethod
    def purpose(cls, arguments: Mapping[str, Any]) -> str:
        """What the model says a call is for ("" when it does not say)."""
        return ""

    @classmethod
    def result(cls, text: str, details: Mapping[str, Any]) -> ResultView:
        """What a successful call did, from its result's text and details: one line, and what to draw under it."""
        return ResultView("done")

    @classmethod
    def change(cls, arguments: Mapping[str, Any], current: str | None) -> tuple[str, str] | None:
        """For a call that would change a file whose text is now `current` (None: missing or unreadable): the text
        before and after, to show when it asks. None for a call that changes no file's text."""
        return None

    async def run(self, args: ArgsT, ctx: ToolContext) -> ToolResult:
        raise NotImplementedError

    answer_timeout: float | None = None
    """For a tool that asks the person (`asks`): seconds to wait for an answer before `default_answer`; None: as
    long as it takes."""

    def default_answer(self, tool_call_id: str, arguments: Mapping[str, Any]) -> dict[str, Any] | None:
        """The arguments to run with when no answer came within `answer_timeout` (the stated default); None: none."""
        return None

    def permission_path(self, args: ArgsT) -> str | None:
        """The file or directory this call reads or writes, as given, for path rules; None if it touches none."""
        return None

    def queued_changes(self) -> list[QueuedChange]:
        """What its question puts to the person besides the call: the changes an approved plan would apply."""
        return []

    @cached_property
    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, json_schema(self.Args))


def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The argument schema the model sees: pydantic's, without the `title` noise it adds to every property."""
    schema = model.model_json_schema()
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    return schema


class ToolRegistry:
    """The tools of one agent, by name, in the order they were registered (which is the order the model sees).

    A tool is found by its name or one of its aliases; only the tools `offered` and not `withheld` are shown to the
    model.
    """

    def __init__(self, tools: Iterable[Tool[Any]] = (), withheld: Callable[[str], bool] | None = None) -> None:
        self._tools: dict[str, Tool[Any]] = {}
        self._aliases: dict[str, str] = {}
        self.withheld: Callable[[str], bool] = withheld or (lambda name: False)
        """Tools the rules deny whole, by name: not shown to the model (the permission engine's `withholds`)."""
        self.chooser: Callable[[list[Tool[Any]]], list[Tool[Any]]] | None = None
        """Which of the offered tools are sent (the tool filter, with many tools); None: all of them."""
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool[Any]) -> None:
        if self.get(tool.name) is not None:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool
        for alias in tool.aliases:
            self._aliases.setdefault(alias, tool.name)

    def unregister(self, name: str) -> None:
        """Remove a tool (an MCP server's tool it no longer offers)."""
        tool = self._tools.pop(name, None)
        for alias in tool.aliases if tool is not None else ():
            if self._aliases.get(alias) == name:
                del self._aliases[alias]

    def get(self, name: str) -> Tool[Any] | None:
        return self._tools.get(name) or self._tools.get(self._aliases.get(name, ""))

    def names(self) -> list[str]:
        """The names the model is offered."""
        return [name for name, tool in self._tools.items() if tool.offered and not self.withheld(name)]

    def specs(self) -> list[ToolSpec]:
        offered = [tool for name, tool in self._tools.items() if tool.offered and not self.withheld(name)]
        return [tool.spec for tool in (self.chooser(offered) if self.chooser is not None else offered)]

    def __iter__(self) -> Iterator[Tool[Any]]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)
