"""A tool call on screen, updated in place: name and a one-line summary, a spinner while it runs, live output
(Bash), then the result: a diff for Edit and Write, counts for Read, Grep and Glob, the list for TodoWrite.
Collapsed by default, expanded on error; Enter or a click toggles it. Output is plain text, never Markdown."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Log, Static

from agentui.api import call_summary
from agentui.frontends.tui.widgets.diff_view import DiffView, count_changes

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
MAX_RESULT_LINES = 60
BASH_SHOWN_LINES = 12
SHOWN_OPEN = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit", "Bash", "TodoWrite"})
_STATE_ICONS = {"pending": "○", "asking": "?", "done": "●", "error": "✗", "denied": "⊘"}


def _text_of(content: Any) -> str:
    return content if isinstance(content, str) else "\n".join(getattr(b, "text", "[image]") for b in content or [])


def result_summary(name: str, content: Any, is_error: bool, details: dict[str, Any], denied: bool = False) -> str:
    from agentui.api.messages import REFUSED

    text = _text_of(content)
    if denied:  # (the person's own words in full, not the sentence written for the model)
        said = text.partition("The user said: ")[2].strip()
        if said:
            return f"denied — you said: {said}"
        return "denied" if text.startswith(REFUSED) else f"denied: {text.strip()}"
    if is_error and text.startswith("Interrupted by user"):
        return "stopped (Esc)"  # the run's own "Interrupted." line says the rest
    if is_error:
        return text.splitlines()[0][:200] if text.strip() else "failed"
    if details.get("type") == "file_unchanged":  # (not sent again: the model has it)
        return "unchanged since last read"
    if details.get("type") == "unchanged":
        return "same as the earlier search"
    if name == "Read":
        if details.get("type") == "image":
            return "image"
        found = details.get("file")
        read: dict[str, Any] = found if isinstance(found, dict) else {}
        if details.get("type") == "notebook" and isinstance(read.get("cells"), list):
            count = len(read["cells"])
            return f"{count} cell{'' if count == 1 else 's'}"
        if isinstance(read.get("content"), str):  # (Claude Code's shape: the lines as they are in the file)
            return f"{len(read['content'].splitlines())} lines"
        lines = details.get("numLines") or read.get("numLines")
        return f"{lines if lines is not None else len(text.splitlines())} lines"
    if name in ("Edit", "Write"):
        if "structuredPatch" not in details:
            return "done"
        added, removed = count_changes(display_patch(details))
        verb = "created" if details.get("type") == "create" else "changed"
        return f"{verb}: +{added} −{removed}"
    if name in ("Grep", "Glob"):
        count = details.get("numFiles", 0)
        return f"{count} file{'' if count == 1 else 's'}"
    if name == "Bash" and details.get("backgroundTaskId"):
        moved = "sent to the background" if details.get("backgroundedByUser") else "running in the background"
        return f"{moved} as {details['backgroundTaskId']}"
    if name in ("TaskOutput", "BashOutput"):
        task = details.get("task") or details
        status = task.get("status")
        lines = len(str(task.get("output") or task.get("stdout") or "").splitlines())
        return f"{status} · {lines} new line{'' if lines == 1 else 's'}" if status else "done"
    if name in ("TaskStop", "KillShell", "KillBash"):
        return "stopped"
    if name == "TaskCreate":
        return f"task #{(details.get('task') or {}).get('id', '?')} created"
    if name == "TaskList":
        count = len(details.get("tasks") or [])
        return f"{count} task{'' if count == 1 else 's'}"
    if name == "Bash":
        code = details.get("exitCode")
        lines = len(str(details.get("stdout") or text).splitlines())
        plural = "" if lines == 1 else "s"
        return f"exit {code} · {lines} line{plural}" if code else f"{lines} line{plural} of output"
    if name == "TodoWrite":
        return "task list updated"
    if name == "WebFetch":
        if details.get("redirect"):
            return f"redirects to {details['redirect']}"
        size = details.get("bytes")
        return f"{details.get('code', '')} · {size / 1024:,.1f} KB read".strip(" ·") if size is not None else "done"
    if name == "ExitPlanMode":
        return "plan approved"
    if name == "AskUserQuestion":
        answers = details.get("answers") or {}
        return "; ".join(str(a) for a in answers.values())[:200] or "answered"
    return "done"


def display_patch(details: dict[str, Any]) -> list[dict[str, Any]]:
    """The change a Write or Edit made, to show: its structured patch, or for a new file (which Claude Code 2.1
    records with an empty patch) all of its content as added lines."""
    patch = details.get("structuredPatch") or []
    if patch or details.get("type") != "create":
        return list(patch)
    lines = str(details.get("content") or "").splitlines()
    return [{"oldStart": 0, "oldLines": 0, "newStart": 1, "newLines": len(lines), "lines": [f"+{x}" for x in lines]}]


TODO_MARKS = {"completed": ("☒", "dim strike"), "in_progress": ("◐", "bold"), "pending": ("☐", "")}


def todo_text(todos: list[dict[str, Any]]) -> Text:
    text = Text()
    for todo in todos:
        mark, style = TODO_MARKS.get(str(todo.get("status")), ("☐", ""))
        text.append(f"{mark} {todo.get('content', '')}\n", style=style)
    return text


class ToolBlock(Vertical):
    DEFAULT_CSS = """
    ToolBlock { height: auto; margin: 1 0 0 0; }
    ToolBlock > .tool-header { color: $text; }
    ToolBlock > .tool-header:hover { background: $boost; }
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
        self._summary = ""
        self._result = ""
        self._frame = 0
        self._spinner: Timer | None = None
        self._header = Static("", classes="tool-header")
        self._body = Vertical(classes="tool-body")
        self._log: Log | None = None
        self._composed = False
        self.copy_text = ""
        """What Ctrl+O copies while this block has focus: the output, or the change as diff lines."""
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
        self._summary = call_summary(self.tool_name, arguments, self._cwd)
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

    def finish(self, content: Any, is_error: bool, details: dict[str, Any], denied: bool = False) -> None:
        if self._spinner is not None:
            self._spinner.stop()
            self._spinner = None
        patch = display_patch(details)
        self.copy_text = (
            "\n".join(line for hunk in patch for line in hunk.get("lines", [])) if patch else _text_of(content)
        )
        self.state = "denied" if denied else ("error" if is_error else "done")
        self._result = result_summary(self.tool_name, content, is_error, details, denied)
        if details.get("interrupted") and self._log is not None:
            self.expanded = True  # the output so far stays where it was, under "interrupted" once
            self._refresh_header()
            return
        widgets = self._result_widgets(content, is_error, details)
        if self._composed:
            self._body.remove_children()
            self._body.mount_all(widgets)
        else:  # (a resumed session's block, finished before it is drawn: composed whole, in one layout)
            self._body = Vertical(*widgets, classes="tool-body")
        self._log = None
        # What a person wants to see without asking: the change an edit made, a command's output, the task list,
        # an error in full. Reads and searches stay one line (Enter opens them).
        text = _text_of(content).strip()
        shows = self.tool_name in SHOWN_OPEN and bool(text or display_patch(details))
        more = is_error and text != self._result  # an error longer than its one line in the header
        self.expanded = not denied and (more or (shows and not is_error))
        self._refresh_header()

    def _result_widgets(self, content: Any, is_error: bool, details: dict[str, Any]) -> list[Any]:
        patch = display_patch(details)
        if patch and not is_error:
            return [DiffView(patch)]
        if self.tool_name == "TodoWrite" and not is_error:
            return [Static(todo_text(details.get("newTodos") or []))]
        lines = _text_of(content).splitlines()
        if self.tool_name == "Bash" and not is_error and len(lines) > BASH_SHOWN_LINES:
            # the end of a command's output is what matters (the test summary, the error)
            lines = [f"… {len(lines) - BASH_SHOWN_LINES} earlier lines", *lines[-BASH_SHOWN_LINES:]]
        elif len(lines) > MAX_RESULT_LINES:
            lines = [*lines[:MAX_RESULT_LINES], f"… {len(lines) - MAX_RESULT_LINES} more lines"]
        return [Static(Content("\n".join(lines)))]

    # Display

    def _spin(self) -> None:
        self._frame += 1
        self._refresh_header()

    def _refresh_header(self) -> None:
        icon = SPINNER[self._frame % len(SPINNER)] if self.state == "running" else _STATE_ICONS.get(self.state, "●")
        header = Text()
        header.append(f"{icon} ")
        header.append(self.tool_name, style="bold")
        if self._summary:
            header.append(f"  {self._summary}")
        if self._result:
            header.append(f"  — {self._result}", style="dim" if self.state == "done" else "")
        self._header.update(header)

    def watch_state(self, state: str) -> None:
        for name in ("running", "error", "denied", "asking"):
            self.set_class(state == name, f"-{name}")

    def watch_expanded(self, expanded: bool) -> None:
        self.set_class(expanded, "-expanded")

    def action_toggle_expanded(self) -> None:
        self.expanded = not self.expanded

    def on_click(self) -> None:
        self.expanded = not self.expanded
