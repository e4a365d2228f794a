"""`agentui trace SESSION`: the tree of a session's loops (each run of the agent, a sub-agent's run under the run that
started it), read from its file and its sub-agents' sidechain files, with each loop's turns, tool calls, tokens and
cost at list prices."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentui.core.messages import Usage
from agentui.core.pricing import cost_usd

UNMARKED = "(no loop id)"
"""The loop that lines written without loop ids belong to (Claude Code's own, or an older agentui's)."""


@dataclass
class LoopTrace:
    loop_id: str
    parent: str | None = None
    agent_id: str | None = None
    """A sub-agent's id (its sidechain file's), None for the conversation's own loops."""
    answers: dict[str, tuple[Usage, float]] = field(default_factory=dict)
    """The model's answers (one a turn) by id, each with its usage and cost as its last line says."""
    tools: list[str] = field(default_factory=list)

    @property
    def turns(self) -> int:
        return len(self.answers)

    @property
    def usage(self) -> Usage:
        return sum((usage for usage, _ in self.answers.values()), Usage(input_tokens=0, output_tokens=0))

    @property
    def cost(self) -> float:
        return sum(cost for _, cost in self.answers.values())


def trace_command(reference: str, cwd: Path, env: Mapping[str, str] | None = None) -> str:
    """The loop tree of the session `reference` names (an id or a file); SessionError, one sentence, if none."""
    from agentui.core.session.lookup import SessionError, find_session

    path = find_session(reference, cwd, env)
    try:
        return render_trace(trace_session(path))
    except OSError as exc:
        raise SessionError(f"The session file {path} cannot be read ({exc.strerror or exc}).") from None


def trace_session(path: Path) -> list[LoopTrace]:
    """Every loop of the session at `path` (and of its sub-agents' files), in the order they first wrote."""
    loops: dict[str, LoopTrace] = {}
    files = [path, *sorted((path.parent / path.stem / "subagents").glob("agent-*.jsonl"))]
    for file in files:
        for entry in _entries(file):
            _count(loops, entry)
    return list(loops.values())


def _entries(path: Path) -> list[dict[str, Any]]:
    entries = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):
            continue  # (a line cut short by a crash)
        if isinstance(entry, dict):
            entries.append(entry)
    return entries


def _count(loops: dict[str, LoopTrace], entry: dict[str, Any]) -> None:
    if entry.get("type") not in ("user", "assistant"):
        return
    loop_id = entry.get("loopId") or UNMARKED
    loop = loops.setdefault(loop_id, LoopTrace(loop_id, entry.get("parentLoopId"), entry.get("agentId")))
    message = entry.get("message")
    if entry["type"] != "assistant" or not isinstance(message, dict):
        return
    for block in message.get("content") or []:
        if isinstance(block, dict) and block.get("type") == "tool_use":
            loop.tools.append(str(block.get("name", "?")))
    # (an answer is written a line per block; Claude Code's last line has the answer's whole output count, its first
    # only the first block's, so the last line read stands)
    counted = answer_cost(message)
    kept = loop.answers.get(answer := str(message.get("id", "")))
    loop.answers[answer] = counted or kept or (Usage(input_tokens=0, output_tokens=0), 0.0)


def answer_cost(message: dict[str, Any]) -> tuple[Usage, float] | None:
    """An assistant line's answer's usage and its cost at list prices; None when its counts are not numbers."""
    given = message.get("usage")
    given = given if isinstance(given, dict) else {}
    try:
        usage = Usage.model_validate({key: given[key] for key in Usage.model_fields if key in given})
    except ValueError:
        return None
    return usage, cost_usd(str(message.get("model", "")), usage)


def render_trace(loops: list[LoopTrace]) -> str:
    """The tree, a loop a line, each under its parent (a parent not in the files is shown as the root)."""
    known = {loop.loop_id for loop in loops}
    children: dict[str | None, list[LoopTrace]] = {}
    for loop in loops:
        children.setdefault(loop.parent if loop.parent in known else None, []).append(loop)
    lines: list[str] = []

    def draw(parent: str | None, depth: int) -> None:
        for loop in children.get(parent, []):
            lines.append("  " * depth + _describe(loop))
            draw(loop.loop_id, depth + 1)

    draw(None, 0)
    return "\n".join(lines) if lines else "The session has no loops to trace."


def _describe(loop: LoopTrace) -> str:
    who = f"sub-agent {loop.agent_id} " if loop.agent_id else ""
    tools = ", ".join(f"{name}×{loop.tools.count(name)}" for name in dict.fromkeys(loop.tools)) or "no tools"
    tokens = loop.usage.context_tokens + loop.usage.output_tokens
    parent = f" (parent {loop.parent[:8]})" if loop.parent else ""
    name = loop.loop_id if loop.loop_id == UNMARKED else loop.loop_id[:8]
    return (
        f"loop {name}{parent}: {who}{loop.turns} turns, {len(loop.tools)} tool calls ({tools}), "
        f"{tokens} tokens, ${loop.cost:.4f}"
    )
