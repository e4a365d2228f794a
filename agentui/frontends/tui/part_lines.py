"""A part of the conversation (a prompt, an answer, a tool call with its result, a notice, a compaction mark) drawn
as lines, looking as its live widget does: how the line-drawn history shows what is no longer a widget."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

    from agentui.frontends.tui.history_view import History

COMPACTED = "Conversation compacted (the summary the model continues from)"  # (as CompactionMark titles it)
BODY_INDENT = 2
"""A tool block's result is drawn this far in, under its header (as the live block's padding)."""


@dataclass(frozen=True)
class Look:
    """The styles parts are drawn in, resolved from the theme (the same colours as the live widgets' CSS)."""

    base: Style
    prompt: Style
    prompt_edge: Style
    context: Style
    context_edge: Style
    notice: Style
    warning: Style
    error: Style
    tool: Style
    tool_error: Style
    tool_denied: Style
    tool_body: Style
    diff: Style
    mark: Style


def part_lines(
    history: History, kind: str, item: Any, cwd: Path | None, width: int, look: Look, console: Console
) -> list[Strip]:
    """The lines of one part of `history` at `width`, with the blank line above it that separates parts."""
    width = max(width, 8)
    blank = Strip.blank(width, look.base)
    if kind in ("prompt", "context"):
        lines = _prompt(item, kind == "context", width, look, console)
    elif kind == "notice":
        message, level = item if isinstance(item, tuple) else (item, "info")
        colour = {"warning": look.warning, "error": look.error}.get(level, look.notice)
        lines = _wrapped(Text(message), width, look.base + colour, console)
    elif kind == "answer":
        from agentui.frontends.tui.widgets.markdown_lines import markdown_strips

        lines = markdown_strips(item, console, width, look.base)
    elif kind == "summary":
        # As `CompactionMark`, folded: a dashed rule and its title (the summary shows when the block is opened).
        rule = Strip([Segment("╍" * width, look.base + look.mark)])
        lines = [rule, *_wrapped(Text(f"▶ {COMPACTED}"), width, look.base + look.mark, console)]
    elif kind == "shell":
        from agentui.api import SHELL_TOOL

        command, output = item
        lines = [
            *_prompt(f"! {command}", True, width, look, console),
            blank,
            *_tool(SHELL_TOOL, {"command": command}, (output, False, {}, False), cwd, width, look, console),
        ]
    else:
        lines = _tool(item.name, item.input, history.results.get(item.id), cwd, width, look, console)
    return [blank, *lines]


def _wrapped(renderable: RenderableType, width: int, style: Style, console: Console) -> list[Strip]:
    options = console.options.update(width=width, height=None)
    return [Strip(line, width) for line in console.render_lines(renderable, options, style=style, pad=True)]


def _prompt(text: str, context: bool, width: int, look: Look, console: Console) -> list[Strip]:
    """As `UserPrompt`: a thick edge on the left, and the text on the prompt's background, a cell in from each side."""
    from agentui.frontends.tui.widgets.transcript import prompt_shown

    style = look.base + (look.context if context else look.prompt)
    edge = Segment("█", look.base + (look.context_edge if context else look.prompt_edge))
    pad = Segment(" ", style)
    inner = _wrapped(Text(prompt_shown(text)), max(1, width - 3), style, console)
    return [Strip([edge, pad, *line, pad], width) for line in inner]


def _tool(
    name: str,
    arguments: dict[str, Any],
    result: tuple[Any, bool, dict[str, Any], bool] | None,
    cwd: Path | None,
    width: int,
    look: Look,
    console: Console,
) -> list[Strip]:
    """As `ToolBlock`, finished: its header, and the result under it where the live block opens it by itself."""
    from agentui.api import describe_call
    from agentui.frontends.tui.widgets.tool_block import STATE_ICONS, header_text, result_look

    view = describe_call(name, arguments, cwd)
    if result is None:
        return _wrapped(
            header_text(STATE_ICONS["pending"], name, view.title, "", "pending"), width, look.base + look.tool, console
        )
    content, is_error, details, denied = result
    shown = result_look(name, view, content, is_error, details, denied)
    state = "denied" if denied else ("error" if is_error else "done")
    colour = {"denied": look.tool_denied, "error": look.tool_error}.get(state, look.tool)
    lines = _wrapped(
        header_text(STATE_ICONS[state], name, view.title, shown.summary, state), width, look.base + colour, console
    )
    if not shown.expanded:
        return lines
    inner = max(1, width - BODY_INDENT)
    indent = Segment(" " * BODY_INDENT, look.base)
    if shown.patch:
        from rich.padding import Padding  # (as DiffView: padded, on the surface)

        from agentui.frontends.tui.widgets.diff_view import render_patch

        body = _wrapped(
            Padding(render_patch(shown.patch), (0, 1)), inner, look.base + look.tool_body + look.diff, console
        )
        if shown.diagnostics is not None:
            body += _wrapped(shown.diagnostics, inner, look.base + look.tool_body, console)
    else:
        body = _wrapped(shown.body, inner, look.base + look.tool_body, console)
    return [*lines, *(Strip([indent, *line], width) for line in body)]
