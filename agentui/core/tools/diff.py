"""Unified diffs as Claude Code's `structuredPatch` (hunks with their line ranges), for the UI and the session."""

from __future__ import annotations

import difflib
import re
from typing import Any

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def structured_patch(old: str, new: str, context: int = 3) -> list[dict[str, Any]]:
    """`[{"oldStart", "oldLines", "newStart", "newLines", "lines": [" same", "-gone", "+added"]}]`."""
    hunks: list[dict[str, Any]] = []
    diff = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=context)
    for line in diff:
        if line.startswith(("---", "+++")) and not hunks:
            continue
        match = _HUNK.match(line)
        if match:
            old_start, old_lines, new_start, new_lines = match.groups()
            hunks.append(
                {
                    "oldStart": int(old_start),
                    "oldLines": int(old_lines) if old_lines is not None else 1,
                    "newStart": int(new_start),
                    "newLines": int(new_lines) if new_lines is not None else 1,
                    "lines": [],
                }
            )
        elif hunks:
            hunks[-1]["lines"].append(line)
    return hunks
