"""Compaction by topic: the older messages split into pieces of work (where the files touched change, where the kind
of tool changes, at time gaps), so that each piece is summarised on its own and the summary keeps a section for
each rather than only what fitted of the newest."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field

from agentui.core.context.window import TokenCounter
from agentui.core.messages import Message, ToolResultBlock, ToolUseBlock

MAX_TOPICS = 6
"""At most this many sections (one summary call each): more pieces of work share a section with a neighbour."""
MIN_TOPIC_SHARE = 0.05
"""A piece smaller than this share of what is summarised joins a neighbour: a section per stray call is noise."""
GAP_SECONDS = 30 * 60
"""Messages this far apart in time start a new piece of work, whatever they touch."""

PATH_KEYS = ("file_path", "path", "notebook_path", "pattern")
KINDS = {
    "Read": "read",
    "Grep": "read",
    "Glob": "read",
    "LS": "read",
    "Edit": "edit",
    "MultiEdit": "edit",
    "Write": "edit",
    "NotebookEdit": "edit",
    "Bash": "shell",
    "WebFetch": "web",
    "WebSearch": "web",
}
_FILE_WORD = re.compile(r"^[\w./-]*\w\.\w{1,8}$|^[\w.-]*/[\w./-]+$")


@dataclass
class Topic:
    """Messages `start` to `end` (exclusive) of what is summarised, and what they touched."""

    start: int
    end: int
    tokens: int = 0
    files: list[str] = field(default_factory=list)
    kinds: set[str] = field(default_factory=set)

    def heading(self) -> str:
        """What the section is called: the files worked on, else the kinds of tool, else plain talk."""
        if self.files:
            shown = ", ".join(self.files[:4])
            return shown + (f" and {len(self.files) - 4} more" if len(self.files) > 4 else "")
        return "Work with " + ", ".join(sorted(self.kinds)) if self.kinds else "Conversation"

    def take(self, other: Topic) -> None:
        self.start, self.end = min(self.start, other.start), max(self.end, other.end)
        self.tokens += other.tokens
        self.files += [name for name in other.files if name not in self.files]
        self.kinds |= other.kinds


def files_of(call: ToolUseBlock) -> list[str]:
    """The files (or paths and patterns) a call works on; for Bash, the words of its command that look like files."""
    found = [str(call.input[key]) for key in PATH_KEYS if isinstance(call.input.get(key), str)]
    command = call.input.get("command")
    if call.name == "Bash" and isinstance(command, str):
        try:
            words = shlex.split(command)
        except ValueError:  # (an unbalanced quote: split on spaces)
            words = command.split()
        found += [word.split("::")[0] for word in words if _FILE_WORD.match(word.split("::")[0])]
    return list(dict.fromkeys(found))


def _key(name: str) -> str:
    """What relates a file to its neighbours in a piece of work: its name without directory, suffix or test prefix
    (src/parser.py, tests/test_parser.py and parser_test.go are one piece)."""
    stem = name.rstrip("/").rsplit("/", 1)[-1].split(".", 1)[0]
    return stem.removeprefix("test_").removesuffix("_test").removesuffix("_spec") or name


def _mentioned(message: Message) -> list[str]:
    """The files a prompt names ("tests/test_parser.py::test_x fails")."""
    words = (word.strip("`'\",;:()[]").rstrip(".").split("::")[0] for word in message.text.split())
    return [word for word in words if _FILE_WORD.match(word)]


def _is_prompt(message: Message) -> bool:
    """A message the person wrote (not only tool results)."""
    return message.role == "user" and not any(isinstance(b, ToolResultBlock) for b in message.content)


def _steps(messages: Sequence[Message], counter: TokenCounter) -> list[Topic]:
    """Each prompt with the answer after it, and each further answer with its tools' results, as the smallest
    pieces (boundaries never part a call from its result)."""
    steps: list[Topic] = []
    for index, message in enumerate(messages):
        after_prompt = index > 0 and _is_prompt(messages[index - 1])
        if not steps or _is_prompt(message) or (message.role == "assistant" and not after_prompt):
            steps.append(Topic(index, index))
        step = steps[-1]
        step.end = index + 1
        step.tokens += counter.message(message)
        if _is_prompt(message):
            step.files += [name for name in _mentioned(message) if name not in step.files]
        for call in message.tool_uses:
            step.files += [name for name in files_of(call) if name not in step.files]
            step.kinds.add(KINDS.get(call.name, call.name))
    return steps


def _starts_anew(topic: Topic, step: Topic, gap: bool) -> bool:
    if gap:
        return True
    if step.files and topic.files:
        return {_key(name) for name in step.files}.isdisjoint(_key(name) for name in topic.files)
    return bool(step.kinds and topic.kinds and step.kinds.isdisjoint(topic.kinds) and not step.files)


def _merge_small(topics: list[Topic], least: int) -> None:
    """Join pieces below `least` tokens, and then the smallest neighbouring pairs, until at most MAX_TOPICS remain."""
    while len(topics) > 1:
        smallest = min(range(len(topics)), key=lambda i: topics[i].tokens)
        if topics[smallest].tokens >= least and len(topics) <= MAX_TOPICS:
            return
        if topics[smallest].tokens >= least:  # too many: the neighbouring pair with the fewest tokens
            smallest = min(range(len(topics) - 1), key=lambda i: topics[i].tokens + topics[i + 1].tokens)
            topics[smallest].take(topics.pop(smallest + 1))
            continue
        left = topics[smallest - 1].tokens if smallest > 0 else None
        right = topics[smallest + 1].tokens if smallest + 1 < len(topics) else None
        into = smallest - 1 if right is None or (left is not None and left <= right) else smallest + 1
        topics[into].take(topics[smallest])
        del topics[smallest]


def group_by_topic(
    messages: Sequence[Message], counter: TokenCounter, times: Sequence[float | None] | None = None
) -> list[Topic]:
    """The pieces of work in `messages`, in order and covering them all; `times` (seconds, per message, where
    known) adds a boundary at each gap of GAP_SECONDS."""
    topics: list[Topic] = []
    for step in _steps(messages, counter):
        before = times[step.start - 1] if times and step.start > 0 else None
        now = times[step.start] if times else None
        gap = before is not None and now is not None and now - before >= GAP_SECONDS
        if not topics or _starts_anew(topics[-1], step, gap):
            topics.append(step)
        else:
            topics[-1].take(step)
    _merge_small(topics, int(sum(t.tokens for t in topics) * MIN_TOPIC_SHARE))
    return topics


def topic_instructions(topic: Topic, number: int, count: int, instructions: str | None) -> str:
    """What the summary call of one piece of work is told besides the usual."""
    said = (
        f"This is part of a longer session: piece {number} of {count}, the work on {topic.heading()}. Summarise "
        "only this part; the others are summarised apart."
    )
    return said + (f" {instructions}" if instructions else "")


def sectioned(parts: Sequence[tuple[Topic, str]]) -> str:
    """The summaries of the pieces as one summary, a section each, headed by what the piece worked on."""
    return "\n\n".join(f"## {topic.heading()}\n{text.strip()}" for topic, text in parts if text.strip())
