"""An answer on screen: its text streamed as Markdown, its thinking folded away, and where compaction happened.

Kept apart from the transcript so the app's first frame does not wait for the Markdown parser: this module is
imported when the first answer arrives.

Answers are Markdown (`MarkdownLines`) fed in batches every 50 ms; each batch renders only the unfinished
last block again, never the whole answer, and only the lines on screen are drawn.
"""

from __future__ import annotations

from textual.content import Content
from textual.timer import Timer
from textual.widgets import Collapsible, Static

from agentui.frontends.tui.widgets.markdown_lines import MarkdownLines

SUMMARY_NOTE = "(the summary the model continues from)"
BATCH_SECONDS = 0.05
"""How often streamed text is shown: 20 times a second, each batch redrawing only the unfinished last block."""


class AssistantText(MarkdownLines):
    """One text block of an answer, streamed."""

    DEFAULT_CSS = """
    AssistantText { margin: 1 0 0 0; padding: 0; background: transparent; }
    """

    def __init__(self, text: str = "") -> None:
        super().__init__(text)
        self._pending: list[str] = []
        self._timer: Timer | None = None
        self.finished = False

    def add(self, text: str) -> None:
        if self.finished:
            return  # a late delta for a block already complete: nothing may follow its end
        self._pending.append(text)
        if self._timer is None:
            self._timer = self.set_timer(BATCH_SECONDS, self._flush)

    def _flush(self) -> None:
        self._timer = None
        if self._pending:
            chunk = "".join(self._pending)
            self._pending.clear()
            self.append(chunk)

    async def finish(self) -> None:
        """The block is complete: show what is left."""
        if self.finished:
            return
        self.finished = True
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._flush()


class ThinkingView(Collapsible):
    """The model's thinking: dimmed, folded away, unfolded with a click or Enter; its title says about how many
    tokens it is, as it grows."""

    DEFAULT_CSS = """
    ThinkingView { margin: 1 0 0 0; padding: 0; border: none; background: transparent; }
    ThinkingView Static { color: $text-muted; text-style: italic; }
    ThinkingView CollapsibleTitle { color: $text-muted; padding: 0; }
    """

    def __init__(self) -> None:
        self._text: list[str] = []
        self._body = Static("")
        self._timer: Timer | None = None
        super().__init__(self._body, title="Thinking…", collapsed=True)

    def add(self, text: str) -> None:
        self._text.append(text)
        if self._timer is None:
            self._timer = self.set_timer(BATCH_SECONDS, self._flush)

    def _flush(self, done: bool = False) -> None:
        from agentui.api import estimate_tokens

        self._timer = None
        text = "".join(self._text)
        self._body.update(Content(text))
        tokens = estimate_tokens(text)
        said = f" ({tokens:,} token{'s' if tokens != 1 else ''})" if tokens else ""
        self.title = ("Thought" if done else "Thinking…") + said

    def finish(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._flush(done=True)


class CompactionMark(Collapsible):
    """Where the conversation was compacted: a rule to show it, and the summary the model now reads, folded."""

    DEFAULT_CSS = """
    CompactionMark {
        margin: 1 0 0 0;
        padding: 0;
        border: none;
        border-top: dashed $secondary;
        background: transparent;
    }
    CompactionMark CollapsibleTitle { color: $secondary; padding: 0; }
    CompactionMark Static { color: $text-muted; }
    """

    def __init__(self, summary: str, title: str = "Conversation compacted", report: str = "") -> None:
        self.summary = summary
        self.report = report
        """What was summarised, taken out and carried (compaction_lines.py), above the summary."""
        body = f"{report}\n\nSummary:\n{summary}" if report else summary
        super().__init__(Static(Content(body)), title=f"{title} {SUMMARY_NOTE}", collapsed=True)
