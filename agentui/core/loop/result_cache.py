"""Repeated read-only calls answered from what the model already holds: a Read of a file unchanged since the same
read (as Claude Code 2.1 answers it), and a Grep or Glob identical to an earlier one with nothing written since.

An answer from the cache tells the model to refer to its earlier result, so it is given only while that result is
still in the context as it was: the compactor's generation (bumped whenever the history is rewritten: a compaction,
shortened results, a rewind) must be the one it was stored in. A search's answer also needs that nothing was
written since: any write, and any command not known to only read, forgets them; so does a background command still
running, which may write at any time. Files changed by someone else are seen for Read (by their size and time) and
not for searches.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentui.core.tools.base import ToolResult

FILE_UNCHANGED = (
    "File unchanged since last read. The content from the earlier Read tool_result in this conversation is still "
    "current \u2014 refer to that instead of re-reading."
)
"""Claude Code 2.1's words for it, which models trained on its sessions know."""
SEARCH_UNCHANGED = (
    "Same result as the identical {name} call earlier in this conversation (nothing has been written since): that "
    "tool_result is still current \u2014 refer to it instead of searching again."
)
SEARCHES = ("Grep", "Glob")


class ResultCache:
    def __init__(self, generation: Callable[[], int], quiet: Callable[[], bool] = lambda: True) -> None:
        self._generation = generation
        self.quiet = quiet
        """False while something may write on its own (a background command)."""
        self._reads: dict[tuple[str, str], tuple[int, int, int]] = {}
        """(path, the rest of the arguments) -> (size, modification time, generation) when it was read."""
        self._searches: dict[str, int] = {}
        """A search's tool and arguments -> the generation it ran in."""

    def answer(self, name: str, arguments: dict[str, Any], path: Path | None) -> ToolResult | None:
        """The cached answer to this call, if the model holds its result already."""
        if name == "Read" and path is not None:
            stored = self._reads.get(_read_key(path, arguments))
            if stored is not None and stored == (*_stamp(path), self._generation()):
                return ToolResult(FILE_UNCHANGED, {"type": "file_unchanged", "file": {"filePath": str(path)}})
        elif (
            name in SEARCHES and self.quiet() and self._searches.get(_search_key(name, arguments)) == self._generation()
        ):
            return ToolResult(SEARCH_UNCHANGED.format(name=name), {"type": "unchanged"})
        return None

    def remember(self, name: str, arguments: dict[str, Any], path: Path | None, result: ToolResult) -> None:
        """A read-only call's result, now in the model's context."""
        if result.is_error or result.from_editor:
            return
        if name == "Read" and path is not None:
            stamp = _stamp(path)
            if stamp != (-1, -1):
                self._reads[_read_key(path, arguments)] = (*stamp, self._generation())
        elif name in SEARCHES and self.quiet():
            self._searches[_search_key(name, arguments)] = self._generation()

    def wrote(self) -> None:
        """Something may have changed files: no search is answered from before it."""
        self._searches.clear()


def _read_key(path: Path, arguments: dict[str, Any]) -> tuple[str, str]:
    rest = {key: value for key, value in arguments.items() if key != "file_path" and value is not None}
    return str(path), json.dumps(rest, sort_keys=True)


def _search_key(name: str, arguments: dict[str, Any]) -> str:
    return name + json.dumps({k: v for k, v in arguments.items() if v is not None}, sort_keys=True, default=str)


def _stamp(path: Path) -> tuple[int, int]:
    try:
        info = os.stat(path)
    except OSError:
        return -1, -1
    return info.st_size, info.st_mtime_ns
