"""`agentui search QUERY`: full-text search over past sessions (this project's, another's with --project, every
project's with --all), each hit with the command that resumes its session at that message."""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentui.api import SearchHit

MAX_LIMIT = 100_000
FORK_NOTE = "Add --fork-session to a command to go on from there in a new session, leaving the old one as it was."


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"agentui search: {message} (agentui search --help)", file=sys.stderr)
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="agentui search",
        description="Search the prompts, answers, tool inputs and file names of "
        "past sessions, agentui's and Claude Code's.",
    )
    parser.add_argument("query", nargs="+", help='words to find (FTS5 syntax works too: "a phrase", OR, NEAR)')
    parser.add_argument("--limit", type=int, default=20, metavar="N", help="at most N hits (20)")
    parser.add_argument("--json", action="store_true", help="the hits as a JSON array")
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument("--project", metavar="DIR", help="the sessions of the project at DIR (default: here)")
    scope.add_argument("--all", action="store_true", help="the sessions of every project")
    return parser


def resume_command(hit: SearchHit, here: Path) -> str:
    """The command that opens the hit's session at its message, run from the session's own directory."""
    words = ["agentui", "--resume", hit.session_id]
    if hit.uuid and not hit.sidechain:  # (a sub-agent's lines are not in the session's own chain)
        words += ["--resume-session-at", hit.uuid]
    command = shlex.join(words)
    if hit.cwd and os.path.realpath(hit.cwd) != os.path.realpath(here):
        return f"cd {shlex.quote(hit.cwd)} && {command}"
    return command


def main(argv: list[str]) -> int:
    from agentui.api import SearchError, search_sessions

    args = _parser().parse_args(argv)
    if args.limit < 1:
        print("agentui search: --limit must be 1 or more.", file=sys.stderr)
        return 2
    if args.limit > MAX_LIMIT:  # (past SQLite's integers, a number is an OverflowError)
        print(f"agentui search: --limit must be {MAX_LIMIT} or less.", file=sys.stderr)
        return 2
    try:
        here = Path(os.getcwd())
    except FileNotFoundError:
        print("agentui search: the current directory no longer exists; cd to one that does.", file=sys.stderr)
        return 2
    scope: Path | None = None if args.all else Path(args.project).expanduser() if args.project else here
    if scope is not None and not scope.is_dir():
        print(f"agentui search: {scope} is not a directory.", file=sys.stderr)
        return 2
    try:
        result = search_sessions(" ".join(args.query), cwd=scope, limit=args.limit)
    except SearchError as exc:
        print(f"agentui search: {exc}", file=sys.stderr)
        return 1
    for notice in result.notices:
        print(f"agentui search: {notice}", file=sys.stderr)
    if args.json:
        text = json.dumps([_as_json(hit, here) for hit in result.hits], ensure_ascii=False, indent=1)
        print(_C1.sub(lambda found: f"\\u{ord(found.group()):04x}", text))  # (only inside strings: equal JSON)
    elif result.hits:
        _print_hits(result.hits, here, bold=sys.stdout.isatty())
    else:
        where = "any project's" if args.all else "this project's" if scope == here else f"{scope}'s"
        print(f"No match in {where} sessions (--all searches every project).", file=sys.stderr)
    return 0 if result.hits else 1


def _as_json(hit: SearchHit, here: Path) -> dict[str, object]:
    return {
        "session_id": hit.session_id,
        "project": hit.project,
        "cwd": hit.cwd,
        "title": hit.title,
        "timestamp": hit.timestamp,
        "kind": hit.kind,
        "sidechain": hit.sidechain,
        "uuid": hit.uuid,
        "path": str(hit.path),
        "snippet": hit.snippet(),
        "resume": resume_command(hit, here),
    }


def _print_hits(hits: list[SearchHit], here: Path, *, bold: bool) -> None:
    start, end = ("\x1b[1m", "\x1b[22m") if bold else ("[", "]")
    for hit in hits:
        where = " (in a sub-agent's transcript)" if hit.sidechain else ""
        print(_shown(f"{hit.session_id}  {hit.project}  {hit.date}  {hit.kind}{where}"))
        if hit.title:
            print(_shown(f"  {hit.title[:100]}"))
        snippet = _shown(f"  {hit.snippet(MARKS[0], MARKS[1])}", controls=_UNMARKED)
        print(snippet.replace(MARKS[0], start).replace(MARKS[1], end))
        print(_shown(f"  {resume_command(hit, here)}"))
        print()
    print(FORK_NOTE)


MARKS = ("\x02", "\x03")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_C1 = re.compile(r"[\x7f-\x9f]")
"""What json.dumps leaves as it is but a terminal may take for the start of an escape sequence."""
_UNMARKED = re.compile(r"[\x00-\x01\x04-\x1f\x7f-\x9f]")
"""The control characters but the snippet's own marks."""


def _shown(text: str, controls: re.Pattern[str] = _CONTROLS) -> str:
    """`text` with its control characters as visible `\\xNN`: a transcript's text (a model's answer, a page it read)
    may hold escape sequences that would retitle, clear or write to the clipboard of the person's terminal."""
    return controls.sub(lambda found: f"\\x{ord(found.group()):02x}", text)
