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
    said = f"{report.messages:,} messages ({report.turns:,} prompts) summarised"
    if report.results:
        said += f", {len(report.results):,} tool results taken out"
    return said


def report_text(report: CompactionReport | None) -> str:
    """The block's body when opened, above the summary ("" for a compaction read back from a session file)."""
    if report is None:
        return ""
    lines = [f"Summarised: {report.messages:,} messages, {report.turns:,} of them your prompts."]
    if report.results:
        lines.append("Tool results taken out of the context:")
        lines += [f"  {' '.join([r.tool, r.target]).strip()} — {FATES[r.fate]}" for r in report.results]
    if report.instructions:
        lines.append(f"Your instructions carried verbatim: {len(report.instructions)}")
        lines += [f"  • {instruction}" for instruction in report.instructions]
    if report.pinned:
        lines.append(f"Pinned messages carried verbatim: {report.pinned}")
    return "\n".join(lines)
