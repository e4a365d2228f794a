"""A resumed session as the blocks a live one shows: read from its messages (and the details its tool results
recorded) as prompts, answers, tool calls with their results, `!command`s and compaction marks, each drawn by the
widget that draws it live; only the latest parts at first, so that a session of thousands of turns
opens as fast as a short one."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from agentui.frontends.tui.widgets.tool_block import ToolBlock
from agentui.frontends.tui.widgets.transcript import Notice, UserPrompt

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from textual.widget import Widget

    from agentui.api.messages import Message

HISTORY_SHOWN = 40
"""How many parts (prompts, answers, tool calls) of a resumed session are drawn as lines at first (each is drawn
whole); more are drawn as the person scrolls up to them."""
EARLIER_SHOWN = 12
"""How many older parts one PageUp at the top draws: about a page, so that each key is answered at once."""
INIT_PROMPT = (
    "Please analyse this codebase and create a CLAUDE.md file at its root, for future sessions to read. Include "
    "the commands to build, lint and test (and to run a single test), and the big-picture architecture that takes "
    "reading several files to understand. Keep it short and specific to this project; if a CLAUDE.md exists, "
    "improve it instead."
)
"""What /init sends; the transcript shows it as /init."""

_SHELL_RECORD = re.compile(r"^<bash-input>(.*?)</bash-input>\s*(?:<bash-stdout>(.*?)</bash-stdout>)?", re.DOTALL)


def shell_record(text: str) -> tuple[str, str] | None:
    """A `!command` as the session holds it (Claude Code's `<bash-input>` and `<bash-stdout>` tags): the command and
    its output, or None for any other text."""
    found = _SHELL_RECORD.match(text)
    return (found[1], found[2] or "") if found else None


def prompt_text(message: Message) -> str:
    """What the person sent in a user message: its text without the reminders added for the model."""
    from agentui.api.messages import TextBlock, is_reminder

    return "".join(b.text for b in message.content if isinstance(b, TextBlock) and not is_reminder(b.text))


def summary_text(text: str) -> str:
    from agentui.api import SUMMARY_PREFIX

    return text.removeprefix(SUMMARY_PREFIX)


class Result(NamedTuple):
    """What a call's ToolEnd says, kept without the event (a long session has thousands)."""

    content: Any
    is_error: bool
    details: dict[str, Any]
    denied: bool


KEPT_CHARS = 4_000
"""A result longer than this is kept, once its widget goes, as what its block shows, in about this much: the session
file keeps it whole (a 1,000-turn run of 50 KB reads kept 50 MB the conversation had already let go of)."""
KEPT_HEAD, KEPT_TAIL = 60, 12
"""Lines kept of a long result: as many as a block shows of a file's start, or of a command's end."""


def kept_result(result: Result) -> Result:
    """`result` as the line-drawn history keeps it: long output clipped to its first and last lines (what a block
    shows: the start of a file, the end of a command's output), long strings in its details left out."""
    from agentui.api import result_text

    text = result_text(result.content)
    if len(text) <= KEPT_CHARS and _small(result.details):
        return result
    content: Any = result.content
    if len(text) > KEPT_CHARS:
        lines = [line[:200] for line in text.splitlines()]
        head = _within(lines[:KEPT_HEAD], 3 * KEPT_CHARS // 4)
        tail = _within(lines[-KEPT_TAIL:][::-1], KEPT_CHARS // 4)[::-1]
        if len(head) + len(tail) >= len(lines):  # (a few long lines: as many as fit, from the start)
            head, tail = _within(lines, KEPT_CHARS), []
        left_out = len(lines) - len(head) - len(tail)
        note = [f"… {left_out:,} more lines (the session file keeps them)"] if left_out > 0 else []
        content = "\n".join([*head, *note, *tail])
    return Result(content, result.is_error, _clipped(result.details), result.denied)


def _within(lines: list[str], chars: int) -> list[str]:
    """The first of `lines` that fit in `chars`."""
    kept: list[str] = []
    for line in lines:
        chars -= len(line) + 1
        if chars < 0:
            break
        kept.append(line)
    return kept


def _small(value: Any) -> bool:
    if isinstance(value, str):
        return len(value) <= KEPT_CHARS
    if isinstance(value, dict):
        return all(_small(item) for item in value.values())
    if isinstance(value, list):
        return all(_small(item) for item in value)
    return True


def _clipped(value: Any) -> Any:
    if isinstance(value, str):
        return value if len(value) <= KEPT_CHARS else ""
    if isinstance(value, dict):
        return {key: _clipped(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_clipped(item) for item in value]
    return value


@dataclass
class History:
    """A resumed session's parts (prompts, answers, tool calls...) as cheap tuples, oldest first; widgets are made
    only for the parts drawn, a chunk at a time."""

    parts: list[tuple[str, Any]]
    results: dict[str, Result]
    pinned: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
    """The prompts (by text) and tool calls (by id) pinned with Ctrl+P: their blocks show the mark."""


def read_history(messages: Sequence[Message], details: Mapping[str, dict[str, Any]]) -> History:
    """The parts of a history: its messages, as a live run showed them (its answers' text, its tool calls and their
    results with the `details` the session recorded, what the person typed, interrupts, `!command`s, summaries)."""
    from agentui.api.messages import (
        INTERRUPTED,
        SUMMARY_PREFIX,
        TextBlock,
        ToolResultBlock,
        ToolUseBlock,
        is_reminder,
        is_summary,
        typed_command,
        was_refused,
    )

    parts: list[tuple[str, Any]] = []
    results: dict[str, Result] = {}
    expanding = False  # (after a command as typed: what it expanded to, or printed, is not shown)
    for message in messages:
        if message.role == "assistant":
            for block in message.content:
                if isinstance(block, TextBlock) and block.text.strip():
                    parts.append(("answer", block.text))
                    expanding = False
                elif isinstance(block, ToolUseBlock):
                    parts.append(("tool", block))
                    expanding = False
        elif is_summary(message):
            parts.append(("summary", message.text.removeprefix(SUMMARY_PREFIX)))
        else:
            for block in message.content:
                if isinstance(block, ToolResultBlock):
                    found = details.get(block.tool_use_id, {})
                    denied = was_refused(block.content, found)
                    results[block.tool_use_id] = Result(block.content, block.is_error, found, denied)
                elif not isinstance(block, TextBlock) or not block.text.strip() or is_reminder(block.text):
                    continue
                elif block.text.startswith(INTERRUPTED):
                    parts.append(("notice", "Interrupted."))
                elif (record := shell_record(block.text)) is not None:
                    parts.append(("shell", record))
                elif (typed := typed_command(block.text)) is not None:
                    parts.append(("prompt", typed))
                    expanding = True
                elif expanding:
                    expanding = False
                else:
                    parts.append(("prompt", block.text))
    return History(parts, results)


def part_widgets(history: History, kind: str, item: Any, cwd: Path | None) -> list[Widget]:
    """The widgets of one part of `history`, complete before they are mounted (one layout pass for them)."""
    from agentui.api import SHELL_TOOL
    from agentui.frontends.tui.widgets.answer import AssistantText, CompactionMark

    if kind == "summary":
        return [CompactionMark(summary_text(item))]
    if kind == "notice":
        return [Notice(*item) if isinstance(item, tuple) else Notice(item)]
    if kind == "prompt":
        prompt = UserPrompt(item)
        if item in history.pinned[0]:
            prompt.set_pinned(True)
        return [prompt]
    if kind == "context":
        return [UserPrompt(item, context=True)]
    if kind == "answer":
        return [AssistantText(item)]
    if kind == "shell":
        command, output = item
        own = ToolBlock(f"shell-{id(item)}", SHELL_TOOL, cwd)
        own.set_arguments({"command": command})
        own.finish(output, False, {})
        return [UserPrompt(f"! {command}", context=True), own]
    tool = ToolBlock(item.id, item.name, cwd)
    tool.set_arguments(item.input)
    result = history.results.get(item.id)
    if result is not None:
        tool.finish(result.content, result.is_error, result.details, result.denied)
    if item.id in history.pinned[1]:
        tool.set_pinned(True)
    return [tool]


def part_text(history: History, kind: str, item: Any) -> str:
    """What a search of the transcript looks through in a part not drawn as a widget: as the widget's own."""
    from agentui.api import result_text

    if kind == "notice":
        return str(item[0] if isinstance(item, tuple) else item)
    if kind == "shell":
        return f"! {item[0]} {item[1]}"
    if kind == "tool":
        found = history.results.get(item.id)
        said = result_text(found.content) if found is not None else ""
        return f"{item.name} {' '.join(str(value) for value in item.input.values())} {said}"
    return str(item)
