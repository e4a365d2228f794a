"""What fills the context window, part by part, as Claude Code's /context shows it: the system prompt, the built-in
tools' schemas, the MCP tools, the custom agents, the memory files, the skills, the messages, the buffer automatic
compaction keeps free, and the free space; and the grid of cells that draws it.

The parts are counted as the next request will carry them, with the counter the conversation's meter counts with.
The total is the meter's: the provider's count of the last request where there is one, plus an estimate of what
joined since, so it is the number the status bar shows. The messages are what is left of that total once the other
parts are counted (their estimate absorbs the difference between estimating and the provider's tokenizer, as in
Claude Code); should the other parts estimate larger than the provider's whole count, they are scaled down to it,
so the parts always add up to the total.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from agentui.core.context.memory import render_memory

if TYPE_CHECKING:
    from agentui.core.context.window import TokenCounter
    from agentui.core.conversation import Conversation
    from agentui.core.providers.base import ToolSpec

PartKind = Literal["system_prompt", "system_tools", "mcp_tools", "api_tools", "agents", "memory", "skills", "messages"]
CellKind = PartKind | Literal["buffer", "free"]

PART_NAMES: dict[CellKind, str] = {
    "system_prompt": "System prompt",
    "system_tools": "System tools",
    "mcp_tools": "MCP tools",
    "api_tools": "OpenAPI tools",
    "agents": "Custom agents",
    "memory": "Memory files",
    "skills": "Skills",
    "messages": "Messages",
    "buffer": "Autocompact buffer",
    "free": "Free space",
}

GRID_COLUMNS, GRID_ROWS = 10, 10
"""Claude Code's grid for a window under a million tokens: a hundred cells, each 1% of the window."""
FULL_CELL = 0.7
"""A part's last cell drawn as full from this much of a cell."""


@dataclass(frozen=True)
class Part:
    kind: PartKind
    tokens: int

    @property
    def name(self) -> str:
        return PART_NAMES[self.kind]


@dataclass(frozen=True)
class Item:
    """One memory file, custom agent or MCP tool, and its tokens."""

    name: str
    tokens: int
    path: Path | None = None


@dataclass(frozen=True)
class Cell:
    kind: CellKind
    fullness: float
    """1 for a full cell; less for a part's last, partly filled cell."""


@dataclass(frozen=True)
class ContextBreakdown:
    model: str
    window: int | None
    """The model's context window in tokens; None when it is not known."""
    used: int
    """What the next request holds: the status bar's count. The parts add up to it."""
    parts: tuple[Part, ...]
    """Each part that holds tokens, in Claude Code's order, messages last."""
    buffer: int
    """Tokens automatic compaction keeps free (it compacts before the context reaches them); 0 when it is off."""
    measured: bool
    """The total rests on the provider's count of the last request (else every number is an estimate)."""
    memory_files: tuple[Item, ...] = ()
    agents: tuple[Item, ...] = ()
    mcp_tools: tuple[Item, ...] = ()

    @property
    def free(self) -> int | None:
        """Tokens left before the buffer (None for an unknown window)."""
        return None if self.window is None else max(0, self.window - self.used - self.buffer)

    @property
    def percent(self) -> float | None:
        """How full the window is, as the status bar says it (rounded to a tenth)."""
        return None if not self.window else round(100 * self.used / self.window, 1)

    def share(self, tokens: int) -> float:
        """`tokens` as a percentage of the window (of the total, while the window is unknown)."""
        whole = self.window or self.used
        return 100 * tokens / whole if whole else 0.0

    def cells(self, columns: int = GRID_COLUMNS, rows: int = GRID_ROWS) -> list[list[Cell]]:
        """The grid, row by row, as Claude Code lays it out: each part's cells in order (at least one cell each, the
        last one partly full), then the free space, then the buffer in the last cells."""
        count = columns * rows
        whole = self.window or self.used or 1
        cells: list[Cell] = []
        for part in self.parts:
            cells += _part_cells(part.kind, part.tokens, whole, count)
        buffer = _part_cells("buffer", self.buffer, whole, count) if self.window and self.buffer else []
        cells = cells[: count - len(buffer)] if len(cells) > count - len(buffer) else cells
        cells += [Cell("free", 1.0)] * (count - len(buffer) - len(cells))
        cells = (cells + buffer)[:count]
        return [cells[row * columns : (row + 1) * columns] for row in range(rows)]


def _part_cells(kind: CellKind, tokens: int, whole: int, count: int) -> list[Cell]:
    exact = tokens / whole * count
    number = max(1, round(exact)) if tokens > 0 else 0
    whole_cells, fraction = math.floor(exact), exact - math.floor(exact)
    return [Cell(kind, fraction if index == whole_cells and fraction > 0 else 1.0) for index in range(number)]


def context_breakdown(conversation: Conversation) -> ContextBreakdown:
    """What the conversation's next request would carry, part by part (see the module's text)."""
    agent = conversation.agent
    config, history = agent.config, agent.history
    counter = history.meter.counter
    specs = agent.services.tools.specs()
    tools_total = counter.count(json.dumps([_tool_dict(spec) for spec in specs]))
    mcp_tools = tuple(_tool_item(spec, counter) for spec in specs if spec.name.startswith("mcp__"))
    api_tools = sum(_tool_item(spec, counter).tokens for spec in specs if spec.name.startswith("openapi__"))
    agents = _custom_agents(conversation, counter)
    prompt = config.system_prompt
    memory, memory_in_prompt = [], 0
    for memory_file in conversation.memory_files:
        text = render_memory([memory_file])
        item = Item(str(memory_file.path), counter.count(text), memory_file.path)
        memory.append(item)
        memory_in_prompt += item.tokens if text in prompt else 0
    skills = _skills_in(conversation, prompt, counter)
    mcp_total, agents_total = sum(tool.tokens for tool in mcp_tools), sum(kind.tokens for kind in agents)
    fixed: dict[PartKind, int] = {
        "system_prompt": max(0, counter.count(prompt) + counter.count(config.environment) - memory_in_prompt),
        "system_tools": max(0, tools_total - mcp_total - api_tools - agents_total),
        "mcp_tools": mcp_total,
        "api_tools": api_tools,
        "agents": agents_total,
        "memory": sum(m.tokens for m in memory),
        "skills": skills,
    }
    measured = history.meter.measured
    if measured:
        used = agent.context_tokens
    else:  # counted afresh: the meter's count of the prompt and tools is as they were (MCP tools join later)
        memory_in_messages = fixed["memory"] - memory_in_prompt
        used = sum(fixed.values()) + max(0, counter.messages(history.messages) - memory_in_messages)
    fixed = _fitted(fixed, used)
    parts = [Part(kind, tokens) for kind, tokens in fixed.items() if tokens > 0]
    if (messages := used - sum(fixed.values())) > 0:
        parts.append(Part("messages", messages))
    window = agent.window
    return ContextBreakdown(
        model=config.model,
        window=window,
        used=used,
        parts=tuple(parts),
        buffer=_buffer(conversation, window),
        measured=measured,
        memory_files=tuple(memory),
        agents=agents,
        mcp_tools=mcp_tools,
    )


def _tool_dict(spec: ToolSpec) -> dict[str, object]:
    """A tool as the meter counts it (see `Compactor._overhead`)."""
    return {"name": spec.name, "description": spec.description, "input_schema": spec.input_schema}


def _tool_item(spec: ToolSpec, counter: TokenCounter) -> Item:
    return Item(spec.name, counter.count(json.dumps(_tool_dict(spec))))


def _custom_agents(conversation: Conversation, counter: TokenCounter) -> tuple[Item, ...]:
    """The sub-agent types of the person and the project (and --agents): their lines in the Agent tool's text."""
    from agentui.core.extend.subagents import Task, listing_line

    task = conversation.project.tools.get(Task.name)
    if not isinstance(task, Task) or not task.offered:
        return ()
    items = []
    for kind in task.types.values():
        if not kind.builtin:  # (the built-in types are part of the tool)
            items.append(Item(kind.name, counter.count(listing_line(kind)), kind.path))
    return tuple(items)


def _skills_in(conversation: Conversation, prompt: str, counter: TokenCounter) -> int:
    """The tokens of the skills' listing (Claude Code's reminder, with the first prompt; 0 without the Skill tool)."""
    from agentui.core.extend.skills import load_skills, render_skills

    if conversation.project.tools.get("Skill") is None:
        return 0
    skills = load_skills(conversation.root, conversation.env)
    return counter.count(render_skills(skills)) if skills else 0


def _fitted(fixed: dict[PartKind, int], used: int) -> dict[PartKind, int]:
    """The parts as counted, or scaled down to `used` when they estimate larger than the provider's whole count
    (the remainder of rounding goes to the largest, so they add up exactly)."""
    total = sum(fixed.values())
    if total <= used:
        return fixed
    scaled: dict[PartKind, int] = {kind: tokens * used // total for kind, tokens in fixed.items()}
    largest = max(scaled, key=lambda kind: fixed[kind])
    scaled[largest] += used - sum(scaled.values())
    return scaled


def _buffer(conversation: Conversation, window: int | None) -> int:
    """The tokens past the point automatic compaction starts at: its threshold of the window it counts against."""
    options = conversation.agent.config.options
    auto_window = conversation.agent.compactor.auto_window()
    if not options.auto_compact or not window or not auto_window:
        return 0
    return max(0, window - int(options.compact_threshold * auto_window))
