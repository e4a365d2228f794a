"""Bringing the index up to date: every transcript under Claude Code's projects directory is looked at with one stat;
only the bytes appended since the last look are read, up to the last complete line (a line still being written
waits for the next look). A file that shrank or was replaced is read again alone; a deleted one's rows go."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from agentui.core.search.extract import LineFacts, Row, rows_of, wanted
from agentui.core.session.paths import is_session_id

CHUNK = 8 << 20
COMMIT_EVERY = 64 << 20
"""Bytes read between commits: another process's query sees the progress of a long first indexing."""


@dataclass(frozen=True)
class Transcript:
    path: Path
    project: str
    """The project's directory name under projects/ (Claude Code's sanitized path)."""
    session: str
    sidechain: bool
    dev: int
    ino: int
    size: int


@dataclass
class Progress:
    bytes_read: int = 0
    files_read: int = 0
    rows: int = 0


def transcripts(root: Path) -> Iterator[Transcript]:
    """Every transcript: `<project>/<id>.jsonl`, a sub-agent's `<project>/<id>/subagents/agent-*.jsonl` and the
    older `<project>/agent-*.jsonl` (both sidechains)."""
    for project in _entries(root):
        if not project.is_dir(follow_symlinks=False):
            continue
        for entry in _entries(Path(project.path)):
            if entry.name.endswith(".jsonl") and entry.is_file(follow_symlinks=False):
                stem = entry.name[:-6]
                if is_session_id(stem) or stem.startswith("agent-"):
                    own = is_session_id(stem)
                    yield from _transcript(entry, project.name, stem if own else "", not own)
            elif is_session_id(entry.name) and entry.is_dir(follow_symlinks=False):
                if (subagents := Path(entry.path) / "subagents").is_symlink():
                    continue  # (as every link here: what it leads to is not a transcript of this directory)
                for agent in _entries(subagents):
                    if agent.name.endswith(".jsonl") and agent.is_file(follow_symlinks=False):
                        yield from _transcript(agent, project.name, entry.name, True)


def _entries(directory: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as found:
            return sorted(found, key=lambda entry: entry.name)
    except OSError:
        return []


def _transcript(entry: os.DirEntry[str], project: str, session: str, sidechain: bool) -> Iterator[Transcript]:
    try:
        entry.path.encode("utf-8")
    except UnicodeEncodeError:
        return  # (a name that is not UTF-8, which SQLite cannot store: no transcript Claude Code or agentui wrote)
    try:
        stat = entry.stat(follow_symlinks=False)
    except OSError:
        return  # (removed since the directory was listed: its rows go as a deleted file's do)
    yield Transcript(Path(entry.path), project, session, sidechain, stat.st_dev, stat.st_ino, stat.st_size)


def update(connection: sqlite3.Connection, root: Path, progress: Progress) -> None:
    """One look at every transcript under `root`, committing as it goes; each file's record is read inside the
    transaction that extends it, so two processes updating at once never index the same bytes twice."""
    seen: set[str] = set()
    connection.execute("BEGIN IMMEDIATE")
    try:
        pending = 0
        for found in transcripts(root):
            seen.add(str(found.path))
            pending += _one(connection, found, progress)
            if pending >= COMMIT_EVERY:
                connection.execute("COMMIT")
                connection.execute("BEGIN IMMEDIATE")
                pending = 0
        # (only what lies under `root` and was not seen: another projects directory's rows stay, and a root that
        # cannot be listed right now drops nothing)
        under = f"{root}{os.sep}"
        if not root.exists() or os.access(root, os.R_OK | os.X_OK):
            for file_id, path in connection.execute("SELECT id, path FROM files").fetchall():
                if path.startswith(under) and path not in seen:
                    _drop(connection, file_id)
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise


def _one(connection: sqlite3.Connection, found: Transcript, progress: Progress) -> int:
    """The bytes read of one transcript (0 when it has not changed: a stat was all it cost)."""
    record = connection.execute(
        "SELECT id, dev, ino, offset, seen, cwd, title FROM files WHERE path = ?", (str(found.path),)
    ).fetchone()
    if record is not None:
        file_id, dev, ino, offset, seen, cwd, title = record
        if (dev, ino) == (found.dev, found.ino) and found.size >= offset:
            if found.size in (offset, seen):  # (at `seen`, past `offset`: an unfinished line that has not grown)
                return 0
            return _read(connection, file_id, found, offset, LineFacts(cwd, title, title), progress)
        _drop(connection, file_id)  # replaced, or cut shorter: read it again from the start
    file_id = connection.execute(
        "INSERT INTO files(path, dev, ino, offset, session, project, sidechain) VALUES (?, ?, ?, 0, ?, ?, ?)",
        (str(found.path), found.dev, found.ino, found.session, found.project, int(found.sidechain)),
    ).lastrowid
    assert file_id is not None
    return _read(connection, file_id, found, 0, LineFacts(), progress)


def _read(
    connection: sqlite3.Connection, file_id: int, found: Transcript, offset: int, facts: LineFacts, progress: Progress
) -> int:
    start, seen = offset, found.size
    try:
        # (not followed if a link, never waited on if a FIFO: the file may have been replaced since its stat)
        fd = os.open(found.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as handle:
            handle.seek(offset)
            carry = b""
            while chunk := handle.read(CHUNK):
                progress.bytes_read += len(chunk)
                data = carry + chunk
                end = data.rfind(b"\n") + 1
                carry = data[end:]
                _store(connection, file_id, _rows(data[:end], facts), progress)
                offset += end
    except OSError:  # (gone or unreadable since the stat: what was read counts, the rest waits for the next look)
        seen = 0
    progress.files_read += 1
    connection.execute(
        "UPDATE files SET offset = ?, seen = ?, cwd = ?, title = coalesce(?, title),"
        " session = coalesce(nullif(session, ''), ?, '') WHERE id = ?",
        (offset, seen, facts.cwd, facts.title or facts.first_prompt, facts.session, file_id),
    )
    return offset - start


def _rows(data: bytes, facts: LineFacts) -> list[Row]:
    rows: list[Row] = []
    for raw in data.split(b"\n"):
        if raw and wanted(raw):
            rows.extend(rows_of(raw.strip(b"\x00 \r"), facts))
    return rows


def _store(connection: sqlite3.Connection, file_id: int, rows: list[Row], progress: Progress) -> None:
    if not rows:
        return
    first = connection.execute("SELECT coalesce(max(id), 0) + 1 FROM rows").fetchone()[0]
    connection.executemany(
        "INSERT INTO rows(id, file, uuid, ts, kind) VALUES (?, ?, ?, ?, ?)",
        [(first + n, file_id, row.uuid, row.timestamp, row.kind) for n, row in enumerate(rows)],
    )
    connection.executemany(
        "INSERT INTO texts(rowid, text) VALUES (?, ?)", [(first + n, row.text) for n, row in enumerate(rows)]
    )
    progress.rows += len(rows)


def _drop(connection: sqlite3.Connection, file_id: int) -> None:
    connection.execute("DELETE FROM texts WHERE rowid IN (SELECT id FROM rows WHERE file = ?)", (file_id,))
    connection.execute("DELETE FROM rows WHERE file = ?", (file_id,))
    connection.execute("DELETE FROM files WHERE id = ?", (file_id,))
