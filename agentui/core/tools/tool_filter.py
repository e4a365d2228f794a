"""The tool filter (cinch-rs): when more tools are offered than a limit (a large MCP setup), the model is sent the
built-in tools, the others the task's words and past use point to, and ToolSearch to find the rest. The tools sent
only ever grow, each new one after the last, so the request's prefix stays the same for prompt caching."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from agentui.core.tools.base import Tool

_WORD = re.compile(r"[A-Za-z][a-z0-9]*|[0-9]+")
_COMMON = frozenset(
    "the and for with this that from into what when then than have has are was were will would should could can "  # noqa: SIM905
    "you your our all any not but its use using used file files make please some them they there here just".split()
)


def words(text: str) -> set[str]:
    """The words of a prompt or a tool's name and description, lower case, camelCase and snake_case split."""
    return {word.lower() for word in _WORD.findall(text) if len(word) > 2} - _COMMON


def deferrable(tool: Tool[Any]) -> bool:
    """A tool from elsewhere (an MCP server's, an API's: `mcp__server__tool`); the built-in ones are always sent."""
    return "__" in tool.name


class ToolFilter:
    """Chooses what `ToolRegistry.specs()` sends. `used()` gives past calls by tool name (the agent profile)."""

    def __init__(self, limit: int, used: Callable[[], Mapping[str, int]], search: Tool[Any] | None = None) -> None:
        self.limit = limit
        self.used = used
        self.search = search
        """ToolSearch, sent whenever the filter holds tools back."""
        self.sent: list[str] = []
        """The names sent so far, in the order they were first sent."""
        self._words: set[str] = set()
        self._found: list[str] = []
        self._stale = True

    def note(self, prompt: str) -> None:
        """A prompt of the task: its words may bring more tools on the next request."""
        self._words |= words(prompt)
        self._stale = True

    def find(self, names: Iterable[str]) -> None:
        """Tools ToolSearch found: sent from the next request on."""
        self._found += [name for name in names if name not in self._found]
        self._stale = True

    def held_back(self, offered: Iterable[Tool[Any]]) -> list[Tool[Any]]:
        """The offered tools not sent yet (what ToolSearch searches)."""
        return [tool for tool in offered if tool.name not in self.sent]

    def choose(self, offered: list[Tool[Any]]) -> list[Tool[Any]]:
        if len(offered) <= self.limit and not self.sent:
            return offered
        by_name = {tool.name: tool for tool in offered}
        if self.search is not None:
            by_name.setdefault(self.search.name, self.search)
        if self._stale:
            self._stale = False
            if not self.sent:
                self.sent = [tool.name for tool in offered if not deferrable(tool)]
                self.sent += [self.search.name] if self.search is not None else []
            self.sent += [name for name in self._ranked(offered) if name not in self.sent]
            self.sent += [name for name in self._found if name not in self.sent and name in by_name]
        return [by_name[name] for name in self.sent if name in by_name]

    def _ranked(self, offered: list[Tool[Any]]) -> list[str]:
        """The held-back tools the task's words or past use point to, best first, as many as there is room for."""
        room = self.limit - len(self.sent)
        if room <= 0:
            return []
        used = self.used()
        scored: list[tuple[int, int, str]] = []
        for index, tool in enumerate(offered):
            if tool.name in self.sent or not deferrable(tool):
                continue
            score = 3 * len(words(tool.name) & self._words) + len(words(tool.description) & self._words)
            score += min(used.get(tool.name, 0), 5)
            if score > 0:
                scored.append((-score, index, tool.name))
        return [name for _, _, name in sorted(scored)[:room]]
