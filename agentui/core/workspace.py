"""The project a session works in: its root and extra directories, path resolution, and per-session tool state."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentui.core.escapes import unescape_path

if TYPE_CHECKING:
    from agentui.core.background import BackgroundShells
    from agentui.core.background_agents import BackgroundAgents
    from agentui.core.change_queue import ChangeQueue
    from agentui.core.editor_files import EditorFiles
    from agentui.core.lsp.manager import LanguageServers
    from agentui.core.task_board import TaskBoard
    from agentui.core.task_notifications import TaskNotices


def relative_within(path: str | os.PathLike[str], directory: str | os.PathLike[str]) -> str | None:
    """The part of `path` below `directory` ("" for the directory itself), or None if it is not inside. Both must
    already be absolute and normalised the same way; a separator must follow the prefix, so /proj-evil is not in
    /proj. On strings, not Path.parents: this runs for every path rule on every tool call."""
    inner, outer = os.fspath(path), os.fspath(directory)
    if not inner.startswith(outer):
        return None
    if len(inner) == len(outer):
        return ""
    if outer.endswith("/"):
        return inner[len(outer) :]
    return inner[len(outer) + 1 :] if inner[len(outer)] == "/" else None


def is_within(path: str | os.PathLike[str], directory: str | os.PathLike[str]) -> bool:
    """True if `path` is `directory` or below it (see `relative_within`)."""
    return relative_within(path, directory) is not None


@dataclass
class ReadRecord:
    mtime_ns: int
    size: int
    seen: int | None = None
    """A hash of the text the model read from the editor's buffer, if it read it there."""


@dataclass
class Workspace:
    """Where tools act. Paths the model gives are resolved against `root`; `additional_dirs` are trusted as well."""

    root: Path
    additional_dirs: tuple[Path, ...] = ()
    shell_cwd: Path | None = None
    todos: list[dict[str, Any]] = field(default_factory=list)
    read_denied: Callable[[Path], bool] | None = None
    """Set by the permission engine: files deny rules forbid reading, which searches leave out."""
    reads_documents: bool = False
    """The model reads PDF documents (the Messages API): Read sends PDF pages as documents, else as their text."""
    editor: EditorFiles | None = None
    """The editor the front end's client is, if it offers its files: Read, Edit and Write go through its buffers."""
    changes: ChangeQueue | None = None
    """Plan mode's change queue, where the project has one: while it is active, Edit and Write queue their changes."""
    lsp: LanguageServers | None = None
    """The session's language servers, where diagnostics after edits are on (agentui.core.lsp)."""
    _reads: dict[Path, ReadRecord] = field(default_factory=dict, init=False, repr=False)
    _scratch: Path | None = field(default=None, init=False, repr=False)
    _shells: BackgroundShells | None = field(default=None, init=False, repr=False)
    _tasks: TaskBoard | None = field(default=None, init=False, repr=False)
    _notices: TaskNotices | None = field(default=None, init=False, repr=False)
    _agents: BackgroundAgents | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.root = Path(os.path.realpath(self.root))
        self.additional_dirs = tuple(Path(os.path.realpath(d)) for d in self.additional_dirs)
        if self.shell_cwd is None:
            self.shell_cwd = self.root

    # Paths

    def absolute(self, raw: str | os.PathLike[str]) -> Path:
        """The path as written, made absolute against the root and normalised (`..` folded), links untouched."""
        text = os.fspath(raw)
        if text.startswith("~"):
            text = os.path.expanduser(text)
        if not text.startswith("/"):
            text = os.path.join(self.root, text)
        return Path(unescape_path(os.path.normpath(text)))

    def real(self, raw: str | os.PathLike[str]) -> Path:
        """The path with every symlink resolved: where a read or write would really land."""
        return Path(os.path.realpath(self.absolute(raw)))

    @property
    def directories(self) -> tuple[Path, ...]:
        return (self.root, *self.additional_dirs)

    def contains(self, path: Path) -> bool:
        """True if the (resolved) path lies in the project or one of its additional directories."""
        return any(is_within(path, directory) for directory in self.directories)

    def display(self, path: Path) -> str:
        """Compact form for the model: relative to the root inside the project, absolute elsewhere."""
        return relative_within(path, self.root) or str(path)  # (strings: Grep shows thousands of paths)

    def hidden(self, path: Path) -> bool:
        """True for a file a deny rule forbids reading: Grep and Glob leave it out of their results."""
        return self.read_denied is not None and self.read_denied(path)

    # Read state, so Write and Edit never clobber what the model has not seen

    def record_read(self, path: Path, stat: os.stat_result | None = None) -> None:
        """`stat`: the file's as it was read (fstat of the open file), so a change made since is noticed."""
        if stat is None:
            try:
                stat = path.stat()
            except FileNotFoundError:  # (a file only a queued change creates: one that appears is "changed since")
                self._reads[path] = ReadRecord(-1, -1)
                return
        self._reads[path] = ReadRecord(stat.st_mtime_ns, stat.st_size)

    def saw_text(self, path: Path, text: str) -> None:
        """The model read `path` as the editor holds it: `text`."""
        if (record := self._reads.get(path)) is not None:
            record.seen = hash(text)

    def edited_since_seen(self, path: Path, text: str) -> bool:
        """Whether the editor's text of `path` is not what the model read there (the person typed since)."""
        record = self._reads.get(path)
        return record is not None and record.seen is not None and record.seen != hash(text)

    def unread_reason(self, path: Path) -> str | None:
        """Why `path` may not be overwritten now (never read, or changed since), or None if it may."""
        record = self._reads.get(path)
        if record is None:
            return f"{self.display(path)} has not been read yet; Read it first, then write"
        try:
            stat = path.stat()
        except FileNotFoundError:
            return None
        if (stat.st_mtime_ns, stat.st_size) != (record.mtime_ns, record.size):
            return (
                f"{self.display(path)} changed on disk since it was read (by the user or a tool); Read it again first"
            )
        return None

    # Scratch space for spilled command output

    @property
    def scratch(self) -> Path:
        if self._scratch is None:
            from agentui.core.process_dir import current

            self._scratch = current().temporary("ws-")  # (short: a Unix socket lives in it)
        return self._scratch

    # Per-session state of the background and task tools

    @property
    def shells(self) -> BackgroundShells:
        """The background shells started from this workspace (their output files live in the scratch space)."""
        if self._shells is None:
            from agentui.core.background import BackgroundShells

            self._shells = BackgroundShells(lambda: self.scratch / "tasks")
        return self._shells

    @property
    def notices(self) -> TaskNotices:
        """The background shells' ends not told to the model yet."""
        if self._notices is None:
            from agentui.core.task_notifications import TaskNotices

            self._notices = TaskNotices(self.shells, self.agents)
        return self._notices

    @property
    def agents(self) -> BackgroundAgents:
        """The sub-agents' slots (how many run at once) and the ones sent to the background."""
        if self._agents is None:
            from agentui.core.background_agents import BackgroundAgents

            self._agents = BackgroundAgents()
        return self._agents

    async def stop_task(self, task_id: str) -> bool:
        """Stop the background sub-agent or shell `task_id`; False if no such task is running."""
        agent = self._agents.get(task_id) if self._agents is not None else None
        if agent is not None and not agent.done.is_set():
            await self.agents.stop(agent)
            return True
        return await self.shells.stop_by_id(task_id)

    async def stop_background(self) -> None:
        """Stop the background sub-agents, shells and language servers still running (the conversation closes; a
        language server is started again by the next edit that wants it)."""
        if self._agents is not None:
            await self._agents.stop_all()
        await self.shells.stop_all()
        if self.lsp is not None:
            await self.lsp.aclose()

    def new_conversation(self) -> None:
        """A conversation starts (or a resumed one opens): its task list starts empty. (Background shells stay with
        the workspace; closing the conversation before stopped those that ran.)"""
        self.todos = []
        self._tasks = None
        if self._notices is not None:  # (what ended before is not the new conversation's to be told)
            self._notices.forget()

    @property
    def tasks(self) -> TaskBoard:
        """The task list of TaskCreate and its family (and of TodoWrite, which replaces it whole)."""
        if self._tasks is None:
            from agentui.core.task_board import TaskBoard

            self._tasks = TaskBoard()
        return self._tasks
