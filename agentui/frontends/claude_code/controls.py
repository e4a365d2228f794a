"""The control requests of Claude Code's SDK interface beyond the conversation's basics, answered as Claude Code
2.1.197 answers them (the Agent SDKs' getContextUsage(), getSettings(), rewindFiles(), readFile() and the rest):
each with agentui's real values, or Claude Code's own answer where agentui has nothing of the kind (an account, a
remote container). An unknown request is an error response, never silence."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from agentui import __version__
from agentui.api import (
    PART_NAMES,
    Conversation,
    LineTally,
    RewindError,
    context_breakdown,
    plugins_in_use,
    read_for_program,
    rename_session,
    set_thinking,
    settings_report,
)
from agentui.frontends.claude_code import mcp_auth

CLAUDE_CODE_VERSION = "2.1.197"
_COLORS = {
    "System prompt": "promptBorder", "System tools": "inactive", "MCP tools": "cyan_FOR_SUBAGENTS_ONLY",
    "OpenAPI tools": "cyan_FOR_SUBAGENTS_ONLY", "Custom agents": "permission", "Memory files": "claude",
    "Skills": "warning", "Messages": "purple_FOR_SUBAGENTS_ONLY", "Autocompact buffer": "inactive",
    "Free space": "promptBorder",
}  # fmt: skip
"""Claude Code's theme colour for each part of the context (the SDK's context view draws with them)."""


class SessionTotals:
    """What the session has cost and changed since the process started, for `get_usage` and `get_session_cost`."""

    def __init__(self, conversation: Conversation, model_usage: Callable[[], dict[str, Any]]) -> None:
        self.model_usage = model_usage
        """Each model's tokens and cost, as a result's `modelUsage` has them."""
        self.started = time.monotonic()
        self.api_ms = 0
        """Time the session's runs spent waiting on the model (their results' `duration_api_ms`)."""
        self.lines = LineTally(conversation)


Handler = Callable[[Conversation, SessionTotals, dict[str, Any]], Awaitable[dict[str, Any] | None]]


async def answer(
    conversation: Conversation, totals: SessionTotals, subtype: str, request: dict[str, Any]
) -> dict[str, Any] | None:
    """The response to one control request; ValueError (its sentence is the error response) for one agentui does
    not handle or cannot do."""
    handler = HANDLERS.get(subtype)
    if handler is None:
        raise ValueError(f"agentui does not handle the control request {subtype!r}")
    return await handler(conversation, totals, request)


async def _context_usage(conversation: Conversation, _: SessionTotals, __: dict[str, Any]) -> dict[str, Any]:
    view = context_breakdown(conversation)
    window = view.window or view.used
    parts = [(part.name, part.tokens) for part in view.parts]
    if view.buffer:
        parts.append((PART_NAMES["buffer"], view.buffer))
    if view.free is not None:
        parts.append((PART_NAMES["free"], view.free))
    tokens = dict(parts)

    def square(kind: str, fullness: float) -> dict[str, Any]:
        name = PART_NAMES[kind]  # type: ignore[index]
        return {"color": _COLORS[name], "isFilled": kind != "free", "categoryName": name,
                "tokens": tokens.get(name, 0), "percentage": round(view.share(tokens.get(name, 0))),
                "squareFullness": fullness}  # fmt: skip

    rows = [[square(cell.kind, cell.fullness) for cell in row] for row in view.cells()]
    return {
        "categories": [{"name": name, "tokens": tokens, "color": _COLORS[name]} for name, tokens in parts],
        "totalTokens": view.used,
        "maxTokens": window,
        "rawMaxTokens": window,
        "percentage": round(view.percent or 0),
        "gridRows": rows,
        "model": view.model,
        "memoryFiles": [
            {"path": str(item.path or item.name), "type": "Project", "tokens": item.tokens}
            for item in view.memory_files
        ],
        "mcpTools": [
            {
                "name": item.name,
                "serverName": item.name.split("__")[1] if item.name.count("__") >= 2 else "",
                "tokens": item.tokens,
            }
            for item in view.mcp_tools
        ],
        "agents": [
            {"agentType": item.name, "source": "projectSettings", "tokens": item.tokens} for item in view.agents
        ],
        "isAutoCompactEnabled": view.buffer > 0,
        "apiUsage": None,
    }


async def _settings(conversation: Conversation, _: SessionTotals, __: dict[str, Any]) -> dict[str, Any]:
    effective, sources = settings_report(conversation.project.sources)
    return {"effective": effective, "sources": sources, "applied": {"model": conversation.model, "effort": None}}


async def _usage(conversation: Conversation, totals: SessionTotals, __: dict[str, Any]) -> dict[str, Any]:
    cost = conversation.usage[1]
    session = {
        "total_cost_usd": cost,
        "total_api_duration_ms": totals.api_ms,
        "total_duration_ms": round((time.monotonic() - totals.started) * 1000),
        "total_lines_added": totals.lines.added,
        "total_lines_removed": totals.lines.removed,
        "model_usage": totals.model_usage(),
    }
    return {"session": session, "subscription_type": None, "rate_limits_available": False, "rate_limits": None,
            "behaviors": None}  # fmt: skip


async def _session_cost(conversation: Conversation, totals: SessionTotals, request: dict[str, Any]) -> dict[str, Any]:
    session = (await _usage(conversation, totals, request))["session"]
    lines = [
        f"Total cost:            ${session['total_cost_usd']:.4f}",
        f"Total duration (API):  {session['total_api_duration_ms'] // 1000}s",
        f"Total duration (wall): {session['total_duration_ms'] // 1000}s",
        f"Total code changes:    {totals.lines.added} lines added, {totals.lines.removed} lines removed",
    ]
    return {"text": "\n".join(lines)}


async def _thinking_tokens(conversation: Conversation, _: SessionTotals, request: dict[str, Any]) -> None:
    """The thinking budget from now on: a number of tokens (at least 1,024, the API's least), 0 for none, or null
    for the settings' own."""
    tokens = request.get("max_thinking_tokens")
    if tokens is not None and (not isinstance(tokens, int) or isinstance(tokens, bool) or 0 < tokens < 1024):
        raise ValueError("max_thinking_tokens must be 0, null, or a whole number of at least 1024 tokens")
    set_thinking(conversation, tokens != 0, tokens or None)
    return None


async def _skills(conversation: Conversation, _: SessionTotals, __: dict[str, Any]) -> dict[str, Any]:
    from agentui.frontends.claude_code.initialize import skill_commands

    return {"skills": skill_commands(conversation)}


async def _plugins(conversation: Conversation, _: SessionTotals, __: dict[str, Any]) -> dict[str, Any]:
    commands = [{"name": name, "description": "", "argumentHint": ""} for name in conversation.command_names()]
    plugins = plugins_in_use(conversation.root, conversation.env)
    return {"commands": commands, "agents": conversation.agent_names(), "plugins": plugins, "mcpServers": []}


async def _stop_task(conversation: Conversation, _: SessionTotals, request: dict[str, Any]) -> dict[str, Any]:
    await conversation.stop_background(str(request.get("task_id") or ""))  # (a shell's id, or a sub-agent's)
    return {}


async def _mcp_server(conversation: Conversation, _: SessionTotals, request: dict[str, Any]) -> dict[str, Any]:
    name = str(request.get("serverName") or "")
    if request.get("subtype") == "mcp_toggle" and request.get("enabled") is False:
        await conversation.servers.stop_mcp(name)
    else:
        await conversation.servers.restart_mcp(name)
    return {}


async def _set_servers(conversation: Conversation, _: SessionTotals, request: dict[str, Any]) -> dict[str, Any]:
    servers = request.get("servers")
    return await conversation.servers.set_dynamic(servers if isinstance(servers, dict) else {})


async def _pin_mode(conversation: Conversation, _: SessionTotals, request: dict[str, Any]) -> dict[str, Any]:
    return conversation.servers.pin_mode(str(request.get("serverName") or ""), request.get("mode"))


async def _rewind(conversation: Conversation, _: SessionTotals, request: dict[str, Any]) -> dict[str, Any]:
    """The files as they were before a user message (by its uuid): what would change (`dry_run`), or changed."""
    to = str(request.get("user_message_id") or "")
    try:
        restore = conversation.changes_since(to)
        if not request.get("dry_run"):
            conversation.rewind(to, code=True, conversation=False, overwrite=True)
    except RewindError as exc:
        return {"canRewind": False, "error": str(exc)}
    counts = [change.counts() for change in restore.changes]
    changed = [str(change.path) for change in restore.changes]
    added, removed = sum(count[0] for count in counts), sum(count[1] for count in counts)
    return {"canRewind": True, "filesChanged": changed, "insertions": added, "deletions": removed}


async def _read_file(conversation: Conversation, _: SessionTotals, request: dict[str, Any]) -> dict[str, Any]:
    """A file for the SDK program itself, where the Read tool would read it without asking (see `read_for_program`)."""
    cap = request.get("max_bytes")
    encoding = request.get("encoding")
    return read_for_program(
        conversation, str(request.get("path") or ""), cap if isinstance(cap, int) else None, str(encoding or "")
    )


async def _rename(conversation: Conversation, _: SessionTotals, request: dict[str, Any]) -> None:
    rename_session(conversation, str(request.get("title") or ""))
    return None


async def _model_flags(conversation: Conversation, _: SessionTotals, request: dict[str, Any]) -> None:
    """Settings given while the session runs: the model; anything else is refused by name, not ignored."""
    settings = request.get("settings")
    if not isinstance(settings, dict):
        raise ValueError("apply_flag_settings needs `settings`, an object")
    if others := sorted(key for key in settings if key != "model"):
        raise ValueError(f"agentui applies only `model` while a session runs, not {', '.join(others)}")
    if isinstance(model := settings.get("model"), str) and model:
        conversation.set_model(model)
    return None


async def _nothing(_: Conversation, __: SessionTotals, ___: dict[str, Any]) -> None:
    return None


async def _empty(_: Conversation, __: SessionTotals, ___: dict[str, Any]) -> dict[str, Any]:
    return {}


async def _not_cancelled(_: Conversation, __: SessionTotals, ___: dict[str, Any]) -> dict[str, Any]:
    return {"cancelled": False}  # (a message sent while a run goes on has joined it, or is answered next)


async def _side_question(conversation: Conversation, _: SessionTotals, request: dict[str, Any]) -> dict[str, Any]:
    """A question about the conversation, answered beside it (not added to it)."""
    from agentui.api import ProviderError, side_question

    question = str(request.get("question") or "").strip()
    if not question:
        raise ValueError("side_question needs a question")
    try:
        said = await side_question(conversation, question)
    except ProviderError as exc:
        raise ValueError(f"The model could not answer: {exc}") from None
    return {"response": said, "synthetic": False}


async def _no_title(_: Conversation, __: SessionTotals, ___: dict[str, Any]) -> dict[str, Any]:
    return {"title": None}


async def _version(_: Conversation, __: SessionTotals, ___: dict[str, Any]) -> dict[str, Any]:
    return {"version": CLAUDE_CODE_VERSION, "agentuiVersion": __version__}


HANDLERS: dict[str, Handler] = {
    "mcp_authenticate": mcp_auth.authenticate,
    "mcp_clear_auth": mcp_auth.clear,
    "get_context_usage": _context_usage,
    "get_settings": _settings,
    "get_usage": _usage,
    "get_session_cost": _session_cost,
    "get_binary_version": _version,
    "set_max_thinking_tokens": _thinking_tokens,
    "reload_skills": _skills,
    "reload_plugins": _plugins,
    "stop_task": _stop_task,
    "background_tasks": _empty,
    "mcp_reconnect": _mcp_server,
    "mcp_toggle": _mcp_server,
    "mcp_set_servers": _set_servers,
    "set_mcp_permission_mode_override": _pin_mode,
    "rewind_files": _rewind,
    "read_file": _read_file,
    "rename_session": _rename,
    "generate_session_title": _no_title,
    "apply_flag_settings": _model_flags,
    "cancel_async_message": _not_cancelled,
    "seed_read_state": _nothing,
    "side_question": _side_question,
}
"""Each request agentui answers beyond initialize, interrupt, set_permission_mode, set_model and mcp_status."""
