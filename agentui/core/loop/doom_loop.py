"""Doom-loop detection: the same failing call (same tool, same input, same error) repeated in a run, counted across
an agent and its sub-agents. The third time the model is nudged with the evidence; the fourth stops the run."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from agentui.core.errors import AgentuiError

NUDGE_AT = 3
STOP_AT = 4
_DURATION = re.compile(r"\b\d+(?:\.\d+)?\s*(?:ms|s|sec|seconds)\b")
"""A time in an error ("1 failed in 0.53s"): it differs from run to run of the same failing command."""


class LoopStopped(AgentuiError):
    """The run was stopped because the same call kept failing; the message is the sentence the person sees."""

    def said(self) -> tuple[str, str]:
        """What ended the run (one sentence) and its kind."""
        return str(self), "doom_loop"


@dataclass(frozen=True)
class Repeat:
    """A failing call seen `count` times: what to do about it, and the words for it."""

    action: Literal["nudge", "stop"]
    count: int
    message: str


class DoomLoops:
    """The failing calls of one run and how often each came."""

    def __init__(self) -> None:
        self._counts: dict[tuple[str, str, str], int] = {}
        self.stopped: str | None = None
        """Set at the fourth repeat: the sentence the run stops with."""

    def reset(self) -> None:
        """A new run of the root agent: nothing counts from before it."""
        self._counts.clear()
        self.stopped = None

    def failed(self, tool: str, arguments: dict[str, Any], error: str) -> Repeat | None:
        """Count one failing call; a nudge at the third identical one, a stop from the fourth, else None."""
        key = (tool, json.dumps(arguments, sort_keys=True, default=str), _DURATION.sub("<time>", error.strip()))
        count = self._counts[key] = self._counts.get(key, 0) + 1
        evidence = _evidence(tool, key[1], error)
        if count >= STOP_AT:
            self.stopped = (
                f"Stopped: the same {tool} call failed {count} times in this run with the same error ({evidence[1]})."
            )
            return Repeat("stop", count, self.stopped)
        if count == NUDGE_AT:
            nudge = (
                f"<system-reminder>\nThe same call has now failed {count} times in this run (counted across you and "
                f"any sub-agents): {tool} with input {evidence[0]}, each time with the error: {evidence[1]}. "
                "Repeating it will fail again. Stop and change the approach: read the error, check your assumptions "
                "(the file, the path, the command, the arguments), try something different, or explain what is "
                f"blocking you. A {STOP_AT}th identical failing call stops the run.\n</system-reminder>"
            )
            return Repeat("nudge", count, nudge)
        return None


def _evidence(tool: str, arguments: str, error: str) -> tuple[str, str]:
    """The input and the error, each cut to a length a paragraph can hold."""
    error = " ".join(error.split())
    return _cut(arguments, 300), _cut(error, 400)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
