"""How a tool call and its result are shown, from the hints of the tool that has the call's name: the same for a
call as it runs and for one read back from a session (agentui's or Claude Code's), so that front ends draw both
alike and never branch on a tool's name. A name no tool has (an MCP server's tool) is shown by the defaults."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentui.core.call_views import CallView, ResultView

if TYPE_CHECKING:  # (the tools load on the first call described: the app draws its first frame before they do)
    from agentui.core.messages import ResultBlock
    from agentui.core.tools.base import Tool

PREVIEW_BYTES = 1_000_000
"""The largest file whose change a permission question shows against the file's text."""


_WHERE: dict[str, tuple[str, str]] = {
    "Bash": ("agentui.core.tools.bash", "Bash"),
    "Read": ("agentui.core.tools.read", "Read"),
    "Write": ("agentui.core.tools.write", "Write"),
    "Edit": ("agentui.core.tools.edit", "Edit"),
    "NotebookEdit": ("agentui.core.tools.notebook", "NotebookEdit"),
    "Grep": ("agentui.core.tools.grep", "Grep"),
    "Glob": ("agentui.core.tools.glob", "Glob"),
    "WebFetch": ("agentui.core.tools.web_fetch", "WebFetch"),
    "WebSearch": ("agentui.core.tools.web_search", "WebSearch"),
    "Agent": ("agentui.core.extend.subagents", "Task"),
    "Task": ("agentui.core.extend.subagents", "Task"),
    "TodoWrite": ("agentui.core.tools.todo", "TodoWrite"),
    "ExitPlanMode": ("agentui.core.tools.plan", "ExitPlanMode"),
    "AskUserQuestion": ("agentui.core.tools.question", "AskUserQuestion"),
    "Skill": ("agentui.core.tools.skill", "Skill"),
    "ToolSearch": ("agentui.core.tools.tool_search", "ToolSearch"),
    "LSP": ("agentui.core.tools.lsp", "Lsp"),
    **{name: ("agentui.core.tools.tasks", name) for name in ("TaskCreate", "TaskGet", "TaskUpdate", "TaskList")},
    **{name: ("agentui.core.tools.background", name) for name in ("TaskOutput", "TaskStop", "BashOutput")},
    "KillShell": ("agentui.core.tools.background", "KillShell"),
    "KillBash": ("agentui.core.tools.background", "KillShell"),
    "MultiEdit": ("agentui.core.tools.retired", "MultiEdit"),
    "NotebookRead": ("agentui.core.tools.retired", "NotebookRead"),
    "ListMcpResourcesTool": ("agentui.core.extend.mcp.resource_tools", "ListMcpResources"),
    "ListMcpResources": ("agentui.core.extend.mcp.resource_tools", "ListMcpResources"),
    "ReadMcpResourceTool": ("agentui.core.extend.mcp.resource_tools", "ReadMcpResource"),
    "ReadMcpResource": ("agentui.core.extend.mcp.resource_tools", "ReadMcpResource"),
}
"""Where the built-in tool that shows calls of each name (and alias) is: only the tools of the calls drawn are
imported (all of them, the sub-agents' with the engine, took ~70 ms before a resumed session's first call showed).
tests/core/test_tool_views.py checks it against the tools themselves."""

_found: dict[str, type[Tool[Any]]] = {}


def tool_class(name: str) -> type[Tool[Any]]:
    """The tool whose hints show calls named `name` (the base's defaults for a name no built-in tool has)."""
    if (found := _found.get(name)) is not None:
        return found
    where = _WHERE.get(name)
    if where is None:
        from agentui.core.tools.base import Tool

        return Tool
    module, attribute = where
    tool: type[Tool[Any]] = getattr(importlib.import_module(module), attribute)
    _found[name] = tool
    return tool


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
