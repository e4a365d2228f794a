"""Markdown for streamed answers, rendered a block at a time into lines.

Textual's Markdown widget mounts a widget per paragraph, list item and code block: a 20 000-token answer took about
two seconds of mounting, during which no frame was drawn, and kept a core busy at 200 tokens/s. Here the text is cut
into top-level blocks (at blank lines and around fenced code); a block is rendered by Rich once it is complete, only
the unfinished last block again as text arrives, and only the lines on screen are drawn (Textual's line API).
Fenced code is measured without rendering (its height is its lines folded to the width) and highlighted the first
time it is on screen, so a long answer costs tens of milliseconds, however it arrives.
"""

from __future__ import annotations

import copy
import io
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from markdown_it import MarkdownIt
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions
from rich.markdown import Markdown as RichMarkdown
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text
from textual.geometry import Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from agentui.frontends.tui.widgets.selection import with_selection

if TYPE_CHECKING:
    from pygments.lexer import Lexer

CODE_THEME = "monokai"
_MARKUP = re.compile(r"[`*_#>\[\]!|<~\\&:]|^\s*(?:[-+=]|\d+[.)])|^(?: {4}|\t)|  $|^\s|\s$", re.MULTILINE)
"""Anything in a block that Markdown could draw other than as plain words (or that needs a closer look)."""
_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})\s*([^`\s]*)")


@dataclass
class _Block:
    text: str
    language: str | None = None
    """For fenced code at the left margin: its language ("" if none); None for any other block."""
    code: list[str] = field(default_factory=list)
    lines: list[Strip] | None = None
    width: int = 0
    style: Style | None = None
    """The widget's style the lines were drawn on."""
    height: int = 0

    @property
    def is_code(self) -> bool:
        return self.language is not None


def split_blocks(text: str) -> tuple[list[_Block], str]:
    """Complete top-level blocks, and the unfinished rest (rendered again as it grows).

    A block ends at a blank line followed by an unindented line (so list items and their continuations stay
    together), and fenced code at the left margin is a block of its own. Blank lines inside fences never split."""
    blocks: list[_Block] = []
    lines = text.split("\n")
    complete = lines[:-1]  # the last piece has no newline yet
    start = 0  # first line of the current block
    fence: tuple[str, int] | None = None  # (character, length) of the open fence
    code_start: int | None = None
    for number, line in enumerate(complete):
        match = _FENCE.match(line)
        if fence is not None:
            stripped = line.strip()
            if (
                match
                and stripped == stripped[:1] * len(stripped)
                and stripped[:1] == fence[0]
                and len(stripped) >= fence[1]
            ):
                fence = None
                if code_start is not None:  # a top-level code block: a block of its own, fences and all
                    blocks.append(_code_block(lines[code_start : number + 1]))
                    start, code_start = number + 1, None
            continue
        if match:
            fence = (match.group(2)[0], len(match.group(2)))
            if not match.group(1):
                if start < number and any(piece.strip() for piece in lines[start:number]):
                    blocks.append(_Block("\n".join(lines[start:number]).strip("\n")))
                start, code_start = number, number
            continue
        if not line.strip():
            following = lines[number + 1] if number + 1 < len(complete) else None
            if following and following.strip() and not following[0].isspace() and start < number:
                chunk = "\n".join(lines[start:number]).strip("\n")
                if chunk:
                    blocks.append(_Block(chunk))
                start = number + 1
    rest = "\n".join(lines[start:])
    return blocks, rest


def _code_block(lines: list[str]) -> _Block:
    match = _FENCE.match(lines[0])
    language = match.group(3) if match else ""
    closed = len(lines) > 1 and _FENCE.match(lines[-1]) is not None and lines[-1].strip().strip("`~") == ""
    body = lines[1:-1] if closed else lines[1:]
    return _Block("\n".join(lines), language=language, code=body)


class MarkdownLines(Widget):
    """Markdown that grows: `append` text; it is laid out and drawn a line at a time."""

    DEFAULT_CSS = """
    MarkdownLines { height: auto; }
    """

    def __init__(
        self, text: str = "", *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._consumed: list[str] = []
        """The source the complete blocks came from, a piece per append that completed any."""
        self._rest = ""
        """The source after the complete blocks: the unfinished last block."""
        self._blocks: list[_Block] = []
        """Complete blocks, each rendered once (per width)."""
        self._tail = _Block("")
        self._offsets: list[int] = []
        """The first line of each complete block laid out so far."""
        self._laid = 0
        """How many complete blocks `_offsets` covers (at `_width`); laying out again starts after them."""
        self._laid_height = 0
        self._tail_offset = 0
        self._height = 0
        self._width = 0
        self._code_lines: dict[tuple[str, str], list[Strip]] = {}
        """Drawn lines of the code block still arriving (at `_code_key`: width and style); emptied when it completes."""
        self._code_key: tuple[int, Style | None] = (0, None)
        self.marked: str = ""
        """Text the find (Ctrl+F) marks wherever it is drawn (lower case; "" marks nothing)."""
        if text:
            self._add(text)

    @property
    def source(self) -> str:
        return "".join(self._consumed) + self._rest

    def append(self, text: str) -> None:
        if not text:
            return
        height = self._height
        self._add(text)
        if self._width > 0:
            self._layout(self._width)  # (what the layout would do first: the new text measured at the last width)
            if self._height == height:
                self.refresh()  # as tall as before: its lines are drawn again, nothing on the screen moves
                return
        self.refresh(layout=True)

    def _add(self, text: str) -> None:
        # Only the unfinished rest is looked at again: the work per batch does not grow with the answer.
        self._rest += text
        blocks, rest = split_blocks(self._rest)
        if blocks:
            for block in blocks:
                if block.is_code:
                    self._adopt_streamed_code(block)
            self._blocks += blocks
            self._consumed.append(self._rest[: len(self._rest) - len(rest)])
            self._rest = rest
            self._code_lines.clear()
        if rest != self._tail.text:
            fence = _FENCE.match(rest)
            self._tail = _code_block(rest.split("\n")) if fence and not fence.group(1) else _Block(rest)

    def _adopt_streamed_code(self, block: _Block) -> None:
        """A code block just completed: show the lines drawn while it streamed (highlighted a line at a time), and
        highlight it as a whole on a worker thread, which takes ~80 ms for 300 lines: a visible stall if done
        between two frames."""
        width, base = self._code_key
        if not width or base is None:
            return
        language = block.language or "text"
        missing = sum(1 for line in block.code or [""] if (language, line) not in self._code_lines)
        if missing > UNDRAWN_AT_MOST:
            return  # not drawn while it streamed (off screen): drawn when it is
        # (the last line usually: it is completed in the same batch as the closing fence, so it was never drawn whole)
        console = self.app.console
        options = console.options.update(width=width, height=None)
        drawn = _draw_code(block, console, options, width, self._code_lines)
        block.lines = [strip.apply_style(base) for strip in drawn]
        block.width, block.style, block.height = width, base, len(block.lines)

        def highlight() -> None:
            drawn = [strip.apply_style(base) for strip in _draw(block, console, width)]
            self.app.call_from_thread(self._highlighted, block, width, base, drawn)

        self.run_worker(highlight, thread=True, group="highlight", exit_on_error=False)

    def _highlighted(self, block: _Block, width: int, base: Style, lines: list[Strip]) -> None:
        if block.width == width and block.style == base and len(lines) == block.height:
            block.lines = lines
            self.refresh()

    # Layout

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._layout(width)
        return self._height

    def _layout(self, width: int) -> None:
        """Offsets and height at `width`: complete blocks are laid out once (again only if the width changes),
        the unfinished block each time."""
        if width <= 0:
            return
        if width != self._width:
            self._offsets, self._laid, self._laid_height, self._width = [], 0, 0, width
        y = self._laid_height
        for block in self._blocks[self._laid :]:
            y = self._place(block, y, width)
        self._laid, self._laid_height = len(self._blocks), y
        self._tail_offset = y + 1 if y and self._tail.text.strip() else y
        self._height = self._place(self._tail, y, width, record=False)

    def _place(self, block: _Block, y: int, width: int, *, record: bool = True) -> int:
        """Lay `block` out from line `y` (one blank line after what is above); the line after it."""
        if not block.text.strip():
            block.height = 0
            if record:
                self._offsets.append(y)
            return y
        if y:
            y += 1  # the blank line between blocks
        if record:
            self._offsets.append(y)
        if block.width != width:
            _measure(block, self.app.console, width, self.rich_style)
        return y + block.height

    def _locate(self, y: int) -> tuple[_Block, int] | None:
        """The block on line `y` and the row within it, or None for a blank line between blocks."""
        if y >= self._tail_offset and self._tail.text.strip():
            block, row = self._tail, y - self._tail_offset
        else:
            index = bisect_right(self._offsets, y, hi=self._laid) - 1
            if index < 0:
                return None
            block, row = self._blocks[index], y - self._offsets[index]
        return None if row < 0 or row >= block.height else (block, row)

    # Drawing

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        self._layout(width)
        found = self._locate(y)
        if found is None:
            return Strip.blank(width, self.rich_style)  # between blocks
        strip = with_selection(self, self._line_of(*found, width), y)
        if self.marked:
            strip = _marked(strip, self.marked, self.screen.get_component_rich_style("screen--selection"))
        return strip.apply_offsets(0, y)

    # Find

    def row_of(self, text: str) -> int | None:
        """The first drawn line holding `text` (any case), as laid out at the present width; None if none does."""
        width = self.size.width
        if width <= 0 or not text:
            return None
        self._layout(width)
        needle = text.lower()
        return next((y for y in range(self._height) if needle in self._plain_line(y, width).lower()), None)

    def mark(self, text: str) -> None:
        self.marked = text.lower()
        self.refresh()

    # Selection

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        width = self.size.width
        self._layout(width)
        text = "\n".join(self._plain_line(y, width) for y in range(self._height))
        return selection.extract(text), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    def _plain_line(self, y: int, width: int) -> str:
        found = self._locate(y)
        return "" if found is None else self._line_of(*found, width).text.rstrip()

    def _line_of(self, block: _Block, row: int, width: int) -> Strip:
        """A block's line, drawn on the widget's colours. Lines are kept styled: a strip made per frame is work for
        each frame, and (before `textual_cycles`, for any strip Textual still caches in itself) for the cyclic
        collector."""
        base = self.rich_style
        if block.lines is None or block.width != width or block.style != base:
            open_code = block is self._tail and block.is_code
            if open_code and (width, base) != self._code_key:
                self._code_lines.clear()
                self._code_key = (width, base)
            drawn = _draw(block, self.app.console, width, self._code_lines if open_code else None)
            block.lines = [strip.apply_style(base) for strip in drawn]
            block.width, block.style = width, base
        return block.lines[row] if row < len(block.lines) else Strip.blank(width, base)


def _marked(strip: Strip, needle: str, style: Style) -> Strip:
    """`strip` with each occurrence of `needle` (lower case) drawn in `style`."""
    text = strip.text.lower()
    spans: list[tuple[int, int]] = []
    start = text.find(needle)
    while start != -1 and needle:
        spans.append((cell_len(strip.text[:start]), cell_len(strip.text[: start + len(needle)])))
        start = text.find(needle, start + len(needle))
    for left, right in spans:
        before, middle, after = strip.divide([left, right, strip.cell_length])[:3]
        strip = Strip.join([before, middle.apply_style(style), after])
    return strip


def _measure(block: _Block, console: Console, width: int, base: Style) -> None:
    """The block's height at `width`: code by its lines folded to the width (no rendering); prose by rendering it
    (on `base`, the widget's style), and the lines are kept."""
    block.lines = None
    block.width, block.style = width, base
    if block.is_code:
        inner = max(1, width - 2)
        block.height = 2 + sum(max(1, -(-cell_len(line.expandtabs(4)) // inner)) for line in block.code)
        return  # drawn when first on screen
    block.lines = [strip.apply_style(base) for strip in _draw(block, console, width)]
    block.height = len(block.lines)


UNDRAWN_AT_MOST = 8
"""Lines of a just-completed code block highlighted one at a time (as while it streamed) when they were not drawn yet;
with more, the block is drawn whole when it is on screen."""


def _draw(
    block: _Block, console: Console, width: int, line_cache: dict[tuple[str, str], list[Strip]] | None = None
) -> list[Strip]:
    options = console.options.update(width=width, height=None)
    if block.is_code:
        return _draw_code(block, console, options, width, line_cache)
    # Prose with nothing Markdown would change is drawn as the paragraph Rich would make of it, without a parser
    # made and run for it (most of a long session's answers: the time to draw a page of them halves).
    text = block.text.strip("\n")
    prose = _MARKUP.search(text) is None and "\n\n" not in text
    renderable = Text(text, justify="left") if prose else _markdown(_hard_breaks(block.text))
    strips = [Strip(line, width) for line in console.render_lines(renderable, options, pad=True)]
    while strips and _empty(strips[-1]):  # blocks are one blank line apart; Rich ends some with one of its own
        strips.pop()
    while strips and _empty(strips[0]):
        strips.pop(0)
    return strips


@lru_cache(maxsize=1)
def _parsing() -> tuple[RichMarkdown, MarkdownIt]:
    """An empty Markdown renderable to copy, and the parser Rich configures (strikethrough and tables on)."""
    return RichMarkdown("", code_theme=CODE_THEME), MarkdownIt().enable("strikethrough").enable("table")


def _markdown(markup: str) -> RichMarkdown:
    """Rich's Markdown of `markup`, parsed by one parser for all blocks: Rich makes a parser per renderable (and
    compiles linkify's patterns for it), a fifth of laying out a long answer."""
    template, parser = _parsing()
    markdown = copy.copy(template)
    markdown.markup, markdown.parsed = markup, parser.parse(markup)
    return markdown


def _hard_breaks(text: str) -> str:
    """A model's single line breaks kept as breaks (Markdown would join the lines into one paragraph: a list of 300
    lines, one item per line, became one paragraph), as Claude Code shows them."""
    if "\n" not in text.strip():
        return text
    lines = text.split("\n")
    for number, line in enumerate(lines[:-1]):
        if line.strip() and lines[number + 1].strip() and not line.endswith(("  ", "\\")):
            lines[number] = line + "  "
    return "\n".join(lines)


def _empty(strip: Strip) -> bool:
    return not strip.text.strip() and all(segment.style is None or segment.style.bgcolor is None for segment in strip)


def _draw_code(
    block: _Block,
    console: Console,
    options: ConsoleOptions,
    width: int,
    line_cache: dict[tuple[str, str], list[Strip]] | None = None,
) -> list[Strip]:
    """A fenced code block, highlighted, on its theme's background with a margin of one cell and one line.

    A complete block is highlighted as a whole (multi-line strings need the lexer's state). A block still arriving
    is highlighted a line at a time through `line_cache`, so each batch costs only its new lines."""
    background = _code_background()
    inner = max(1, width - 2)
    blank = Strip.blank(width, background)
    margin = Strip.blank(1, background)
    language = block.language or "text"

    def rows(line: Text) -> list[Strip]:
        line.expand_tabs(4)
        whole = Strip(list(line.render(console))).apply_style(background)
        length = whole.cell_length
        # Folded at exactly `inner` cells, so the height _measure computed without drawing is the height drawn.
        pieces = whole.divide([*range(inner, length, inner), length]) if length > inner else [whole]
        return [Strip.join([margin, piece]).adjust_cell_length(width, background) for piece in pieces]

    strips = [blank]
    if line_cache is None:
        code = "\n".join(block.code)
        highlighted = _syntax(code, language).highlight(code) if code else Text("")
        for line in highlighted.split("\n", allow_blank=True)[: max(1, len(block.code))]:
            strips += rows(line)
    else:
        for source in block.code or [""]:
            found = line_cache.get((language, source))
            if found is None:
                found = line_cache[(language, source)] = rows(
                    _syntax(source, language).highlight(source) if source else Text("")
                )
            strips += found
    strips.append(blank)
    return strips


@lru_cache(maxsize=1)
def _code_background() -> Style:
    return Style(bgcolor=Syntax.get_theme(CODE_THEME).get_background_style().bgcolor)


def _syntax(code: str, language: str) -> Syntax:
    return Syntax(code, _lexer(language) or "text", theme=CODE_THEME)


def warm_highlighting() -> None:
    """Load what the first code block of a session needs (Pygments' lexers and Python's, the theme): ~25 ms that
    were a stall between two frames where an answer's first code block began. Called on a worker thread while the
    person types their first prompt."""
    console = Console(file=io.StringIO(), width=40, color_system="truecolor")
    console.render_lines(_syntax("def f(x):\n    return x  # one\n", "python"), console.options)
    _code_background()


@lru_cache(maxsize=32)
def _lexer(language: str) -> Lexer | None:
    """A lexer found once per language (Syntax would look it up again for every line)."""
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(language)
    except ClassNotFound:
        return None


def markdown_strips(text: str, console: Console, width: int, base: Style) -> list[Strip]:
    """A complete answer drawn whole at `width` on `base`, as `MarkdownLines` lays it out (its blocks one blank line
    apart): the line-drawn history's answers."""
    blocks, rest = split_blocks(text)
    fence = _FENCE.match(rest)
    blocks.append(_code_block(rest.split("\n")) if fence and not fence.group(1) else _Block(rest))
    strips: list[Strip] = []
    blank = Strip.blank(width, base)
    for block in blocks:
        if not block.text.strip():
            continue
        if strips:
            strips.append(blank)
        strips += [strip.apply_style(base) for strip in _draw(block, console, width)]
    return strips
