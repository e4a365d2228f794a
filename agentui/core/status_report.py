"""/status: what Claude Code's /status shows that agentui has, as labelled rows: the version, the session, the
directories, the model and the server it is reached at, the permission mode, the settings files in force, the
memory files, the MCP servers, the sandbox, and the tokens and cost so far."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentui.core.conversation import Conversation

Row = tuple[str, str]
"""A label and its value (a value of several lines reads as a list)."""

SOURCE_NAMES = {
    "user": "User settings",
    "project": "Shared project settings",
    "local": "Project local settings",
    "flag": "Command line arguments",
    "managed": "Enterprise managed settings",
}
"""Claude Code's names for the settings files."""


async def status_report(conversation: Conversation, env: Mapping[str, str] | None = None) -> list[Row]:
    """The rows of /status for an open conversation. Whether the sandbox could run is tried on a worker thread."""
    from agentui import __version__
    from agentui.core.doctor import sandbox_problem, server_url, shown

    env = os.environ if env is None else env
    root, launch = conversation.root, conversation.launch
    project = conversation.project
    settings = launch.settings
    url = server_url(settings)
    rows: list[Row] = [
        ("Version", __version__),
        ("Session ID", conversation.session_id),
        ("cwd", str(root)),
    ]
    if extra := project.workspace.additional_dirs:
        rows.append(("Additional directories", "\n".join(str(directory) for directory in extra)))
    rows += [
        ("Model", conversation.model),
        ("Provider", settings.provider + (f" · {url}" if url else "")),
        ("Permission mode", conversation.mode),
        ("Setting sources", "\n".join(_sources(conversation, env)) or "none (the defaults)"),
        ("Memory files", "\n".join(shown(f.path, root, env) for f in conversation.memory_files) or "none"),
        ("MCP servers", _servers(conversation)),
    ]
    sandbox = project.engine.sandbox
    on = sandbox is not None and sandbox.enabled
    why = await asyncio.to_thread(sandbox_problem, root, env)
    if on:
        state = f"on, but it cannot run here ({why}): every Bash command asks first" if why else "on"
    else:
        state = f"off (it could not run here: {why})" if why else "off (sandbox.enabled in settings turns it on)"
    rows.append(("Sandbox", state))
    usage, cost = conversation.usage
    rows.append(
        (
            "Tokens",
            f"{usage.context_tokens:,} in ({usage.cache_read_input_tokens:,} cache read, "
            f"{usage.cache_creation_input_tokens:,} cache write), {usage.output_tokens:,} out · ${cost:.4f}",
        )
    )
    return rows + _profile_rows(conversation, env)


def _profile_rows(conversation: Conversation, env: Mapping[str, str]) -> list[Row]:
    """The project's agent profile: each model's averages per model call, the estimate of calls a spending limit
    leaves, and the standing instructions (only what there is)."""
    from agentui.core.profile import load_profile

    profile = load_profile(conversation.root, env)
    rows: list[Row] = []
    if profile.models:
        averages = [
            f"{model}: {seen.tokens_per_round:,.0f} tokens, ${seen.cost_per_round:.4f} per model call"
            f" ({seen.rounds} seen)"
            for model, seen in sorted(profile.models.items())
        ]
        rows.append(("Agent profile", "\n".join(averages)))
    limits = conversation.agent.config.limits
    cost = profile.cost_per_round(conversation.model)
    if limits.max_budget_usd is not None and cost:
        from agentui.core.loop.budget import calls_within

        left = calls_within(limits.max_budget_usd, cost)
        rows.append(("Budget estimate", f"about {left} model calls per run under ${limits.max_budget_usd:g}"))
    if profile.instructions:
        rows.append(("Standing instructions", profile.instructions))
    return rows


def _sources(conversation: Conversation, env: Mapping[str, str]) -> list[str]:
    """The settings files in force, lowest precedence first, and agentui's own config file."""
    from agentui.core.dirs import config_dir
    from agentui.core.doctor import shown

    root = conversation.root
    said = [
        f"{SOURCE_NAMES.get(source.name, source.name)} ({shown(source.path, root, env)})"
        for source in conversation.project.sources
    ]
    config = config_dir(env) / "config.json"
    if config.is_file():
        said.append(f"agentui's config ({shown(config, root, env)})")
    return said


def _servers(conversation: Conversation) -> str:
    """ "2 connected, 1 failed · /mcp", as Claude Code counts them."""
    servers = conversation.mcp_status()
    if not servers:
        return "none"
    counts: dict[str, int] = {}
    for server in servers:
        counts[server.state] = counts.get(server.state, 0) + 1
    order = ("connected", "starting", "failed", "closed")
    said = [f"{counts[state]} {state}" for state in order if counts.get(state)]
    return ", ".join(said) + " · /mcp"


def no_conversation_report(cwd: Path, problem: str | None) -> list[Row]:
    """/status with no conversation open: what is known without one."""
    from agentui import __version__

    return [("Version", __version__), ("cwd", str(cwd)), ("Model", f"none ({problem or 'no model is configured'})")]
