"""Which session a run asks for (`SessionRequest`), where its file is (an id, a path, the newest of a project), and a
preview of its end. Light to import (no engine, no session writer): the app reads a resumed session's latest turns
with it before anything else has loaded."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agentui.core.errors import AgentuiError
from agentui.core.session.listing import session_files
from agentui.core.session.paths import is_session_id, project_dir, projects_root

if TYPE_CHECKING:
    from agentui.core.session.reader import LoadedSession


class SessionError(AgentuiError):
    """The session asked for cannot be used; the message says why in one sentence."""


@dataclass(frozen=True)
class SessionRequest:
    """What the command line asked for."""

    resume: str | None = None
    """A session id or a .jsonl path; "" asks for a list (print mode) or a picker."""
    continue_last: bool = False
    fork: bool = False
    session_id: str | None = None
    resume_at: str | None = None
    """--resume-session-at: the message (its line's uuid) the resumed conversation goes on from."""
    persist: bool = True
    """False (--no-session-persistence): the session is written to a scratch directory removed at the end."""


def find_session(reference: str, cwd: Path, env: Mapping[str, str] | None = None) -> Path:
    """A session id (this project first, then every project) or a path to a .jsonl file."""
    candidate = Path(os.path.expanduser(reference))
    if reference.endswith(".jsonl") or os.sep in reference:
        if candidate.is_file():
            return candidate
        raise SessionError(f"There is no session file at {candidate}.")
    if not is_session_id(reference):
        raise SessionError(f"{reference!r} is neither a session id (a UUID) nor a path to a .jsonl file.")
    here = project_dir(cwd, env) / f"{reference}.jsonl"
    if here.is_file():
        return here
    root = projects_root(env)
    for found in sorted(root.glob(f"*/{reference}.jsonl")) if root.is_dir() else []:
        return found
    raise SessionError(f"No session {reference} was found in {root}.")


def newest_session(cwd: Path, env: Mapping[str, str] | None = None) -> Path | None:
    files = session_files(project_dir(cwd, env))
    return max(files, key=lambda path: path.stat().st_mtime) if files else None


def preview_session(
    request: SessionRequest, cwd: Path, env: Mapping[str, str] | None = None, *, at_least: int = 300
) -> LoadedSession | None:
    """The newest part of the session `request` resumes, read from the end of its file in a few milliseconds
    whatever its length, for a screen to draw while `open_session` loads the whole; None when there is nothing to
    draw (a new session, a picker to show, a file that cannot be read: `open_session` says why)."""
    try:
        if request.resume:
            source: Path | None = find_session(request.resume, cwd, env)
        elif request.continue_last:
            source = newest_session(cwd, env)
        else:
            return None
        if source is None:
            return None
        from agentui.core.session.reader import load_session_tail

        return load_session_tail(source, at_least)
    except (SessionError, OSError):
        return None
