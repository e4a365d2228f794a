"""Writing sessions the way agentui does, and reading them the way other tools do."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

from agentui.core.events import PermissionDecision, PermissionRequest
from agentui.core.loop.agent import Agent, AgentConfig
from agentui.core.providers.scripted import ScriptedProvider
from agentui.core.session.lookup import SessionRequest
from agentui.core.session.store import OpenSession, open_session
from agentui.core.tools.base import ToolRegistry
from tests.support.agents import new_agent


async def run_session(
    cwd: Path,
    env: dict[str, str],
    script: list[dict[str, Any]],
    prompts: list[str],
    *tools: Any,
    request: SessionRequest = SessionRequest(),
) -> tuple[OpenSession, Agent]:
    """Run `prompts` one after another in a session opened for `request`, writing it as agentui does."""
    opened = open_session(request, cwd, env=env)
    agent = new_agent(
        ScriptedProvider(script),
        AgentConfig(model="claude-test", cwd=cwd),
        tools=ToolRegistry(tools),
        session_id=opened.session_id,
        messages=opened.messages,
    )
    agent.bus.on(
        lambda e: (
            agent.respond_permission(e.request_id, PermissionDecision(behavior="allow"))
            if isinstance(e, PermissionRequest)
            else None
        )
    )
    opened.writer.attach(agent.bus)
    try:
        for prompt in prompts:
            await agent.prompt(prompt)
    finally:
        opened.writer.close()
    return opened, agent


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def claude_code_log_reads(path: Path) -> list[Any]:
    """claude-code-log's own loader; fails the test on any line it could not parse or chose to drop."""
    from claude_code_log.converter import load_transcript

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        entries = load_transcript(path, silent=False)
    problems = [
        line
        for line in printed.getvalue().splitlines()
        if line.startswith(("Line ", "Warning")) or "Unexpected error" in line
    ]
    assert problems == [], problems
    # (lines it reads and does not show; "mode" is Claude Code 2.1's permission-mode line)
    silent = {"custom-title", "last-prompt", "permission-mode", "file-history-snapshot", "mode"}
    # (it reads with it the sub-agent transcripts beside the session that the session's Agent calls name)
    named = path.read_text()
    subagents = sorted((path.parent / path.stem / "subagents").glob("*.jsonl"))
    files = [path, *(file for file in subagents if f'"agentId":"{file.stem.removeprefix("agent-")}"' in named)]
    expected = sum(1 for file in files for entry in lines(file) if entry.get("type") not in silent)
    assert len(entries) == expected, (len(entries), expected)
    return entries
