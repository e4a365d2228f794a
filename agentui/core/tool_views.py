"""How a tool call and its result are shown, from the hints of the tool that has the call's name: the same for a
call as it runs and for one read back from a session (agentui's or Claude Code's), so that front ends draw both
alike and never branch on a tool's name. A name no tool has (an MCP server's tool) is shown by the defaults."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentui.core.call_views import CallView, ResultView

if TYPE_CHECKING:  # (the tools load on the first call described: the app draws its first frame before they do)
    from agentui.core.messages import ResultBlock
    from agentui.core.tools.base import Tool

PREVIEW_BYTES = 1_000_000
"""The largest file whose change a permission question shows against the file's text."""


@functools.cache
def _by_name() -> dict[str, type[Tool[Any]]]:
    from agentui.core.extend.subagents import Task
    from agentui.core.tools.background import BashOutput, KillShell, TaskOutput, TaskStop
    from agentui.core.tools.bash import Bash
    from agentui.core.tools.edit import Edit
    from agentui.core.tools.glob import Glob
    from agentui.core.tools.grep import Grep
    from agentui.core.tools.notebook import NotebookEdit
    from agentui.core.tools.plan import ExitPlanMode
    from agentui.core.tools.question import AskUserQuestion
    from agentui.core.tools.read import Read
    from agentui.core.tools.retired import RETIRED
    from agentui.core.tools.tasks import TaskCreate, TaskGet, TaskList, TaskUpdate
    from agentui.core.tools.todo import TodoWrite
    from agentui.core.tools.web_fetch import WebFetch
    from agentui.core.tools.web_search import WebSearch
    from agentui.core.tools.write import Write

    tools: tuple[type[Tool[Any]], ...] = (
        *(Bash, Read, Write, Edit, NotebookEdit, Grep, Glob, WebFetch, WebSearch, Task, TodoWrite, ExitPlanMode),
        *(AskUserQuestion, TaskCreate, TaskGet, TaskUpdate, TaskList, TaskOutput, TaskStop, BashOutput, KillShell),
        *RETIRED,
    )
    found: dict[str, type[Tool[Any]]] = {}
    for tool in tools:
        for name in (tool.name, *tool.aliases):
            found.setdefault(name, tool)
    return found


def tool_class(name: str) -> type[Tool[Any]]:
    """The tool whose hints show calls named `name` (the base's defaults for a name no built-in tool has)."""
    from agentui.core.tools.base import Tool

    return _by_name().get(name, Tool)


def describe_call(name: str, arguments: Mapping[str, Any], cwd: Path | None = None) -> CallView:
    """How a call to `name` with `arguments` is shown (paths relative to `cwd`)."""
    tool = tool_class(name)
    return CallView(
        name,
        tool.title(arguments, cwd),
        shown=tool.shown,
        locations=tool.locations(arguments),
        asks=tool.asks,
        opens=tool.opens,
        tail=tool.tail,
        command=tool.command(arguments),
        purpose=tool.purpose(arguments),
    )


def call_summary(name: str, arguments: Mapping[str, Any], cwd: Path | None = None) -> str:
    """The one line that says what a call does: the command, the file, the pattern."""
    return tool_class(name).title(arguments, cwd)


def result_text(content: str | list[ResultBlock] | None) -> str:
    """A result's text: its text blocks joined ("[image]" for each other block)."""
    return content if isinstance(content, str) else "\n".join(getattr(b, "text", "[image]") for b in content or [])


def describe_result(
    name: str,
    content: str | list[ResultBlock] | None,
    is_error: bool,
    details: Mapping[str, Any],
    denied: bool = False,
) -> ResultView:
    """How the result of a call to `name` is shown: refused, stopped, failed, or what the tool says it did."""
    from agentui.core.messages import REFUSED

    text = result_text(content)
    if denied:  # (the person's own words in full, not the sentence written for the model)
        said = text.partition("The user said: ")[2].strip()
        if said:
            return ResultView(f"denied — you said: {said}")
        return ResultView("denied" if text.startswith(REFUSED) else f"denied: {text.strip()}")
    if is_error and text.startswith("Interrupted by user"):
        return ResultView("stopped (Esc)")  # the run's own "Interrupted." line says the rest
    if is_error:
        return ResultView(text.splitlines()[0][:200] if text.strip() else "failed")
    if details.get("type") == "file_unchanged":  # (not sent again: the model has it)
        return ResultView("unchanged since last read")
    if details.get("type") == "unchanged":
        return ResultView("same as the earlier search")
    return tool_class(name).result(text, details)


def proposed_change(name: str, arguments: Mapping[str, Any], cwd: Path) -> tuple[str, str] | None:
    """The text before and after of the file a call to `name` would change, to show when it asks (None when it
    changes no file's text). The file is read as it is now, if it is there and not too large."""
    tool = tool_class(name)
    if tool.shown != "edit":  # (no file to read for a call that changes none)
        return None
    return tool.change(arguments, _current(arguments, cwd))


def _current(arguments: Mapping[str, Any], cwd: Path) -> str | None:
    target = Path(str(arguments.get("file_path", "")))
    target = target if target.is_absolute() else cwd / target
    try:
        if target.is_file() and target.stat().st_size <= PREVIEW_BYTES:
            return target.read_text(encoding="utf-8", errors="replace")
    except OSError:
        pass
    return None
