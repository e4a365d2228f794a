"""The index's SQLite file: its schema, opening it (WAL, a bounded wait for other agentui processes), and starting
afresh when it is missing, not an SQLite file, of another schema version, or damaged."""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import tempfile
from pathlib import Path

from agentui.core.errors import AgentuiError

SCHEMA_VERSION = "2"
"""2: `files.seen`, the size at the last look, so an unfinished last line is read again only once it grows."""
BUSY_CEILING_MS = 10_000
"""How long a statement waits for another agentui process's write before it gives up (never forever)."""

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files(
    id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, dev INTEGER NOT NULL, ino INTEGER NOT NULL,
    offset INTEGER NOT NULL, seen INTEGER NOT NULL DEFAULT 0, session TEXT NOT NULL, project TEXT NOT NULL,
    cwd TEXT, title TEXT, sidechain INTEGER NOT NULL);
CREATE TABLE rows(id INTEGER PRIMARY KEY, file INTEGER NOT NULL, uuid TEXT NOT NULL, ts TEXT NOT NULL,
    kind TEXT NOT NULL);
CREATE INDEX rows_file ON rows(file);
CREATE VIRTUAL TABLE texts USING fts5(text, tokenize = 'unicode61 remove_diacritics 2');
"""


class Damaged(AgentuiError):
    """The file is not an index this version can use; the message says how, for the one sentence shown."""


def is_damage(error: sqlite3.DatabaseError) -> bool:
    """A damaged or foreign file, as opposed to another process holding the lock past the ceiling."""
    text = str(error).lower()
    return not isinstance(error, sqlite3.OperationalError) or any(
        words in text for words in ("malformed", "not a database", "no such table", "no such column", "corrupt")
    )


def connect(path: Path) -> sqlite3.Connection:
    """The index at `path`, made if there is none; Damaged if what is there cannot serve."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    _refuse_links(path)
    if not path.exists() or path.stat().st_size == 0:
        _make(path)
    connection = sqlite3.connect(path, timeout=BUSY_CEILING_MS / 1000, isolation_level=None, check_same_thread=False)
    try:
        connection.execute(f"PRAGMA busy_timeout = {BUSY_CEILING_MS}")
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = NORMAL")
        _check(connection)
    except sqlite3.DatabaseError as exc:
        connection.close()
        if not is_damage(exc):
            raise
        raise Damaged(f"could not be read ({exc})") from None
    except Damaged:
        connection.close()
        raise
    return connection


def _refuse_links(path: Path) -> None:
    """SQLite follows a link at the file or its -wal, -shm and -journal names and writes through it: a link planted
    there goes (as damage does), and a link at the directory is refused."""
    if path.parent.is_symlink():
        raise OSError(errno.ELOOP, f"{path.parent} is a link; agentui does not write the index through one")
    if any((path.parent / name).is_symlink() for name in _names(path)):
        raise Damaged("was a link, not a file")


def _names(path: Path) -> tuple[str, ...]:
    return (path.name, path.name + "-wal", path.name + "-shm", path.name + "-journal")


def _make(path: Path) -> None:
    """A new index, made whole under a name of its own and then linked into place: another process opening it at
    the same moment never sees it half made (no schema yet, as if damaged; or locked while it turns to WAL)."""
    # (the text of every session is in it: the person's alone, as the sessions are; mkstemp makes it 0600 and
    # SQLite gives its -wal and -shm files the same mode)
    handle, name = tempfile.mkstemp(prefix=f"{path.name}.", suffix=".new", dir=path.parent)
    os.close(handle)
    made = Path(name)
    try:
        connection = sqlite3.connect(made, isolation_level=None)
        try:
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("BEGIN IMMEDIATE")
            for statement in filter(str.strip, _SCHEMA.split(";")):
                connection.execute(statement)
            connection.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
            connection.execute("COMMIT")
        finally:
            connection.close()  # (the last connection: its WAL is written into the file and removed)
        if path.exists() and path.stat().st_size == 0:  # (an empty file: nothing to lose)
            os.replace(made, path)
        else:
            with contextlib.suppress(FileExistsError):  # (another process linked its own first: it is used)
                os.link(made, path)
    finally:
        remove(made)


def _check(connection: sqlite3.Connection) -> None:
    row = connection.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    if row is None or row[0] != SCHEMA_VERSION:
        raise Damaged(f"of another schema version ({row[0] if row else 'none'}, this agentui uses {SCHEMA_VERSION})")


def remove(path: Path) -> None:
    """The index and its WAL and shared-memory files, so a new one starts empty."""
    for name in _names(path):
        (path.parent / name).unlink(missing_ok=True)
