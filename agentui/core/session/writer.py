"""The session writer: a run's messages, tool results and notable events appended to the session file as they
happen, in Claude Code's JSONL format, so Claude Code and its readers can open agentui's sessions. Secrets in
what tools and the model produced are redacted first; the person's own prompts are kept as typed.

Each line is one `write()` of the whole line on an O_APPEND descriptor (no buffering), and the file is fsynced at
the end of every turn. A line cut short by a crash is skipped by readers, and the next writer starts on a fresh
line. One writer per session: a second agentui opening the same session is refused while the first holds its lock
(an flock on the session file itself, so nothing is left behind).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import random
import stat
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from agentui import __version__
from agentui.core.errors import AgentuiError
from agentui.core.escapes import scrub
from agentui.core.events import (
    AgentEnd,
    AgentStart,
    CompactionEnd,
    CompactionStart,
    Error,
    Event,
    EventBus,
    LimitWait,
    MessageEnd,
    MessageStart,
    Notice,
    ToolEnd,
    TurnEnd,
    UserMessage,
)
from agentui.core.messages import (
    ContentBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from agentui.core.session.file_history import FileHistory
from agentui.core.session.limit_record import limit_wait_fields
from agentui.core.session.reader import THOUGHT_SIGNATURE_KEY
from agentui.core.session.redact import redact, redact_text

RECENT_DETAILS = 500

INTERRUPTED_SOURCES = {"interrupt"}
TITLE_LENGTH = 80


ENTRYPOINT = os.environ.get("CLAUDE_CODE_ENTRYPOINT") or "cli"
"""How the session was started, as Claude Code records it: "cli" for agentui's app and print mode (Claude Code's
picker lists those), or what an Agent SDK program says of itself (sdk-py, sdk-ts: the picker hides those)."""


class SessionLockedError(AgentuiError):
    """Another agentui is writing this session."""


_second: list[Any] = [None, ""]
"""The last whole second formatted, and its text: most lines of a run share their second with the one before."""


def timestamp() -> str:
    """Now in UTC as Claude Code writes it, `2025-07-13T21:17:52.979Z` (a fifth of what datetime costs)."""
    now = time.time()
    second = int(now)
    if second != _second[0]:
        _second[0], _second[1] = second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
    return f"{_second[1]}.{int((now - second) * 1000):03d}Z"


def line_uuid() -> str:
    """A random (version 4) UUID for a line. Lines only need unique ids, so the fast generator will do: a third of
    what `uuid.uuid4()` costs, which reads the OS's entropy for every line."""
    digits = f"{random.getrandbits(128):032x}"
    return (
        f"{digits[:8]}-{digits[8:12]}-4{digits[13:16]}-{'89ab'[int(digits[16], 16) & 3]}{digits[17:20]}-{digits[20:]}"
    )


def block_json(block: ContentBlock) -> dict[str, Any]:
    data = block.model_dump(mode="json", exclude_none=True)
    if isinstance(block, ToolUseBlock):
        data.pop("input_error", None)
    return data


def _redacted(block: ContentBlock) -> dict[str, Any]:
    """An assistant's block with secrets' shapes redacted, but for a thinking block's signature: opaque ciphertext
    (OpenAI's encrypted reasoning is urlsafe base64 and now and then holds "sk-" and twenty letters), which cannot be
    sent back changed. Gemini's thought signature is left out: it goes on the line beside the message."""
    data = block_json(block)
    data.pop("thought_signature", None)  # (the Messages API rejects a block with a field it does not know)
    data = dict(redact(data))
    if isinstance(block, ThinkingBlock):
        data["signature"] = block.signature
    return data


def title_from(prompt: str) -> str:
    first = " ".join(next((line for line in prompt.splitlines() if line.strip()), "").split())
    return first if len(first) <= TITLE_LENGTH else first[: TITLE_LENGTH - 1] + "…"


class SessionWriter:
    def __init__(
        self,
        path: Path,
        session_id: str,
        cwd: Path,
        *,
        parent_uuid: str | None = None,
        git_branch: str = "",
        titled: bool = False,
        on_error: Callable[[str], object] = lambda message: None,
        sidechain: bool = False,
        agent_id: str | None = None,
        history: FileHistory | None = None,
    ) -> None:
        self.path = path
        self.session_id = session_id
        self.cwd = str(cwd)
        self.git_branch = git_branch
        self.last_uuid = parent_uuid
        self._titled = titled or sidechain  # (a sub-agent's transcript has no title line)
        self.sidechain = sidechain
        self.agent_id = agent_id
        """A sub-agent's transcript: lines marked `isSidechain` and carrying its `agentId`, as Claude Code's."""
        self.on_error = on_error
        self.history = history
        """Backups of the files changed, and the snapshot lines naming them (Claude Code's file history)."""
        self._failed = False
        self._request_id: str | None = None
        self._loop: dict[str, str] = {}
        """The run's loop ids, which its lines carry as keys of their own (`loopId`, `parentLoopId`; Claude Code
        reads past keys it does not know)."""
        self._prompt_id: str | None = None
        """The prompt being answered, which every user line of its run carries (Claude Code 2.1's promptId)."""
        self._tool_lines: dict[str, str] = {}
        self._tool_names: dict[str, str] = {}
        self._recent_details: OrderedDict[str, Any] = OrderedDict()
        """The `toolUseResult` of the latest tool results, for writing them again after a compaction (which keeps
        only recent turns); bounded, so a long session does not hold every result's details."""
        self._first_prompt: str | None = None
        self._compaction: CompactionStart | None = None
        self._fd = -1
        if path.exists():  # resuming: take the lock now, so a second agentui is refused before it starts
            self._open()

    def _open(self) -> None:
        """Open (creating it with the first line of a new session, so an empty run leaves no file) and lock."""
        path, session_id = self.path, self.session_id
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)  # (another agentui may make it as we look)
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released by the kernel if this process dies
        except OSError as exc:
            os.close(descriptor)  # (and its number forgotten: the next file opened may reuse it)
            if exc.errno in (errno.EAGAIN, errno.EACCES):
                raise SessionLockedError(
                    f"Session {session_id} is open in another agentui; add --fork-session to continue it as a new "
                    "session."
                ) from None
            raise
        self._fd = descriptor
        if stat.S_IMODE(os.fstat(self._fd).st_mode) != 0o600:
            os.fchmod(self._fd, 0o600)  # a session copied in with looser permissions is private again
        self._start_on_fresh_line()

    def _start_on_fresh_line(self) -> None:
        """After a crash the file may end mid-line: that line stays unreadable, but ours must not join it."""
        size = os.fstat(self._fd).st_size
        if size:
            with open(self.path, "rb") as handle:
                handle.seek(size - 1)
                if handle.read(1) != b"\n":
                    self._write_bytes(b"\n")

    # Wiring

    def attach(self, bus: EventBus) -> Callable[[], None]:
        return bus.on(self.handle)

    def handle(self, event: Event) -> None:
        if self._failed:
            return
        try:
            self._dispatch(event)
        except OSError as exc:
            self._failed = True
            self.on_error(
                f"The session could not be saved to {self.path} ({exc.strerror or exc}); "
                "the conversation goes on unsaved."
            )

    def _dispatch(self, event: Event) -> None:
        if event.loop_id is not None or event.session_id != self.session_id:
            return  # a parallel attempt's (its own transcript has it, and the main chain only once it is chosen), or
            # a branch's first run, forked from this session and seen by who watches it (see `core.continuation`)
        match event:
            case AgentStart(run_loop_id=loop_id, parent_loop_id=parent):
                self._loop = {"loopId": loop_id} if loop_id else {}
                self._loop |= {"parentLoopId": parent} if parent else {}
            case UserMessage():
                self._prompt_id = event.prompt_id or self._prompt_id
                self._user(event.message, event.source)
            case MessageStart():
                self._request_id = event.request_id
            case MessageEnd():
                self._assistant(event.message)
            case ToolEnd():
                self._tool_result(event)
            case Error():
                self._system(redact_text(event.message), level="error", subtype="api_error")
            case Notice():
                self._system(event.message, level=event.level, subtype="notice")
            case LimitWait():  # (on disk at once: a crash during the wait leaves it pending, see `limit_resume`)
                self._chain("system", **limit_wait_fields(event))
                self._sync()
            case CompactionStart():
                self._compaction = event
            case CompactionEnd():
                self._compacted(event)
            case TurnEnd():
                self._sync()
            case AgentEnd():
                self._title()
                self._sync()
                self._loop = {}
            case _:  # deltas, tool starts and progress, questions, usage: the finished lines carry what is kept
                pass

    # Lines

    def _user(self, message: Message, source: str) -> None:
        blocks = message.content
        if source in INTERRUPTED_SOURCES or len(blocks) != 1 or not isinstance(blocks[0], TextBlock):
            content: Any = [block_json(block) for block in blocks]
        else:
            content = blocks[0].text  # a typed prompt is stored as a plain string, as Claude Code does
        prompt_uuid = line_uuid()
        if source == "prompt" and self.history is not None:
            self._history_line(lambda history: history.at_prompt(prompt_uuid))
        self._chain("user", new_uuid=prompt_uuid, message={"role": "user", "content": content})
        for attachment in message.attachments:  # (after the prompt's line, as Claude Code writes its listings)
            self._chain("attachment", attachment=attachment)
        if source == "prompt":  # (what was typed: the first text, not the notes for the model after it)
            text = next((block.text for block in blocks if isinstance(block, TextBlock)), "")
            self._first_prompt = self._first_prompt or text
            self._line({"type": "last-prompt", "lastPrompt": text, "sessionId": self.session_id})

    def _assistant(self, message: Message) -> None:
        """One line per content block, sharing the message's id, request id, usage and stop reason."""
        message_id = message.id or f"msg_{uuid.uuid4().hex[:24]}"
        usage = message.usage.model_dump() if message.usage else {"input_tokens": 0, "output_tokens": 0}
        for block in message.content:
            fields: dict[str, Any] = {
                "message": {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": message.model or "",
                    "content": [_redacted(block)],
                    "stop_reason": message.stop_reason,
                    "stop_sequence": None,
                    "usage": usage,
                },
            }
            if self._request_id:
                fields["requestId"] = self._request_id
            if signature := getattr(block, "thought_signature", None):  # (model state, as opaque as a signature)
                fields[THOUGHT_SIGNATURE_KEY] = signature
            line_uuid = self._chain("assistant", **fields)
            if isinstance(block, ToolUseBlock):
                self._tool_lines[block.id] = line_uuid
                self._tool_names[block.id] = block.name

    def _tool_result(self, event: ToolEnd) -> None:
        name = self._tool_names.get(event.tool_call_id)
        self._result_line(event.tool_call_id, event.content, event.is_error, event.details)
        for text in event.context:  # (a skill's instructions: a line of their own after the result, as Claude Code's)
            content = [{"type": "text", "text": text}]
            self._chain("user", message={"role": "user", "content": content}, isMeta=True,
                        sourceToolUseID=event.tool_call_id)  # fmt: skip
        if name == "Skill" and not event.is_error:  # (what the skill allows while it runs, as Claude Code records it)
            allowed = event.details.get("allowedTools") or []
            self._chain("attachment", attachment={"type": "command_permissions", "allowedTools": allowed})

    def _result_line(self, tool_call_id: str, result: Any, is_error: bool, details: dict[str, Any] | None) -> None:
        content = redact(result if isinstance(result, str) else [block_json(b) for b in result])
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_call_id, "content": content}
        if is_error or self._tool_names.pop(tool_call_id, None) == "Bash":
            block["is_error"] = is_error  # (Claude Code 2.1 says so of every Bash result, failed or not)
        source = self._tool_lines.pop(tool_call_id, None)
        if is_error:  # as Claude Code: an error's toolUseResult is its text
            text = content if isinstance(content, str) else " ".join(b.get("text", "") for b in content)
            use_result: Any = f"Error: {text}"
        else:
            use_result = redact(details) if details else content
        self._recent_details[tool_call_id] = use_result
        while len(self._recent_details) > RECENT_DETAILS:
            self._recent_details.popitem(last=False)
        fields: dict[str, Any] = {
            "message": {"role": "user", "content": [block]},
            "toolUseResult": use_result,
        }
        if source is not None:  # as Claude Code: a result hangs off the line holding its call
            fields["sourceToolAssistantUUID"] = source
        self._chain("user", parent=source or self.last_uuid, **fields)

    def _system(self, content: str, *, level: str, subtype: str) -> None:
        self._chain("system", subtype=subtype, content=content, level=level, isMeta=False)

    def _compacted(self, event: CompactionEnd) -> None:
        """As Claude Code: a boundary that starts a new chain (its logical parent is the old leaf), the summary, and
        then the messages compaction kept, written again so that resuming loads exactly what the model sees."""
        start = self._compaction
        boundary = self._chain(
            "system",
            parent=None,
            subtype="compact_boundary",
            content="Conversation compacted",
            level="info",
            isMeta=False,
            logicalParentUuid=self.last_uuid,
            compactMetadata={
                "trigger": start.trigger if start else "manual",
                "preTokens": start.pre_tokens if start else 0,
            },
        )
        self._chain(
            "user",
            parent=boundary,
            isCompactSummary=True,
            isVisibleInTranscriptOnly=True,
            message={"role": "user", "content": event.summary},
        )
        self._compaction = None
        self._request_id = None
        for message in event.kept:
            if message.role == "assistant":
                # Zero usage: usage readers must not count these tokens twice. A fresh message id: Claude Code
                # merges the lines of one id into one message, and would read the kept text twice with the old one.
                self._assistant(message.model_copy(update={"usage": Usage(), "id": None}))
            elif any(isinstance(block, ToolResultBlock) for block in message.content):
                # one line per result with its details, as first written: a resumed session shows the same blocks
                for block in message.content:
                    if isinstance(block, ToolResultBlock):
                        kept = self._recent_details.get(block.tool_use_id)
                        self._result_line(block.tool_use_id, block.content, block.is_error, kept)
                others = [b for b in message.content if not isinstance(b, ToolResultBlock)]
                if others:
                    self._chain("user", message={"role": "user", "content": redact([block_json(b) for b in others])})
            else:
                self._user(message, "context")
        self._tool_lines.clear()
        self._tool_names.clear()

    def recall_details(self, details: Mapping[str, Any]) -> None:
        """The toolUseResults a resumed session recorded, by call id: a compaction that writes those results again
        writes them whole, as it does the ones of this run."""
        for call_id, found in list(details.items())[-RECENT_DETAILS:]:
            self._recent_details[call_id] = found

    def rewound_to(self, leaf: str | None) -> None:
        """The conversation was rewound: from now on it goes on from the line `leaf` (None: from nothing). Written as
        Claude Code writes its own rewinds, so that a resume in either tool starts there even with nothing after."""
        mark = {"type": "last-prompt", "leafUuid": leaf, "explicit": True, "rewound": True}
        self._line({**mark, "sessionId": self.session_id})
        self.last_uuid = leaf

    def _title(self) -> None:
        if self._titled or not self._first_prompt or self.last_uuid is None:
            return
        self._titled = True
        self._line({"type": "summary", "summary": title_from(self._first_prompt), "leafUuid": self.last_uuid})

    def _sync(self) -> None:
        if self._fd >= 0:
            os.fsync(self._fd)

    def ai_title(self, title: str) -> None:
        """A title a model gave the session: Claude Code's `ai-title` line (a name the person gives still wins)."""
        self._line({"type": "ai-title", "aiTitle": title, "sessionId": self.session_id})

    def rename(self, title: str) -> None:
        """The person named the session: a `custom-title` line, which every reader prefers to the summary."""
        self._line({"type": "custom-title", "customTitle": title, "sessionId": self.session_id})

    def before_change(self, tool_call_id: str, path: Path) -> None:
        """A tool is about to change the file `path` (resolved): it is backed up first, the first time."""
        if self.history is not None and not self._failed:
            message = self._tool_lines.get(tool_call_id) or line_uuid()
            self._history_line(lambda history: history.before_change(path, message))

    def _history_line(self, make: Callable[[FileHistory], dict[str, Any] | None]) -> None:
        assert self.history is not None
        try:
            entry = make(self.history)
        except OSError as exc:  # the change goes ahead; only rewinding it will not be possible
            self.history = None
            self.on_error(
                f"File backups could not be saved ({exc.strerror or exc}); changes from now on cannot be rewound."
            )
            return
        if entry is not None:
            self._line(entry)

    def _chain(
        self, kind: str, *, parent: str | object | None = ..., new_uuid: str | None = None, **fields: Any
    ) -> str:
        new_uuid = new_uuid or line_uuid()
        entry = {  # (the envelope in Claude Code 2.1's order)
            "parentUuid": self.last_uuid if parent is ... else parent,
            "isSidechain": self.sidechain,
            **({"promptId": self._prompt_id} if kind == "user" and self._prompt_id else {}),
            **({"agentId": self.agent_id} if self.agent_id else {}),
            **({"attachment": fields.pop("attachment")} if kind == "attachment" else {}),
            "type": kind,
            **fields,
            **(self._loop if kind != "attachment" else {}),  # (after the line's own fields, before the envelope's
            # tail; an attachment line keeps exactly Claude Code's keys, as the listings' readers compare them)
            "uuid": new_uuid,
            "timestamp": timestamp(),
            "userType": "external",
            "entrypoint": ENTRYPOINT,
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": __version__,
            "gitBranch": self.git_branch,
        }
        self._line(entry)
        self.last_uuid = new_uuid
        return new_uuid

    def _line(self, entry: dict[str, Any]) -> None:
        text = json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate got this far: stored visibly, the file stays UTF-8
            data = json.dumps(scrub(entry), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        self._write_bytes(data + b"\n")

    def _write_bytes(self, data: bytes) -> None:
        if self._failed:
            return
        if self._fd < 0:
            try:
                self._open()
            except SessionLockedError:  # (a new session id another agentui took first: its file is not ours)
                self._failed = True
                self.on_error(
                    f"Session {self.session_id} was started by another agentui at the same time; this conversation "
                    "goes on unsaved."
                )
                return
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]

    def close(self) -> None:
        if self._fd < 0:
            return  # nothing was ever written
        with contextlib.suppress(OSError):
            os.fsync(self._fd)
        os.close(self._fd)  # and with it the lock
        self._fd = -1
