"""What the compaction block in the transcript says: what was summarised, which tool results were taken out, what
was carried verbatim; the summary itself follows."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentui.api.events import CompactionReport

FATES = {"dropped": "dropped (summarised)", "shortened": "shortened to a placeholder", "clipped": "clipped to fit"}


def report_title(report: CompactionReport | None) -> str:
    """The block's title after its token counts: how much was summarised, and taken out."""
    if report is None:
        return ""
    said = f"{_count(report.messages, 'message')} summarised"
    if report.results:
        said += f", {_count(len(report.results), 'tool result')} taken out"
    return said


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def report_text(report: CompactionReport | None) -> str:
    """The block's body when opened, above the summary ("" for a compaction read back from a session file)."""
    if report is None:
        return ""
    lines = [f"Summarised: {_count(report.messages, 'message')}, {_count(report.turns, 'prompt')} of yours among them."]
    if report.results:
        lines.append("Tool results taken out of the context:")
        lines += [f"  {' '.join([r.tool, r.target]).strip()} — {FATES[r.fate]}" for r in report.results]
    if report.instructions:
        lines.append(f"Your instructions carried verbatim: {len(report.instructions)}")
        lines += [f"  • {instruction}" for instruction in report.instructions]
    if report.pinned:
        lines.append(f"Pinned messages carried verbatim: {report.pinned}")
    return "\n".join(lines)
