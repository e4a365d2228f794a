"""The status line's words while a rate or usage limit is waited out: when the run resumes and how long until then."""

from __future__ import annotations

from datetime import UTC, datetime


def limit_line(until: datetime, now: datetime | None = None) -> str:
    """ "Usage limit — resumes at 15:00 (in 12:34) · Esc cancels", the time in the local zone."""
    now = datetime.now(UTC) if now is None else now
    left = max(0, int((until - now).total_seconds() + 0.999))
    hours, rest = divmod(left, 3600)
    minutes, seconds = divmod(rest, 60)
    clock = f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"
    return f"Usage limit — resumes at {until.astimezone().strftime('%H:%M')} (in {clock}) · Esc cancels"
