"""Ctrl+O: copy raw source through the terminal (OSC 52) and Textual's clipboard, with no wrapping or borders in
it. The first press copies the tool block in focus (its output or diff), else the last answer as its Markdown;
each press within a few seconds moves on to that answer's code blocks, the last one first."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from agentui.frontends.tui.widgets.tool_block import ToolBlock

if TYPE_CHECKING:
    from agentui.frontends.tui.host import AppHost

AGAIN_SECONDS = 4.0


class Copier:
    def __init__(self, app: AppHost) -> None:
        self.app = app
        self._targets: list[tuple[str, str]] = []
        self._at = 0
        self._pressed_at = 0.0

    def copy(self) -> None:
        now = time.monotonic()
        choices = self._choices()
        if choices and choices == self._targets and now - self._pressed_at <= AGAIN_SECONDS:
            self._at = (self._at + 1) % len(choices)  # the same press again: the next of the same answer's parts
        else:
            self._targets, self._at = choices, 0
        self._pressed_at = now
        if not self._targets:
            self.app.say("There is nothing to copy yet.", "warning")
            return
        what, text = self._targets[self._at]
        said = copy_text(self.app, what, text)
        more = " Ctrl+O again copies its code blocks." if self._at == 0 and len(self._targets) > 1 else ""
        self.app.notify(said + more, timeout=AGAIN_SECONDS)

    def _choices(self) -> list[tuple[str, str]]:
        focused = self.app.focused
        if isinstance(focused, ToolBlock) and focused.copy_text:
            return [(f"the {focused.tool_name} result", focused.copy_text)]
        from agentui.frontends.tui.widgets.answer import AssistantText

        answers = [w for w in self.app.transcript.query(AssistantText) if w.source.strip()]
        if not answers:
            return []
        source = answers[-1].source
        blocks = code_blocks(source)
        named = [(f"code block {n} of {len(blocks)} of the last answer", code) for n, code in enumerate(blocks, 1)]
        return [("the last answer", source), *reversed(named)]


def copy_text(app: AppHost, what: str, text: str) -> str:
    """`text` to the clipboard, as it is; the sentence saying what was copied ("Copied the last answer (3 lines).")."""
    app.copy_to_clipboard(text)
    lines = text.rstrip("\n").count("\n") + 1
    return f"Copied {what} ({lines} line{'' if lines == 1 else 's'})."


def code_blocks(markdown: str) -> list[str]:
    """The fenced and indented code blocks of an answer, as written, in order."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt().parse(markdown)
    return [token.content.rstrip("\n") for token in tokens if token.type in ("fence", "code_block")]
