"""Reading a session file back into a conversation the model can continue, as Claude Code resumes one.

One pass over the lines (corrupt ones are skipped and counted), then: the newest leaf that is not a sidechain,
its `parentUuid` chain walked back to the root (a compact boundary is a root; lines a tombstone deleted are passed
over), and the history rebuilt from it:
the lines of one assistant message merged, tool results put back after their message (also those that sit on
side branches, as parallel calls write them), and tool calls without a result dropped.
"""

from __future__ import annotations

import errno
import gc
import json
import os
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, BinaryIO, TypeGuard

from pydantic import TypeAdapter, ValidationError

from agentui.core.jsonfile import NotRegularError
from agentui.core.messages import (
    ContentBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from agentui.core.session.attachments import LISTINGS
from agentui.core.session.paths import is_session_id

THOUGHT_SIGNATURE_KEY = "agentuiThoughtSignature"
"""The key of an assistant line that keeps the Gemini thought signature of the line's block: beside the message,
not in its content block, which Claude Code sends to the Messages API as it is (and that rejects unknown fields)."""

CHAIN_TYPES = {"user", "assistant", "system", "progress", "attachment"}
RESUME_PLACEHOLDER = "[Earlier messages of this session could not be loaded.]"


@dataclass
class LoadedSession:
    path: Path
    session_id: str
    messages: list[Message]
    leaf_uuid: str | None
    title: str | None = None
    lines: int = 0
    skipped: int = 0
    """Lines that could not be read (bad JSON, NUL padding, a line cut short)."""
    chain: list[dict[str, Any]] = field(default_factory=list)
    """The raw entries the conversation was rebuilt from, in file order (what a fork copies)."""
    tool_details: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Each tool call's `toolUseResult` (diffs, exit codes) by tool_use id, for showing the history."""
    looped: bool = False
    """The parentUuid chain led back to itself; it was cut where it did."""
    snapshots: list[dict[str, Any]] = field(default_factory=list)
    """The `file-history-snapshot` lines, in file order (a fork copies them, with the backups they name)."""

    @property
    def name(self) -> str | None:
        """Its title, else the first thing the person typed in it (on one line), as the session picker names it."""
        from agentui.core.session.listing import prompt_text

        return self.title or next((text for entry in self.chain if (text := prompt_text(entry))), None)

    @property
    def file_history(self) -> dict[str, Any] | None:
        """The last `file-history-snapshot` line: which backups of which files the session holds."""
        return self.snapshots[-1] if self.snapshots else None

    def warnings(self) -> list[str]:
        """What a person resuming this session should know was left out, one sentence each."""
        name = self.path.name
        if self.lines == 0:
            return [f"The session file {name} is empty; the conversation starts afresh in it."]
        if self.skipped == self.lines:
            return [
                f"None of the {self.lines:,} lines of {name} could be read (is it a session file?); "
                "the conversation starts afresh in it."
            ]
        said = []
        if self.skipped:
            said.append(f"{self.skipped:,} of the {self.lines:,} lines of {name} could not be read and were skipped.")
        if self.looped:
            said.append(
                f"The message chain in {name} loops back on itself; its longest unbroken part "
                f"({len(self.messages):,} messages) was loaded."
            )
        return said


@cache
def _block_adapter() -> TypeAdapter[ContentBlock]:
    return TypeAdapter(ContentBlock)


def read_lines(path: Path) -> tuple[list[dict[str, Any]], int, int]:
    """Every line that is a JSON object, the number of non-empty lines, and how many were skipped."""
    with open_regular(path) as handle:
        return _parse(handle)


def open_regular(path: Path) -> BinaryIO:
    """The regular file at `path` (a link to one is followed), opened to read. Opened without waiting, so a FIFO
    named like a session raises NotRegularError (an OSError) at once instead of blocking its reader for ever."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        if not stat.S_ISREG(mode):
            raise NotRegularError("not a regular file")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _parse(raws: Iterable[bytes]) -> tuple[list[dict[str, Any]], int, int]:
    entries: list[dict[str, Any]] = []
    lines = skipped = 0
    for raw in raws:
        raw = raw.strip(b"\x00 \t\r\n")
        if not raw:
            continue
        lines += 1
        if b"\x00" in raw:
            skipped += 1
            continue
        try:
            entry = json.loads(raw)
        except (ValueError, RecursionError):
            skipped += 1
            continue
        if isinstance(entry, dict):
            entries.append(entry)
        else:
            skipped += 1
    return entries, lines, skipped


@contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """Tens of thousands of fresh dicts would set off the cyclic collector again and again, though JSON makes no
    cycles; pausing it halves the time to load a large session."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def load_session(path: Path) -> LoadedSession:
    with _no_cyclic_gc():
        return _load(path)


def load_session_tail(path: Path, at_least: int, first_bytes: int = 1 << 20) -> LoadedSession:
    """The newest part of a session, read from the end of its file: at least `at_least` messages of the newest
    chain (or all of it), for a screen to draw before the whole file is loaded. Its first message may answer one
    that was not read; `lines`, `chain` and warnings describe only what was read."""
    size = path.stat().st_size
    budget = first_bytes
    while True:
        start = max(0, size - budget)
        with _no_cyclic_gc():
            entries, lines, skipped = _parse(_tail_lines(path, start))
            loaded = _assemble(path, entries, lines, skipped)
        if start == 0 or len(loaded.messages) >= at_least:
            return loaded
        budget *= 4


def _tail_lines(path: Path, start: int) -> list[bytes]:
    with path.open("rb") as handle:
        handle.seek(start)
        data = handle.read()
    if start > 0:  # the first line read is most likely a part of one
        data = data[data.find(b"\n") + 1 :] if b"\n" in data else b""
    return data.split(b"\n")


def _load(path: Path) -> LoadedSession:
    entries, lines, skipped = read_lines(path)
    return _assemble(path, entries, lines, skipped)


def branch_of(path: Path, read: tuple[list[dict[str, Any]], int, int], leaf: str) -> LoadedSession:
    """The conversation that ends at the line `leaf` (an earlier point of a branch, as a rewind goes back to), from
    the file's lines as `read_lines` returned them (read once for several branches)."""
    entries, lines, skipped = read
    with _no_cyclic_gc():
        return _assemble(path, entries, lines, skipped, leaf)


def _assemble(
    path: Path, entries: list[dict[str, Any]], lines: int, skipped: int, leaf: str | None = None
) -> LoadedSession:
    entries = _without_deleted(entries)
    by_uuid: dict[str, int] = {}
    referenced: set[str] = set()
    title: str | None = None
    custom_title: str | None = None
    ai_title: str | None = None
    snapshots: list[dict[str, Any]] = []
    session_id = path.stem
    rewound: tuple[str | None] | None = None  # (the leaf a rewind went back to, while nothing came after it)
    for index, entry in enumerate(entries):
        kind = entry.get("type")
        if kind == "last-prompt" and "leafUuid" in entry:
            rewound = _rewind_mark(entry, rewound)
        if kind == "custom-title" and isinstance(entry.get("customTitle"), str):
            custom_title = entry["customTitle"]
        elif kind == "ai-title" and isinstance(entry.get("aiTitle"), str):
            ai_title = entry["aiTitle"]
        elif kind == "summary" and isinstance(entry.get("summary"), str):
            title = entry["summary"]
        elif kind == "file-history-snapshot":
            snapshots.append(entry)
        if kind not in CHAIN_TYPES or not isinstance(entry.get("uuid"), str):
            continue
        parent = entry.get("parentUuid")
        if isinstance(parent, str) and parent in by_uuid:  # a parent is written before its children: a link
            referenced.add(parent)  # forward is a corruption, and counting it could leave no leaf at all
        by_uuid[entry["uuid"]] = index
        if not entry.get("isSidechain"):
            rewound = None
        named = entry.get("sessionId")
        if isinstance(named, str) and is_session_id(named):  # (it names directories: file history, sub-agents)
            session_id = named
    if leaf is None and rewound is not None and (rewound[0] is None or rewound[0] in by_uuid):
        leaf = rewound[0]  # (None: rewound to before the first prompt, so the conversation starts empty)
    elif leaf not in by_uuid:
        leaf = _newest_leaf(entries, by_uuid, referenced) or _newest(entries, by_uuid, list(by_uuid))
    path_indices, looped = _walk(entries, by_uuid, leaf)
    sidechain = bool(path_indices) and bool(entries[path_indices[0]].get("isSidechain"))
    messages, used = _rebuild(entries, path_indices, sidechain)
    chain = [entries[i] for i in sorted(used)]
    details = {}
    for entry in chain:
        content = _content(entry)
        if entry.get("type") == "user" and isinstance(entry.get("toolUseResult"), dict) and isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    details[str(block.get("tool_use_id"))] = entry["toolUseResult"]
    return LoadedSession(
        path=path,
        session_id=session_id,
        messages=messages,
        leaf_uuid=leaf,
        title=custom_title or ai_title or title,
        lines=lines,
        skipped=skipped,
        chain=chain,
        tool_details=details,
        looped=looped,
        snapshots=snapshots,
    )


def _without_deleted(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The lines that tombstones (Cersei's `{"type": "tombstone", "deleted_uuid": ...}`) have not deleted, the lines
    after a deleted one linked to the nearest line before it that is kept (the lines read are left as they are)."""
    deleted = {
        entry["deleted_uuid"]
        for entry in entries
        if entry.get("type") == "tombstone" and isinstance(entry.get("deleted_uuid"), str)
    }
    if not deleted:
        return entries
    parent_of = {e["uuid"]: e.get("parentUuid") for e in entries if e.get("uuid") in deleted}

    def kept_parent(parent: Any) -> Any:
        seen: set[str] = set()
        while isinstance(parent, str) and parent in deleted and parent not in seen:
            seen.add(parent)
            parent = parent_of.get(parent)
        return parent

    kept = []
    for entry in entries:
        if entry.get("type") == "tombstone" or entry.get("uuid") in deleted:
            continue
        if entry.get("parentUuid") in deleted:
            entry = {**entry, "parentUuid": kept_parent(entry["parentUuid"])}
        kept.append(entry)
    return kept


def _rewind_mark(entry: dict[str, Any], standing: tuple[str | None] | None) -> tuple[str | None] | None:
    """Where a `last-prompt` line leaves the conversation, as Claude Code reads it: an explicit one (a rewind)
    names the leaf to resume from, null for none; a later plain one keeps that only if it names the same leaf."""
    target = entry.get("leafUuid")
    if entry.get("explicit") is True and (target is None or isinstance(target, str)):
        return (target,)
    return standing if standing is not None and standing[0] == target else None


def _newest_leaf(entries: list[dict[str, Any]], by_uuid: dict[str, int], referenced: set[str]) -> str | None:
    leaves = [uuid for uuid in by_uuid if uuid not in referenced]
    main = [uuid for uuid in leaves if not entries[by_uuid[uuid]].get("isSidechain")]
    return _newest(entries, by_uuid, main or leaves)  # a sub-agent's own file has only sidechain lines


def _newest(entries: list[dict[str, Any]], by_uuid: dict[str, int], uuids: list[str]) -> str | None:
    """The newest of `uuids` (main-chain ones first); with no leaf at all, every line is in a loop and the newest
    line is where the longest unbroken chain ends."""
    main = [uuid for uuid in uuids if not entries[by_uuid[uuid]].get("isSidechain")]
    candidates = main or uuids
    if not candidates:
        return None
    return max(candidates, key=lambda uuid: (str(entries[by_uuid[uuid]].get("timestamp", "")), by_uuid[uuid]))


def _walk(entries: list[dict[str, Any]], by_uuid: dict[str, int], leaf: str | None) -> tuple[list[int], bool]:
    """The chain from the root to `leaf` (line indices), and whether it had to be cut where it looped."""
    chain: list[int] = []
    seen: set[str] = set()
    current = leaf
    while current is not None and current in by_uuid:
        if current in seen:
            chain.reverse()
            return chain, True
        seen.add(current)
        index = by_uuid[current]
        chain.append(index)
        entry = entries[index]
        if entry.get("type") == "system" and entry.get("subtype") == "compact_boundary":
            chain.reverse()  # compaction starts the conversation afresh (with the turns it kept, if it kept any)
            return _with_preserved(chain, entry, entries, by_uuid), False
        parent = entry.get("parentUuid")
        current = parent if isinstance(parent, str) else None
    chain.reverse()
    return chain, False


def _with_preserved(
    chain: list[int], boundary: dict[str, Any], entries: list[dict[str, Any]], by_uuid: dict[str, int]
) -> list[int]:
    """Claude Code 2.1 keeps the recent turns of a compaction where they were written: its boundary names them
    (`preservedSegment`: from `headUuid` to `tailUuid`, read after the summary line `anchorUuid`). They are
    spliced in after the anchor, as Claude Code reads them."""
    segment = (boundary.get("compactMetadata") or {}).get("preservedSegment")
    if not isinstance(segment, dict):
        return chain
    head, anchor, tail = segment.get("headUuid"), segment.get("anchorUuid"), segment.get("tailUuid")
    if not all(isinstance(u, str) and u in by_uuid for u in (head, anchor, tail)):
        return chain
    preserved: list[int] = []
    current: Any = tail
    while isinstance(current, str) and current in by_uuid and len(preserved) <= len(entries):
        preserved.append(by_uuid[current])
        if current == head:
            break
        current = entries[by_uuid[current]].get("parentUuid")
    else:
        return chain  # (the segment does not lead back to its head: read nothing rather than a wrong turn)
    preserved.reverse()
    at = chain.index(by_uuid[str(anchor)]) + 1 if by_uuid[str(anchor)] in chain else len(chain)
    return [*chain[:at], *preserved, *chain[at:]]


def _content(entry: dict[str, Any]) -> Any:
    message = entry.get("message")
    return message.get("content") if isinstance(message, dict) else None


CURRENT_NAMES = {"Task": "Agent"}
"""Calls of tools Claude Code 2.1 renamed, as it sends them back to the model after loading an older session."""


def _blocks(raw: Any) -> list[ContentBlock]:
    """Content in the Messages API's shapes; block types we cannot send back (documents, server tools) dropped."""
    if isinstance(raw, str):
        return [TextBlock(text=raw)] if raw else []
    if not isinstance(raw, list):
        return []
    blocks: list[ContentBlock] = []
    adapter = _block_adapter()
    for item in raw:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "tool_use" and item.get("name") in CURRENT_NAMES:
            item = {**item, "name": CURRENT_NAMES[item["name"]]}
        try:
            blocks.append(adapter.validate_python(item))
        except ValidationError:
            if item.get("type") == "tool_result":
                blocks.append(_loose_result(item))
    return blocks


def _signed(blocks: list[ContentBlock], signature: object) -> list[ContentBlock]:
    """A line's one block with the Gemini thought signature the line keeps beside it put back on."""
    if not isinstance(signature, str) or not signature or len(blocks) != 1:
        return blocks
    block = blocks[0]
    if isinstance(block, TextBlock | ThinkingBlock | ToolUseBlock):
        return [block.model_copy(update={"thought_signature": signature})]
    return blocks


def _loose_result(item: dict[str, Any]) -> ToolResultBlock:
    """A tool result whose content holds blocks we do not model: keep its text."""
    content = item.get("content")
    if isinstance(content, list):
        text = "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict) and "text" in part)
    else:
        text = str(content or "")
    return ToolResultBlock(
        tool_use_id=str(item.get("tool_use_id", "")), content=text, is_error=bool(item.get("is_error"))
    )


def _usage(message: dict[str, Any]) -> Usage | None:
    raw = message.get("usage")
    if not isinstance(raw, dict):
        return None
    return Usage(**{key: raw[key] for key in Usage.model_fields if isinstance(raw.get(key), int)})


def _rebuild(entries: list[dict[str, Any]], path: list[int], sidechain: bool) -> tuple[list[Message], set[int]]:
    """The messages of the chain `path` (line numbers, root first), and every line they were read from."""
    return _Rebuild(entries, sidechain).run(path)


class _Rebuild:
    """One chain's messages from its lines: an assistant message written over several lines (one per block) is
    joined again, and each tool call gets its result from wherever it was written (a parallel call's may come
    later, or on a line beside the chain); a call that never got one is dropped."""

    def __init__(self, entries: list[dict[str, Any]], sidechain: bool) -> None:
        self.entries, self.sidechain = entries, sidechain
        self.parsed: dict[int, list[ContentBlock]] = {}
        self.lines_of: dict[str, list[int]] = {}
        """An assistant message's lines, by its id."""
        self.result_of: dict[str, tuple[ToolResultBlock, int]] = {}
        """Every tool result written, and its line, by the call's id."""
        self.messages: list[Message] = []
        self.used: set[int] = set()
        self.pending: list[str] = []
        """The calls of the open assistant message, waiting for their results."""
        self.answered: dict[str, tuple[ToolResultBlock, int]] = {}
        self.emitted: set[str] = set()
        self.open_assistant: int | None = None
        self.loose: list[dict[str, Any]] = []
        """Listings written after the open message's calls: they go with its results."""

    def blocks_of(self, index: int) -> list[ContentBlock]:  # each line's content is validated once
        if index not in self.parsed:
            entry = self.entries[index]
            self.parsed[index] = _signed(_blocks(_content(entry)), entry.get(THOUGHT_SIGNATURE_KEY))
        return self.parsed[index]

    def run(self, path: list[int]) -> tuple[list[Message], set[int]]:
        self.used = set(path)
        self._index(path[0] if path else 0)  # (lines before the chain's root, a compact boundary, it replaced)
        for index in path:
            entry = self.entries[index]
            kind = entry.get("type")
            if kind == "assistant" and isinstance(entry.get("message"), dict):
                self._assistant(index, entry)
            elif kind == "user":
                self._user(index)
            elif kind == "attachment" and _listing(found := entry.get("attachment")):
                self._attachment(found)
        self._flush()
        return _tidy(self.messages), self.used

    def _index(self, first: int) -> None:
        for index, entry in enumerate(self.entries[first:], start=first):
            if bool(entry.get("isSidechain")) != self.sidechain:
                continue
            kind = entry.get("type")
            if kind == "assistant" and isinstance(entry.get("message"), dict):
                self.lines_of.setdefault(str(entry["message"].get("id") or entry.get("uuid")), []).append(index)
            elif (
                kind == "user"
                and isinstance(_content(entry), list)
                and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in _content(entry))
            ):
                for block in self.blocks_of(index):
                    if isinstance(block, ToolResultBlock):
                        self.result_of.setdefault(block.tool_use_id, (block, index))

    def _assistant(self, index: int, entry: dict[str, Any]) -> None:
        message_id = str(entry["message"].get("id") or entry.get("uuid"))
        if message_id in self.emitted:
            return
        self._flush()
        self.emitted.add(message_id)
        lines = self.lines_of.get(message_id, [index])
        self.used.update(lines)
        blocks: list[ContentBlock] = []
        seen_calls: set[str] = set()
        for line in lines:
            for block in self.blocks_of(line):
                if isinstance(block, ToolUseBlock):
                    if block.id in seen_calls:
                        continue
                    seen_calls.add(block.id)
                blocks.append(block)
        last = self.entries[lines[-1]]["message"]
        self.messages.append(
            Message(role="assistant", content=blocks, id=message_id, model=last.get("model"), usage=_usage(last))
        )
        self.open_assistant = len(self.messages) - 1
        self.pending[:] = [b.id for b in blocks if isinstance(b, ToolUseBlock)]

    def _user(self, index: int) -> None:
        blocks = self.blocks_of(index)
        for block in blocks:
            if isinstance(block, ToolResultBlock) and block.tool_use_id in self.pending:
                self.answered.setdefault(block.tool_use_id, (block, index))
        rest = [b for b in blocks if not isinstance(b, ToolResultBlock)]
        if rest:
            self._flush()
            self.messages.append(Message(role="user", content=rest, meta=bool(self.entries[index].get("isMeta"))))

    def _attachment(self, attachment: dict[str, Any]) -> None:
        """A listing goes with the user message it follows (a prompt, or the results of the open message's calls);
        one after an answer, with nothing of the person's to go with, is left out."""
        if self.open_assistant is not None:
            self.loose.append(attachment)
        elif self.messages and self.messages[-1].role == "user":
            last = self.messages[-1]
            self.messages[-1] = last.model_copy(update={"attachments": (*last.attachments, attachment)})

    def _flush(self) -> None:
        """The open assistant message is complete: its calls' results follow it, and calls without one go."""
        if self.open_assistant is None:
            return
        placed: list[tuple[int, ToolResultBlock]] = []
        dangling = set()
        for call_id in self.pending:
            found = self.answered.get(call_id) or self.result_of.get(call_id)
            if found is None:
                dangling.add(call_id)
            else:
                self.used.add(found[1])
                placed.append((found[1], found[0]))
        # (in the order they were written, as Claude Code reads them: parallel calls end in any order)
        results = [block for _, block in sorted(placed, key=lambda item: item[0])]
        if dangling:
            old = self.messages[self.open_assistant]
            kept = [b for b in old.content if not (isinstance(b, ToolUseBlock) and b.id in dangling)]
            self.messages[self.open_assistant] = old.model_copy(update={"content": kept})
        if results:
            self.messages.append(Message(role="user", content=results, attachments=tuple(self.loose)))
        self.loose.clear()
        self.pending.clear()
        self.answered.clear()
        self.open_assistant = None


def _listing(attachment: object) -> TypeGuard[dict[str, Any]]:
    """Whether an `attachment` line's content is a listing the request sends (the others are Claude Code's own)."""
    return isinstance(attachment, dict) and attachment.get("type") in LISTINGS


def _tidy(messages: list[Message]) -> list[Message]:
    """Drop assistant messages left with nothing to send (empty, or thinking only), and start with the user."""
    kept = []
    for message in messages:
        if message.role == "assistant" and all(
            isinstance(b, (ThinkingBlock, RedactedThinkingBlock)) or (isinstance(b, TextBlock) and not b.text)
            for b in message.content
        ):
            continue
        kept.append(message)
    if kept and kept[0].role == "assistant":
        kept.insert(0, Message.user(RESUME_PLACEHOLDER))
    return kept
