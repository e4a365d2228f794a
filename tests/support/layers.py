"""The house's import rules, read from the source: which module imports which (at the top, inside functions and for
the type checker alike), the circles among them, and the arrows that run against the layers."""

from __future__ import annotations

import ast
import re
from pathlib import Path

LAYERS: list[tuple[str, re.Pattern[str]]] = [
    # (highest first: a module may import its own layer and those below it, never one above)
    ("front ends", re.compile(r"agentui\.(cli|__main__|frontends)(\.|$)")),
    ("api", re.compile(r"agentui\.api(\.|$)")),
    ("core", re.compile(r"agentui\.core(\.|$)")),
    ("package", re.compile(r"agentui$")),
]
NEVER: list[tuple[str, re.Pattern[str], re.Pattern[str]]] = [
    (
        "a tool imports the loop",
        re.compile(r"agentui\.core\.tools(\.|$)"),
        re.compile(
            r"agentui\.core\.(loop|context|extend|parallel)(\.|$)|agentui\.core\.(conversation|project|rewind)$"
        ),
    ),
    (
        "a guard imports a tool",
        re.compile(r"agentui\.core\.safety(\.|$)"),
        re.compile(r"agentui\.core\.(tools|loop|context|extend|parallel)(\.|$)"),
    ),
    (
        "a provider imports the settings",  # (a provider is made from its own ProviderConfig)
        re.compile(r"agentui\.core\.providers(\.|$)"),
        re.compile(
            r"agentui\.core\.(settings|claude_settings)$|agentui\.core\.(safety|tools|loop|context|extend)(\.|$)"
        ),
    ),
]


def modules(root: Path) -> dict[str, Path]:
    """Every module of the package under `root` (the directory holding `agentui/`), by its dotted name."""
    found = {}
    for path in (root / "agentui").rglob("*.py"):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(root: Path) -> dict[str, set[str]]:
    """For each module, the package's modules it imports anywhere in its text."""
    known = modules(root)

    def owner(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        targets = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                for alias in node.names:  # (`from agentui.core import events` imports the module events)
                    full = f"{node.module}.{alias.name}"
                    targets.add(full if full in known else owner(node.module))
            elif isinstance(node, ast.Import):
                targets.update(owner(alias.name) for alias in node.names)
        graph[name] = {t for t in targets if t is not None and t != name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def _layer(name: str) -> int:
    return next(rank for rank, (_, pattern) in enumerate(LAYERS) if pattern.match(name))


def wrong_arrows(graph: dict[str, set[str]]) -> list[str]:
    """Each import that runs up the layers or breaks one of the NEVER rules, as "module -> module: why"."""
    wrong = []
    for source, targets in sorted(graph.items()):
        for target in sorted(targets):
            if _layer(target) < _layer(source):
                wrong.append(f"{source} -> {target}: {LAYERS[_layer(source)][0]} import {LAYERS[_layer(target)][0]}")
            wrong += [
                f"{source} -> {target}: {why}"
                for why, importer, imported in NEVER
                if importer.match(source) and imported.match(target)
            ]
    return wrong
