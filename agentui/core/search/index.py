"""The session index as the front ends use it: bring it up to date, then query it; a missing or damaged file is
made again from the transcripts, with one sentence said about it."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentui.core.dirs import state_dir
from agentui.core.errors import AgentuiError
from agentui.core.search import store
from agentui.core.search.query import is_syntax_problem, plain
from agentui.core.search.update import Progress, update
from agentui.core.session.paths import project_dir, projects_root

MARK_START, MARK_END = "\x02", "\x03"
"""Around each matched word of a snippet; a front end replaces them with its own marking."""
SNIPPET_CHARACTERS, SNIPPET_BEFORE = 1000, 300
"""At most this much of a snippet, from this many characters before its first match."""


class SearchError(AgentuiError):
    """The index could not be used at all; one sentence says why."""


@dataclass(frozen=True)
class SearchHit:
    session_id: str
    project: str
    """The project's directory name under Claude Code's projects directory."""
    cwd: str | None
    """The directory the session ran in, as its lines say."""
    title: str
    sidechain: bool
    """The hit is in a sub-agent's transcript, not the conversation itself."""
    path: Path
    uuid: str
    """The line the text is in: where `--resume-session-at` goes on from."""
    timestamp: str
    kind: str
    """prompt, answer, tool or file."""
    marked: str
    """The snippet, each match between MARK_START and MARK_END."""

    def snippet(self, start: str = "[", end: str = "]") -> str:
        return " ".join(self.marked.replace(MARK_START, start).replace(MARK_END, end).split())

    @property
    def date(self) -> str:
        return self.timestamp[:16].replace("T", " ")


@dataclass
class SearchResult:
    hits: list[SearchHit]
    notices: list[str] = field(default_factory=list)
    """What the person should know: the index was rebuilt, another process held it, and so on."""


def index_path(env: Mapping[str, str] | None = None) -> Path:
    return state_dir(env) / "search" / "sessions.db"


class SessionIndex:
    """One open index over the transcripts under `root`."""

    def __init__(self, path: Path, root: Path) -> None:
        self.path, self.root = path, root
        self.notices: list[str] = []
        self.progress = Progress()
        """What the updates of this object read: bytes and files (a test proves the old bytes are not read)."""
        self._connection: sqlite3.Connection | None = None

    def _open(self) -> sqlite3.Connection:
        if self._connection is None:
            try:
                self._connection = store.connect(self.path)
            except store.Damaged as damage:
                self._rebuild(str(damage))
            except sqlite3.OperationalError as exc:
                raise SearchError(f"The search index at {self.path} cannot be opened ({exc}).") from None
            except OSError as exc:
                raise SearchError(f"The search index at {self.path} cannot be made ({exc.strerror or exc}).") from None
        assert self._connection is not None
        return self._connection

    def _rebuild(self, why: str) -> None:
        self.close()
        self.notices.append(f"The search index ({self.path}) {why}; it was made again from the session files.")
        store.remove(self.path)
        self._connection = store.connect(self.path)

    def update(self) -> None:
        """Read what was appended since the last look (a new index reads everything once)."""
        for attempt in (1, 2):
            try:
                update(self._open(), self.root, self.progress)
                return
            except sqlite3.DatabaseError as exc:
                if not store.is_damage(exc):
                    self.notices.append(_not_updated(exc))
                    return
                if attempt == 2:
                    raise SearchError(f"The search index at {self.path} could not be made ({exc}).") from None
                self._rebuild(f"was damaged ({exc})")

    def search(
        self, text: str, *, project: str | None = None, limit: int = 20, prefix: bool = False
    ) -> list[SearchHit]:
        """The best `limit` hits for `text`, one a message, best first (bm25; the newer first among equals)."""
        text = text.encode("utf-8", "replace").decode("utf-8")  # (bytes of another encoding in argv: "?")
        for attempt in (1, 2):
            try:
                return self._search(text, project, limit, prefix)
            except sqlite3.DatabaseError as exc:
                if not store.is_damage(exc) or attempt == 2:
                    raise SearchError(f"The search index at {self.path} cannot be read ({exc}).") from None
                self._rebuild(f"was damaged ({exc})")
                self.update()
        return []

    def _search(self, text: str, project: str | None, limit: int, prefix: bool) -> list[SearchHit]:
        connection = self._open()
        first = plain(text, prefix=True) if prefix else text.strip()
        if not first:
            return []
        try:
            rows = _select(connection, first, self.root, project, limit)
        except sqlite3.OperationalError as exc:
            if not is_syntax_problem(str(exc)):  # (`a:b` names no column: words, too)
                raise
            words = plain(text)
            rows = _select(connection, words, self.root, project, limit) if words else []
        hits: dict[tuple[str, str], SearchHit] = {}
        for row in rows:
            hit = SearchHit(row[0], row[1], row[2], row[3] or "", bool(row[4]), Path(row[5]), *row[6:10])
            hits.setdefault((str(hit.path), hit.uuid or str(len(hits))), hit)
        return list(hits.values())[:limit]

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


_UPDATING = threading.Lock()
UPDATE_WAIT_SECONDS = 2.0
"""How long a search waits for this process's update under way before it searches the index as it stands."""


def _not_updated(error: sqlite3.DatabaseError) -> str:
    """Why the index is behind: another process's write past the ceiling, or something else (a full disk)."""
    if any(words in str(error).lower() for words in ("locked", "busy")):
        return "Another agentui process is updating the search index; the newest lines may be missing."
    return f"The search index could not be brought up to date ({error}); the newest lines may be missing."


def _select(
    connection: sqlite3.Connection, match: str, root: Path, project: str | None, limit: int
) -> list[tuple[Any, ...]]:
    """The hits under `root` only: one index serves every projects directory (another CLAUDE_CONFIG_DIR's too), and
    a session of another one could not be resumed from here."""
    under = f"{root}{os.sep}"
    where = " AND substr(f.path, 1, ?) = ?" + (" AND f.project = ?" if project is not None else "")
    # (a snippet is 16 tokens, but a token may be megabytes of text without a space: the part around the first
    # match is all that is shown, and all that leaves SQLite)
    return connection.execute(
        "SELECT session, project, cwd, title, sidechain, path, uuid, ts, kind,"
        f" substr(shown, max(1, instr(shown, '{MARK_START}') - {SNIPPET_BEFORE}), {SNIPPET_CHARACTERS}) FROM ("
        "SELECT f.session, f.project, f.cwd, f.title, f.sidechain, f.path, r.uuid, r.ts, r.kind, rank,"
        f" snippet(texts, 0, '{MARK_START}', '{MARK_END}', '…', 16) AS shown"
        " FROM texts JOIN rows r ON r.id = texts.rowid JOIN files f ON f.id = r.file"
        f" WHERE texts MATCH ?{where} ORDER BY rank, r.ts DESC LIMIT ?) ORDER BY rank, ts DESC",
        (match, len(under), under, *((project,) if project is not None else ()), limit * 3),
    ).fetchall()


def search_sessions(
    text: str,
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    limit: int = 20,
    prefix: bool = False,
) -> SearchResult:
    """Update the index, then search it: the sessions of the project at `cwd`, or of every project when None."""
    index = SessionIndex(index_path(env), projects_root(env))
    try:
        # One update at a time in this process: the picker searches on a thread per keystroke. A search waits a
        # moment for one under way (usually milliseconds: the last keystroke's search then sees what it added), not
        # for a long first indexing, during which it searches what is there.
        if _UPDATING.acquire(timeout=UPDATE_WAIT_SECONDS):
            try:
                index.update()
            finally:
                _UPDATING.release()
        else:
            index.notices.append("The search index is still being brought up to date; the newest lines may be missing.")
        project = project_dir(cwd, env).name if cwd is not None else None
        hits = index.search(text, project=project, limit=limit, prefix=prefix)
        return SearchResult(hits, index.notices)
    except OSError as exc:
        raise SearchError(f"The search index at {index.path} cannot be used ({exc.strerror or exc}).") from None
    except sqlite3.Error as exc:
        raise SearchError(f"The search index at {index.path} cannot be used ({exc}).") from None
    finally:
        index.close()
