"""The tree of a session's branches (`/tree`, `agentui tree`): the main line, what rewinds and edited prompts left
beside it, the sessions forked from it, its parallel attempts and its sub-agents, each a node with its first prompt,
its turns and its cost, the uuid of its leaf and of the line it branched off from.

A branch is a straight run of lines: where one line has two children that each lead to a prompt or an answer (a
rewind, an edited prompt, a fork's first new line), a branch ends and others begin. A line with a child that leads to
neither (the results of parallel tool calls, progress lines) does not branch. The branch the conversation is on
comes first and is "main"; the other leaves follow, oldest first, each under the branch it leaves (which branch holds
the lines two leaves share is chosen so that the tree stays shallow: see `_heavy_first`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from agentui.core.escapes import visible
from agentui.core.session.paths import is_session_id
from agentui.core.session.reader import CHAIN_TYPES, load_session, open_regular, read_lines
from agentui.core.session.trace import answer_cost

Kind = Literal["main", "rewind", "fork", "attempt", "subagent"]
PROMPT_CHARS = 80
_ATTEMPT_TRANSCRIPT = re.compile(r"transcript (agent-[\w-]+)\.jsonl")
_TAG = re.compile(r"</?[\w-]+>")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""Control characters (an escape sequence would reach the terminal) and bidi overrides (they reorder what is shown)."""


@dataclass
class TreeNode:
    """One branch of the tree."""

    kind: Kind
    prompt: str
    """Its first prompt, on one line ("" when it has none: an answer went on from a branch point)."""
    turns: int
    """The model's answers on it."""
    cost_usd: float
    leaf_uuid: str | None
    branched_from: str | None
    """The uuid of the line it went on from (None: it starts at a root)."""
    session_id: str
    file: str
    agent_id: str | None = None
    current: bool = False
    """The conversation is on this branch (its leaf, or a line of it a rewind went back to)."""
    children: list[TreeNode] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "prompt": self.prompt,
            "turns": self.turns,
            "cost_usd": round(self.cost_usd, 6),
            "leaf_uuid": self.leaf_uuid,
            "branched_from": self.branched_from,
            "session_id": self.session_id,
            "file": self.file,
            "agent_id": self.agent_id,
            "current": self.current,
            "children": [child.to_json() for child in self.children],
        }


@dataclass
class SessionTree:
    session_id: str
    file: str
    root: TreeNode
    problems: list[str] = field(default_factory=list)
    """What could not be read, a sentence each (the tree has the rest)."""

    def walk(self) -> Iterator[tuple[int, TreeNode]]:
        """Every node with its depth, depth first, each before its children."""
        stack = [(0, self.root)]
        while stack:
            depth, node = stack.pop()
            yield depth, node
            stack.extend((depth + 1, child) for child in reversed(node.children))

    def to_json(self) -> dict[str, Any]:
        root = self.root.to_json()
        return {"session_id": self.session_id, "file": self.file, "problems": self.problems, "root": root}


@dataclass
class _File:
    path: Path
    session_id: str
    entries: list[dict[str, Any]]


@dataclass
class _Segment:
    uuids: list[str]
    leaf: str | None
    branched_from: str | None
    parent: int | None
    """The index of the segment it branched from."""


class _Graph:
    """The chain lines of some files, by uuid (a uuid in two files, as a fork's copy of the chain, counts once)."""

    def __init__(self) -> None:
        self.lines: dict[str, dict[str, Any]] = {}
        self.file_of: dict[str, _File] = {}
        self.final: dict[str, dict[str, Any]] = {}
        """Each answer's message as its last line has it: Claude Code writes an answer a line per block as each
        ends, the earlier lines with the output tokens counted so far, the last with the whole answer's usage."""

    def add(self, file: _File, *, sidechain: bool | None = None) -> None:
        for entry in file.entries:
            uuid = entry.get("uuid")
            if entry.get("type") not in CHAIN_TYPES or not isinstance(uuid, str) or uuid in self.lines:
                continue
            if sidechain is not None and bool(entry.get("isSidechain")) != sidechain:
                continue
            self.lines[uuid] = entry
            self.file_of[uuid] = file
            if isinstance(answer := _answer_id(entry), str):
                self.final[answer] = entry["message"]

    def parent(self, uuid: str) -> str | None:
        entry = self.lines[uuid]
        for key in ("parentUuid", "logicalParentUuid"):  # (a compaction's boundary goes on from its logical parent)
            found = entry.get(key)
            if isinstance(found, str) and found in self.lines and found != uuid:
                return found
        return None


def build_tree(path: Path, current: str | None = None) -> SessionTree:
    """The tree of the session file at `path`; `current` is the line the conversation is at (None: where a resume
    would go on from). A file that cannot be read raises OSError; bad lines and missing transcripts are problems."""
    problems: list[str] = []
    main = _read(path, problems)
    if current is None:
        current = load_session(path).leaf_uuid
    graph = _Graph()
    graph.add(main, sidechain=False)
    files = [main, *_forks(main, graph, problems)]
    for fork in files[1:]:
        graph.add(fork, sidechain=False)
    builder = _Builder(main, problems)
    root = builder.main_tree(graph, current)
    inline = _Graph()
    inline.add(main, sidechain=True)  # (Claude Code 1.x wrote its sub-agents' lines into the session's own file)
    builder.attach(inline, "subagent", None, root)
    builder.subagents(files, graph)
    return SessionTree(main.session_id, str(path), root, problems)


def _read(path: Path, problems: list[str]) -> _File:
    """The file's lines (OSError when it cannot be read), a problem said for the lines that are not JSON."""
    entries, _lines, skipped = read_lines(path)
    if skipped:
        lines = f"{skipped} line{'s' if skipped != 1 else ''}"
        problems.append(f"{lines} of {path.name} could not be read and {'are' if skipped != 1 else 'is'} left out.")
    if is_session_id(path.stem):  # (a session is found by its file's name, whatever ids its copied lines carry)
        return _File(path, path.stem, entries)
    ids = [e["sessionId"] for e in entries if isinstance(e.get("sessionId"), str)]
    return _File(path, ids[0] if ids else path.stem, entries)


def _forks(main: _File, graph: _Graph, problems: list[str]) -> list[_File]:
    """The other sessions of the project that share lines with this one: forked from it, or it from them. A fork's
    file starts with a copy of the chain it went on from, so only each file's first chain line is read to tell."""
    first = next(iter(graph.lines), None)
    if first is None:
        return []
    found = []
    for other in sorted(main.path.parent.glob("*.jsonl")):
        if other == main.path or other.name.startswith("agent-"):
            continue
        try:
            starts = _first_chain_uuid(other)
            if starts is not None and (starts in graph.lines or starts == first):
                found.append(_read(other, problems))
        except OSError:
            continue  # (another session, gone or unreadable: not this one's business)
    return found


def _first_chain_uuid(path: Path, lines: int = 200) -> str | None:
    with open_regular(path) as handle:  # (a FIFO named like a session is refused, not waited on)
        for _ in range(lines):
            raw = handle.readline()
            if not raw:
                return None
            try:
                entry = json.loads(raw)
            except ValueError:
                continue
            if isinstance(entry, dict) and entry.get("type") in CHAIN_TYPES and isinstance(entry.get("uuid"), str):
                return str(entry["uuid"])
    return None


class _Builder:
    """Turns graphs into nodes, counting each answer once across the whole tree."""

    def __init__(self, main: _File, problems: list[str]) -> None:
        self.main = main
        self.problems = problems
        self.counted: set[str] = set()
        self.owner: dict[str, TreeNode] = {}
        """Which node each line of the main tree is on."""
        self.main_graph = _Graph()
        self.root = TreeNode("main", "", 0, 0.0, None, None, main.session_id, str(main.path), current=True)

    def main_tree(self, graph: _Graph, current: str | None) -> TreeNode:
        self.main_graph = graph
        segments = _segments(graph, current if current in graph.lines else None)
        if segments:  # (the first is the branch the conversation is on)
            roots = self._nodes(graph, segments, lambda index, file: _main_kind(index, file, self.main))
            self.root = roots[0]
            self.root.current = True
            self.root.children.extend(roots[1:])  # (a rewind to before the first prompt starts a root of its own)
        return self.root

    def _nodes(self, graph: _Graph, segments: list[_Segment], kind: Any) -> list[TreeNode]:
        """The segments' nodes, each under the one it branched from; those that start at a root are returned."""
        nodes: list[TreeNode] = []
        for index, segment in enumerate(segments):
            file = graph.file_of[segment.leaf] if segment.leaf else self.main
            nodes.append(self._node(graph, segment, kind(index, file), file))
        roots: list[TreeNode] = []
        for node, segment in zip(nodes, segments, strict=True):  # (a branch may come before the one it is under)
            (roots if segment.parent is None else nodes[segment.parent].children).append(node)
        return roots

    def _node(self, graph: _Graph, segment: _Segment, kind: Kind, file: _File) -> TreeNode:
        prompt, turns, cost = "", 0, 0.0
        for uuid in segment.uuids:
            entry = graph.lines[uuid]
            if not prompt and _is_prompt(entry):
                prompt = _one_line(entry)
            message = entry.get("message")
            answer = message.get("id") if entry.get("type") == "assistant" and isinstance(message, dict) else None
            if not isinstance(answer, str) or answer in self.counted:
                continue  # (an answer is a line per block: counted once, at its last line's usage)
            self.counted.add(answer)
            turns += 1
            counted = answer_cost(graph.final.get(answer, message)) if isinstance(message, dict) else None
            cost += counted[1] if counted else 0.0
        agent = graph.lines[segment.uuids[0]].get("agentId") if segment.uuids else None
        node = TreeNode(kind, prompt, turns, cost, segment.leaf, segment.branched_from, file.session_id, str(file.path))
        node.agent_id = agent if isinstance(agent, str) else None
        if graph is self.main_graph:
            self.owner.update(dict.fromkeys(segment.uuids, node))
        return node

    def attach(self, graph: _Graph, kind: Kind, at: str | None, root: TreeNode) -> None:
        """A sub-agent's or an attempt's lines, under the node of the main tree's line `at` (the root when unknown)."""
        segments = _segments(graph, None)
        if not segments:
            return
        owner = self._owner_of(at, root)
        for node in self._nodes(graph, segments, lambda _index, _file: kind):
            node.branched_from = at
            owner.children.append(node)

    def _owner_of(self, uuid: str | None, root: TreeNode) -> TreeNode:
        seen: set[str] = set()
        while uuid is not None and uuid not in seen:
            if uuid in self.owner:
                return self.owner[uuid]
            seen.add(uuid)
            uuid = self.main_graph.parent(uuid) if uuid in self.main_graph.lines else None
        return root

    def subagents(self, files: list[_File], graph: _Graph) -> None:
        """Each sub-agent's and attempt's transcript beside the sessions, under the line that started it."""
        started, attempts = _starts(graph)
        seen: set[str] = set()
        for path in _transcripts(files):
            try:
                agent_file = _read(path, self.problems)
            except OSError as exc:
                said = f"The transcript {path.name} cannot be read ({exc.strerror or exc})"
                self.problems.append(f"{said}; it is left out of the tree.")
                continue
            name = path.stem.removeprefix("agent-")
            seen.add(name)
            sub = _Graph()
            sub.add(agent_file)
            kind: Kind = "attempt" if name in attempts else "subagent"
            self.attach(sub, kind, attempts.get(name) or started.get(name), self.root)
        missing = sorted(set(started) - seen)
        if missing:
            self.problems.append(
                f"The transcript of sub-agent{'s' if len(missing) > 1 else ''} {', '.join(missing)} is missing; "
                "what it did is left out of the tree."
            )


def _main_kind(index: int, file: _File, main: _File) -> Kind:
    if index == 0:
        return "main"
    return "rewind" if file is main else "fork"


def _starts(graph: _Graph) -> tuple[dict[str, str], dict[str, str]]:
    """Which line started each sub-agent (the answer that called it) and each attempt (the notice naming it)."""
    started: dict[str, str] = {}
    attempts: dict[str, str] = {}
    for uuid, entry in graph.lines.items():
        result = entry.get("toolUseResult")
        if entry.get("type") == "user" and isinstance(result, dict) and isinstance(result.get("agentId"), str):
            source = entry.get("sourceToolAssistantUUID") or entry.get("parentUuid")
            started[result["agentId"]] = source if isinstance(source, str) else uuid
        content = entry.get("content")
        if entry.get("type") == "system" and isinstance(content, str) and content.startswith("Parallel attempts"):
            for name in _ATTEMPT_TRANSCRIPT.findall(content):
                attempts[name.removeprefix("agent-")] = uuid
    return started, attempts


def _transcripts(files: list[_File]) -> list[Path]:
    """The sub-agent transcripts of these sessions: `<session>/subagents/agent-*.jsonl`, and Claude Code 2.0's
    `agent-*.jsonl` beside the session whose lines name it."""
    found: list[Path] = []
    for file in files:
        found += sorted((file.path.parent / file.path.stem / "subagents").glob("agent-*.jsonl"))
    ids = {file.session_id for file in files}
    for beside in sorted(files[0].path.parent.glob("agent-*.jsonl")):
        if _first_session_id(beside) in ids:
            found.append(beside)
    return found


def _first_session_id(path: Path) -> str | None:
    try:
        with open_regular(path) as handle:
            first = json.loads(handle.readline() or b"{}")
    except (OSError, ValueError):
        return None
    found = first.get("sessionId") if isinstance(first, dict) else None
    return found if isinstance(found, str) else None


def _segments(graph: _Graph, current: str | None) -> list[_Segment]:
    """The graph's branches: the one through `current` (or the newest leaf) first, then the others, oldest first."""
    children: dict[str | None, list[str]] = {}
    for uuid in graph.lines:
        children.setdefault(graph.parent(uuid), []).append(uuid)
    order = _preorder(children)
    substantial: dict[str, bool] = {}
    for uuid in reversed(order):
        entry = graph.lines[uuid]
        own = _is_prompt(entry) or _new_answer(entry, graph)
        substantial[uuid] = own or any(substantial.get(child, False) for child in children.get(uuid, []))
    ends = [u for u in order if substantial[u] and not any(substantial.get(c, False) for c in children.get(u, []))]
    if not ends and order:
        ends = [order[0]]
    index = {uuid: number for number, uuid in enumerate(graph.lines)}

    def age(uuid: str | None) -> tuple[str, int]:
        return (str(graph.lines[uuid].get("timestamp", "")), index[uuid]) if uuid is not None else ("", -1)

    first = current if current is not None else max((_extended(u, children) for u in ends), key=age, default=None)
    if first is None:
        return []
    claimed = _claim(graph, [first, *(_extended(u, children) for u in _heavy_first(ends, children, order))])
    return _oldest_first(claimed, age)


def _heavy_first(ends: list[str], children: dict[str | None, list[str]], order: list[str]) -> list[str]:
    """The branches' ends in the order a walk down from the roots meets them, taking at each line first the child
    with the most ends under it. Claimed in this order, a branch is under another only where it holds at most half
    of the ends under their common line, so the tree is at most log2(ends) deep however long the session (oldest
    first, a session retried at each turn nested each turn's branch in the one before, thousands deep)."""
    weight = dict.fromkeys(ends, 1)
    for uuid in reversed(order):
        weight[uuid] = weight.get(uuid, 0) + sum(weight.get(child, 0) for child in children.get(uuid, []))

    def heaviest_last(uuids: list[str]) -> list[str]:
        return sorted((uuid for uuid in uuids if weight.get(uuid)), key=weight.__getitem__)

    met: list[str] = []
    stack, wanted = heaviest_last(children.get(None, [])), set(ends)
    while stack:
        uuid = stack.pop()
        if uuid in wanted:
            met.append(uuid)
        stack.extend(heaviest_last(children.get(uuid, [])))
    return met


def _oldest_first(segments: list[_Segment], age: Callable[[str | None], tuple[str, int]]) -> list[_Segment]:
    """The segments after the first in the order of their leaves' times, each still naming the one it is under."""
    ordering = [0, *sorted(range(1, len(segments)), key=lambda i: age(segments[i].leaf))]
    moved = {old: new for new, old in enumerate(ordering)}
    return [replace(segments[old], parent=_moved(segments[old].parent, moved)) for old in ordering]


def _moved(parent: int | None, moved: dict[int, int]) -> int | None:
    return None if parent is None else moved[parent]


def _preorder(children: dict[str | None, list[str]]) -> list[str]:
    """Every line reachable from a root, each after its parent (lines in a loop of parents are unreachable)."""
    order: list[str] = []
    stack = list(reversed(children.get(None, [])))
    while stack:
        uuid = stack.pop()
        order.append(uuid)
        stack.extend(reversed(children.get(uuid, [])))
    return order


def _extended(leaf: str, children: dict[str | None, list[str]]) -> str:
    """A branch's last line: past its last answer, the tool results and notices written after it."""
    seen = {leaf}
    while children.get(leaf) and children[leaf][-1] not in seen:
        leaf = children[leaf][-1]
        seen.add(leaf)
    return leaf


def _claim(graph: _Graph, leaves: list[str]) -> list[_Segment]:
    claimed: dict[str, int] = {}
    segments: list[_Segment] = []
    for leaf in leaves:
        walked: list[str] = []
        seen: set[str] = set()  # (parents that loop end the walk)
        uuid: str | None = leaf
        while uuid is not None and uuid not in claimed and uuid not in seen:
            walked.append(uuid)
            seen.add(uuid)
            uuid = graph.parent(uuid)
        if not walked:
            continue  # (a leaf already on an earlier branch: the current line was that branch's own leaf)
        at = claimed.get(uuid) if uuid is not None else None
        segments.append(_Segment(walked[::-1], leaf, uuid, at))
        claimed.update(dict.fromkeys(walked, len(segments) - 1))
    return segments


def _answer_id(entry: Mapping[str, Any]) -> object:
    message = entry.get("message")
    return message.get("id") if entry.get("type") == "assistant" and isinstance(message, dict) else None


def _new_answer(entry: Mapping[str, Any], graph: _Graph) -> bool:
    """An answer's first line (its other blocks' lines, written after it, do not branch: parallel tool calls)."""
    if entry.get("type") != "assistant":
        return False
    parent = graph.parent(str(entry.get("uuid")))
    return parent is None or _answer_id(entry) is None or _answer_id(graph.lines[parent]) != _answer_id(entry)


def _is_prompt(entry: Mapping[str, Any]) -> bool:
    """A person's prompt: a user line that is not a tool's result, a hidden reminder or a compaction's summary."""
    if entry.get("type") != "user" or entry.get("isMeta") or entry.get("isCompactSummary"):
        return False
    content = (entry.get("message") or {}).get("content") if isinstance(entry.get("message"), dict) else None
    if isinstance(content, str):
        return bool(content.strip())
    if not isinstance(content, list):
        return False
    kinds = {block.get("type") for block in content if isinstance(block, dict)}
    return "tool_result" not in kinds and bool(kinds & {"text", "image"})


def _one_line(entry: Mapping[str, Any]) -> str:
    content = entry["message"]["content"]
    texts = [content] if isinstance(content, str) else [b.get("text") for b in content if isinstance(b, dict)]
    texts = [text for text in texts if isinstance(text, str) and text.strip()]
    said = next((text for text in texts if not text.lstrip().startswith("<")), texts[0] if texts else "(an image)")
    command = _between(said, "command-name")
    if command is not None:  # (a slash command's line: its name and arguments, not its markup)
        said = f"{command} {_between(said, 'command-args') or ''}"
    line = " ".join(_CONTROL.sub(" ", _TAG.sub(" ", visible(said))).split())  # (half a UTF-16 pair: U+FFFD)
    return line if len(line) <= PROMPT_CHARS else line[: PROMPT_CHARS - 1] + "…"


def _between(text: str, tag: str) -> str | None:
    """What the first `<tag>...</tag>` of `text` holds, in two scans (a regular expression started its search over
    at each opening tag with no closing one: hours for a prompt full of them)."""
    start = text.find(f"<{tag}>")
    end = text.find(f"</{tag}>", start) if start >= 0 else -1
    return text[start + len(tag) + 2 : end] if end >= 0 else None


def render_tree(tree: SessionTree) -> str:
    """The tree as text, a branch a line, each under the one it branched from."""
    lines = []
    for depth, node in tree.walk():
        mark = "* " if node.current else "  "
        said = f'"{node.prompt}"' if node.prompt else "(no prompt)"
        where = f", from {node.branched_from[:8]}" if node.branched_from else ""
        leaf = f", leaf {node.leaf_uuid[:8]}" if node.leaf_uuid else ""
        turns = f"{node.turns} turn{'s' if node.turns != 1 else ''}"
        lines.append(f"{'  ' * depth}{mark}{node.kind} {said}: {turns}, ${node.cost_usd:.4f}{leaf}{where}")
    return "\n".join(_CONTROL.sub(" ", line) for line in lines)  # (uuids are the file's too)


def tree_command(reference: str, cwd: Path, as_json: bool = False, env: Mapping[str, str] | None = None) -> str:
    """`agentui tree SESSION [--json]`: the tree as text or JSON (the problems after it, as sentences, or in the
    JSON's "problems"); SessionError, one sentence, when there is no such session or it cannot be read."""
    from agentui.core.session.lookup import SessionError, find_session

    path = find_session(reference, cwd, env)
    try:
        tree = build_tree(path)
    except OSError as exc:
        raise SessionError(f"The session file {path} cannot be read ({exc.strerror or exc}).") from None
    if as_json:  # (what the file holds, uuids and names too, may be half a UTF-16 pair: shown, not a traceback)
        return visible(json.dumps(tree.to_json(), ensure_ascii=False, indent=2))
    problems = [_CONTROL.sub(" ", problem) for problem in tree.problems]  # (file names may hold escapes too)
    return visible("\n".join([render_tree(tree), *problems]))
