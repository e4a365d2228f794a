"""Opening the session a run writes to: a new one, `--session-id`, `--resume <id or path>`, `--continue`, or a fork
of any of them (`--fork-session`), and its writer. (Which session a request names is `lookup`'s.)"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from agentui.core.messages import Message
from agentui.core.process_dir import current
from agentui.core.session.file_history import FileHistory, file_history_dir
from agentui.core.session.lookup import (
    SessionError,
    SessionRequest,
    find_session,
    newest_session,
)
from agentui.core.session.paths import (
    git_branch,
    is_session_id,
    new_session_id,
    project_dir,
)
from agentui.core.session.reader import LoadedSession, load_session
from agentui.core.session.writer import SessionLockedError, SessionWriter, timestamp


@dataclass
class OpenSession:
    session_id: str
    path: Path
    writer: SessionWriter
    messages: list[Message] = field(default_factory=list)
    resumed_from: LoadedSession | None = None

    def close(self, *, keep: bool = True) -> None:
        """Close the session file (its last lines synced); without `keep` (--no-session-persistence), remove the
        scratch directory it was written in."""
        self.writer.close()
        if not keep:
            import shutil

            shutil.rmtree(self.path.parent, ignore_errors=True)


def open_session(
    request: SessionRequest,
    cwd: Path,
    *,
    env: Mapping[str, str] | None = None,
    on_error: Callable[[str], object] = lambda message: None,
) -> OpenSession:
    """Resolve the request to a session file, load its history if it has one, and open the writer."""
    source: Path | None = None
    if request.resume:
        source = find_session(request.resume, cwd, env)
    elif request.continue_last:
        source = newest_session(cwd, env)  # nothing to continue is not an error: a new session starts
    branch = git_branch(cwd)
    directory = project_dir(cwd, env) if request.persist else current().temporary("agentui-session-")

    def history_dir(session_id: str) -> Path:
        return file_history_dir(session_id, env) if request.persist else directory / "file-history" / session_id

    if source is None:
        session_id = _chosen_id(request.session_id, directory)
        writer = _writer(directory / f"{session_id}.jsonl", session_id, cwd, None, branch, on_error)
        writer.history = FileHistory(history_dir(session_id), cwd, timestamp)
        return OpenSession(session_id, writer.path, writer)

    try:
        if request.resume_at:
            from agentui.core.session.reader import branch_of, read_lines

            loaded = branch_of(source, read_lines(source), request.resume_at)
            if loaded.leaf_uuid != request.resume_at:
                raise SessionError(f"The session {source.stem} has no message {request.resume_at}.")
        else:
            loaded = load_session(source)
    except OSError as exc:
        raise SessionError(f"The session file {source} cannot be read ({exc.strerror or exc}).") from None
    for warning in loaded.warnings():
        on_error(warning)
    if request.fork or request.session_id or not request.persist:
        session_id = _chosen_id(request.session_id, directory) if request.persist or request.fork else loaded.session_id
        path = directory / f"{session_id}.jsonl"
        _copy_chain(loaded, path, session_id)
        try:  # (so that the fork can rewind what happened before it, as the session it came from can)
            _copy_backups(file_history_dir(loaded.session_id, env), history_dir(session_id))
        except OSError as exc:
            on_error(
                f"The file backups were not copied to the new session ({exc.strerror or exc}); "
                "changes from before the fork cannot be rewound in it."
            )
    else:
        session_id, path = loaded.session_id, source
    writer = _writer(path, session_id, cwd, loaded.leaf_uuid, branch, on_error, titled=loaded.title is not None)
    writer.history = FileHistory(history_dir(session_id), cwd, timestamp)
    writer.history.resume(loaded.file_history)
    writer.recall_details(loaded.tool_details)
    return OpenSession(session_id, path, writer, loaded.messages, loaded)


def _copy_backups(source: Path, target: Path) -> None:
    """A fork's file history starts with the backups of the session it came from (linked where possible: a backup
    is never changed once written)."""
    if not source.is_dir():
        return

    def link(old: str, new: str) -> None:
        try:
            os.link(old, new)
        except OSError:
            shutil.copy2(old, new)

    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    shutil.copytree(source, target, copy_function=link, dirs_exist_ok=True)


def _chosen_id(requested: str | None, directory: Path) -> str:
    if requested is None:
        return new_session_id()
    requested = requested.lower()
    if not is_session_id(requested):
        raise SessionError(f"--session-id must be a UUID, such as {new_session_id()}.")
    if (directory / f"{requested}.jsonl").exists():
        raise SessionError(f"Session {requested} already exists; use --resume {requested} to continue it.")
    return requested


def _writer(
    path: Path,
    session_id: str,
    cwd: Path,
    leaf: str | None,
    branch: str,
    on_error: Callable[[str], object],
    *,
    titled: bool = False,
) -> SessionWriter:
    try:
        return SessionWriter(
            path, session_id, cwd, parent_uuid=leaf, git_branch=branch, titled=titled, on_error=on_error
        )
    except SessionLockedError as exc:
        raise SessionError(str(exc)) from None
    except OSError as exc:
        raise SessionError(f"The session file {path} cannot be written ({exc.strerror or exc}).") from None


def _copy_chain(loaded: LoadedSession, path: Path, session_id: str) -> None:
    """A fork starts as a copy of the conversation it continues, under its own id (the lines keep their uuids,
    so the copy's chain is intact and the first new line hangs off the same leaf)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    lines = []
    for entry in [*loaded.chain, *loaded.snapshots]:  # (the snapshots name prompts by uuid: order among them counts)
        entry = {**entry, "sessionId": session_id} if "sessionId" in entry else entry
        if entry.get("isSidechain"):  # (forked from a sub-agent's transcript: its lines are the new session's own)
            entry = {**{key: value for key, value in entry.items() if key != "agentId"}, "isSidechain": False}
        lines.append(json.dumps(entry, ensure_ascii=False, separators=(",", ":")))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write("".join(line + "\n" for line in lines))
