"""A tool call on screen, updated in place: name and a one-line summary, a spinner while it runs, live output
(a command's), then the result as the tool describes it (`agentui.api.describe_result`): its one line, and under
it the change as a diff, the task list, or the output. Collapsed by default, open where the tool says its result
is worth seeing, expanded on error; Enter or a click toggles it. Output is plain text, never Markdown."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Log, Static

from agentui.api import CallView, ResultView, describe_call, describe_result, result_text
from agentui.frontends.tui.widgets.diff_view import DiffView

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
MAX_RESULT_LINES = 60
TAIL_LINES = 12
STATE_ICONS = {"pending": "○", "asking": "?", "done": "●", "error": "✗", "denied": "⊘"}


TODO_MARKS = {"completed": ("☒", "dim strike"), "in_progress": ("◐", "bold"), "pending": ("☐", "")}


def todo_text(todos: list[dict[str, Any]]) -> Text:
    text = Text()
    for todo in todos:
        mark, style = TODO_MARKS.get(str(todo.get("status")), ("☐", ""))
        text.append(f"{mark} {todo.get('content', '')}\n", style=style)
    return text


PIN_MARK = "📌 pinned"
"""How a pinned block shows it (Ctrl+P, pinning.py)."""


class ToolBlock(Vertical):
    DEFAULT_CSS = """
    ToolBlock { height: auto; margin: 1 0 0 0; }
    ToolBlock > .tool-header { color: $text; }
    ToolBlock > .tool-header:hover { background: $boost; }
    ToolBlock:focus > .tool-header { background: $accent 35%; text-style: bold; }
    ToolBlock.-running > .tool-header { color: $accent; }
    ToolBlock.-error > .tool-header { color: $error; }
    ToolBlock.-denied > .tool-header { color: $warning; }
    ToolBlock.-asking > .tool-header { color: $warning; text-style: bold; }
    ToolBlock > .tool-body { height: auto; display: none; padding: 0 0 0 2; color: $text-muted; }
    ToolBlock.-expanded > .tool-body { display: block; }
    ToolBlock Log { height: auto; max-height: 16; background: $surface; }
    """
    can_focus = True
    BINDINGS: ClassVar[list[BindingType]] = [("enter", "toggle_expanded", "Expand or collapse")]

    state: reactive[str] = reactive("pending")
    expanded: reactive[bool] = reactive(False)

    def __init__(self, tool_call_id: str, name: str, cwd: Path | None = None) -> None:
        super().__init__()
        self.tool_call_id = tool_call_id
        self.tool_name = name
        self.arguments: dict[str, Any] = {}
        self._cwd = cwd
        self.view: CallView = describe_call(name, {}, cwd)
        self._summary = ""
        self._result = ""
        self._frame = 0
        self._spinner: Timer | None = None
        self._header = Static("", classes="tool-header")
        self._body = Vertical(classes="tool-body")
        self._log: Log | None = None
        self._composed = False
        self._focused = False
        self.result: tuple[Any, bool, dict[str, Any], bool] | None = None
        """What the call's end said (content, is_error, details, denied): the line-drawn history draws it again."""
        self.copy_text = ""
        """What Ctrl+O copies while this block has focus: the output, or the change as diff lines."""
        self.pinned = False
        """Pinned with Ctrl+P: every compaction carries its result verbatim."""
        self._refresh_header()

    @property
    def search_text(self) -> str:
        """What a search of the transcript looks through: the call and its result."""
        return f"{self.tool_name} {self._summary} {self._result} {self.copy_text}"

    def compose(self) -> ComposeResult:
        self._composed = True
        yield self._header
        yield self._body

    # State changes from events

    def set_arguments(self, arguments: dict[str, Any]) -> None:
        self.arguments = arguments
        self.view = describe_call(self.tool_name, arguments, self._cwd)
        self._summary = self.view.title
        self._refresh_header()

    def ask(self) -> None:
        self.state = "asking"
        self._result = "waiting for your answer"
        self._refresh_header()

    def start(self) -> None:
        self.state = "running"
        self._result = ""
        if self._spinner is None:
            self._spinner = self.set_interval(0.1, self._spin)

    def progress(self, text: str) -> None:
        if self._log is None:
            self._log = Log(max_lines=2000)
            self._body.mount(self._log)
            self.expanded = True  # live output is worth seeing while it comes
        self._log.write(text)

    def finish(self, content: Any, is_error: bool, details: Mapping[str, Any], denied: bool = False) -> None:
        if self._spinner is not None:
            self._spinner.stop()
            self._spinner = None
        self.result = (content, is_error, dict(details), denied)
        look = result_look(self.tool_name, self.view, content, is_error, details, denied)
        self.copy_text = look.copy_text
        self.state = "denied" if denied else ("error" if is_error else "done")
        self._result = look.summary
        if details.get("interrupted") and self._log is not None:
            self.expanded = True  # the output so far stays where it was, under "interrupted" once
            self._refresh_header()
            return
        widgets = [DiffView(look.patch) if look.patch else Static(look.body)]
        if look.diagnostics is not None:
            widgets.append(Static(look.diagnostics, classes="tool-diagnostics"))
        if self._composed:
            self._body.remove_children()
            self._body.mount_all(widgets)
        else:  # (a resumed session's block, finished before it is drawn: composed whole, in one layout)
            self._body = Vertical(*widgets, classes="tool-body")
        self._log = None
        self.expanded = look.expanded
        self._refresh_header()

    # Display

    def _spin(self) -> None:
        self._frame += 1
        self._refresh_header()

    def _refresh_header(self) -> None:
        icon = SPINNER[self._frame % len(SPINNER)] if self.state == "running" else STATE_ICONS.get(self.state, "●")
        hint = f"Enter: {'fold' if self.expanded else 'open'} · Ctrl+O: copy" if self._focused else ""
        result = f"{self._result} · {PIN_MARK}" if self.pinned else self._result
        self._header.update(header_text(icon, self.tool_name, self._summary, result, self.state, hint))

    def set_pinned(self, pinned: bool) -> None:
        self.pinned = pinned
        self._refresh_header()

    def watch_state(self, state: str) -> None:
        for name in ("running", "error", "denied", "asking"):
            self.set_class(state == name, f"-{name}")

    def watch_expanded(self, expanded: bool) -> None:
        self.set_class(expanded, "-expanded")

    def action_toggle_expanded(self) -> None:
        self.expanded = not self.expanded
        self._refresh_header()

    def on_focus(self) -> None:  # (called before Textual's own handler sets has_focus)
        self._focused = True
        self._refresh_header()
        self.scroll_visible(animate=False)

    def on_blur(self) -> None:
        self._focused = False
        self._refresh_header()

    def on_click(self) -> None:
        self.action_toggle_expanded()


def header_text(icon: str, name: str, summary: str, result: str, state: str, hint: str = "") -> Text:
    """A block's one line: its state, the tool, what it was called on, what came of it (and, with `hint`, what the
    keys do to the block Tab reached, where the eye is)."""
    header = Text()
    header.append(f"{icon} ")
    header.append(name, style="bold")
    if summary:
        header.append(f"  {summary}")
    if result:
        header.append(f"  — {result}", style="dim" if state == "done" else "")
    if hint:
        header.append(f"  ‹{hint}›", style="italic")
    return header


class ResultLook(NamedTuple):
    """How a finished call is drawn, the same live and in the line-drawn history."""

    summary: str
    """Its one line in the header."""
    patch: list[dict[str, Any]]
    """The change as hunks (drawn as a diff), or empty."""
    body: Text
    """Otherwise what is under the header: the task list, or the output (its end, for a command)."""
    expanded: bool
    copy_text: str
    diagnostics: Text | None = None
    """The errors the language server found that the change brought, drawn under the diff."""


def result_look(
    name: str, view: CallView, content: Any, is_error: bool, details: Mapping[str, Any], denied: bool
) -> ResultLook:
    shown = describe_result(name, content, is_error, details, denied)
    text = result_text(content)
    copy_text = "\n".join(line for hunk in shown.patch for line in hunk.get("lines", [])) or text
    # What a person wants to see without asking: the change an edit made, a command's output, the task list,
    # an error in full. Reads and searches stay one line (Enter opens them).
    shows = view.opens and bool(text.strip() or shown.patch)
    more = is_error and text.strip() != shown.summary  # an error longer than its one line in the header
    expanded = not denied and (more or (shows and not is_error))
    patch = shown.patch if shown.patch and not is_error else []
    body = _body(view, shown, text, is_error)
    return ResultLook(shown.summary, patch, body, expanded, copy_text, diagnostics_text(shown.diagnostics))


def diagnostics_text(lines: list[str]) -> Text | None:
    if not lines:
        return None
    return Text("\n".join(lines), style="bold red")


def _body(view: CallView, shown: ResultView, text: str, is_error: bool) -> Text:
    if shown.todos is not None and not is_error:
        return todo_text(shown.todos)
    lines = text.splitlines()
    if view.tail and not is_error and len(lines) > TAIL_LINES:
        # the end of a command's output is what matters (the test summary, the error)
        lines = [f"… {len(lines) - TAIL_LINES} earlier lines", *lines[-TAIL_LINES:]]
    elif len(lines) > MAX_RESULT_LINES:
        lines = [*lines[:MAX_RESULT_LINES], f"… {len(lines) - MAX_RESULT_LINES} more lines"]
    return Text("\n".join(lines))
