"""A limit wait in the session file: a `system` line of its own subtype (Claude Code shows and sends no system line
it does not know), and whether the session ended while one was pending (a crash or a kill during the wait)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agentui.core.events import LimitWait

SUBTYPE = "limit_wait"


def limit_wait_fields(event: LimitWait) -> dict[str, Any]:
    """The line's fields besides the chain's own: what was said, and when the limit resets."""
    when = event.until.astimezone(UTC).isoformat().replace("+00:00", "Z")
    return {
        "subtype": SUBTYPE,
        "content": f"{event.reason.rstrip('.')}; waiting until {when}.",
        "level": "warning",
        "isMeta": False,
        "limitResetsAt": when,
        "limitProvider": event.provider,
    }


def pending_limit_wait(path: Path) -> datetime | None:
    """When the limit resets, if the session's last model request was waiting for it when the session ended: a limit
    wait line with no answer and no prompt after it. None otherwise, and for a file that cannot be read."""
    pending: datetime | None = None
    try:
        with path.open(encoding="utf-8", errors="replace") as lines:
            for line in lines:
                pending = _after(line, pending)
    except OSError:
        return None
    return pending


def _after(line: str, pending: datetime | None) -> datetime | None:
    if '"type"' not in line:
        return pending
    try:
        entry = json.loads(line)
    except (ValueError, RecursionError):
        return pending  # (a torn last line: what came before still stands)
    if not isinstance(entry, dict):
        return pending
    kind = entry.get("type")
    if kind == "system" and entry.get("subtype") == SUBTYPE:
        return _time(entry.get("limitResetsAt"))
    if kind in ("assistant", "user"):  # (answered, or the person went on: nothing is pending)
        return None
    return pending


def _time(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)
