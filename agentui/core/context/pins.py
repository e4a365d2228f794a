"""Messages the person pinned: carried verbatim past every compaction. Claude Code's session format has no place for
them, so they are kept in agentui's state directory, one file per session, keyed by the message's uuid."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from agentui.core.dirs import state_dir
from agentui.core.session.redact import redact_text


class Pin(BaseModel):
    model_config = ConfigDict(frozen=True)

    uuid: str
    """The session line pinned."""
    text: str
    """What is carried: the prompt as typed, or a tool result with the call it answers."""
    tool_call_id: str | None = None
    """The call whose result it is (None: a prompt), for the app to mark its block."""


class PinnedFile(BaseModel):
    pins: list[Pin] = []
    unpinned: list[str] = []
    """Texts unpinned: a summary made while they were pinned carries them no more."""


RESULT_CHARS = 20_000
"""How much of a pinned tool result is carried (a prompt is carried whole)."""


_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
LOCK_SECONDS = 10.0
"""How long a pin waits for another process pinning in the same session (a pin takes milliseconds)."""


def pins_path(session_id: str, env: Mapping[str, str] | None = None) -> Path:
    # (a resumed file's own sessionId names its session, and may be anything: one that is not a plain name is hashed,
    # so the file stays in the pins directory)
    name = session_id if _SAFE_ID.fullmatch(session_id) else "id-" + hashlib.sha256(session_id.encode()).hexdigest()
    return state_dir(env) / "pins" / f"{name}.json"


def load_pins(session_id: str) -> tuple[list[Pin], str | None]:
    """The session's pins, and a sentence when the file could not be read (then there are none)."""
    path = pins_path(session_id)
    try:
        return _read(path), None
    except (OSError, ValueError, ValidationError):
        return [], f"The pinned messages in {path} could not be read, so none are carried; pin them again."


def unpinned(session_id: str) -> frozenset[str]:
    """The texts the person unpinned in this session (an earlier summary may still carry them)."""
    try:
        return frozenset(_file(pins_path(session_id)).unpinned)
    except (OSError, ValueError, ValidationError):
        return frozenset()


def _file(path: Path) -> PinnedFile:
    try:
        return PinnedFile.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        return PinnedFile()


def _read(path: Path) -> list[Pin]:
    return _file(path).pins


def _save(path: Path, pinned: PinnedFile) -> None:
    temporary = path.with_name(f".{path.stem}.{os.getpid()}.{secrets.token_hex(8)}.tmp")
    # (a new file of the person's alone, never through a link planted at its name; renamed over: whole or not at all)
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(pinned.model_dump_json())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """The session's pins to one process at a time (two pinning at once would each write over the other's pin)."""
    from agentui.core.file_lock import LockBusyError, locked

    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        with locked(path.with_suffix(".lock"), wait=LOCK_SECONDS):
            yield
    except LockBusyError:
        raise OSError(f"another agentui kept {path} busy for {LOCK_SECONDS:.0f} s") from None


def toggle_pin(
    session_id: str, session_file: Path, *, prompt: str | None = None, tool_call_id: str | None = None
) -> bool:
    """Pin the newest line of the session holding `prompt` (as typed) or the result of `tool_call_id`, or unpin it if
    it was pinned. True when it is pinned now; LookupError when the session has no such line (yet), or when the pin
    file was corrupt (it is set aside, never written over)."""
    found = _find(session_file, prompt, tool_call_id)
    if found is None:
        raise LookupError("That message is not in the session file yet; pin it once it has been answered.")
    path = pins_path(session_id)
    with _locked(path):
        try:
            now = _file(path)
        except (ValueError, ValidationError):
            kept = path.with_name(f"{path.stem}.{time.time_ns()}.corrupt")
            os.replace(path, kept)
            raise LookupError(
                f"The pinned messages in {path} could not be read; it was kept as {kept}, and a new file is begun: "
                "pin it again."
            ) from None
        uuid, text = found
        others = [text_ for text_ in now.unpinned if text_ != text]
        if any(pin.uuid == uuid for pin in now.pins):
            _save(path, PinnedFile(pins=[pin for pin in now.pins if pin.uuid != uuid], unpinned=[*others, text]))
            return False
        _save(path, PinnedFile(pins=[*now.pins, Pin(uuid=uuid, text=text, tool_call_id=tool_call_id)], unpinned=others))
        return True


def pinned_marks(session_id: str) -> tuple[frozenset[str], frozenset[str]]:
    """What the app marks as pinned when it draws a resumed session: the prompts' texts and the tool calls' ids."""
    pins, _ = load_pins(session_id)
    prompts = frozenset(pin.text for pin in pins if pin.tool_call_id is None)
    return prompts, frozenset(pin.tool_call_id for pin in pins if pin.tool_call_id is not None)


def is_pinned(
    session_id: str, session_file: Path, *, prompt: str | None = None, tool_call_id: str | None = None
) -> bool:
    found = _find(session_file, prompt, tool_call_id)
    return found is not None and any(pin.uuid == found[0] for pin in load_pins(session_id)[0])


def _lines(session_file: Path, needle: str) -> list[dict[str, Any]]:
    """The session's lines that may hold `needle` (only those are parsed: a long session has many thousands)."""
    entries = []
    try:
        with session_file.open(encoding="utf-8", errors="replace") as lines:
            for line in lines:
                if needle not in line:
                    continue
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue  # (a torn or corrupt line: readers skip it)
                if isinstance(entry, dict) and isinstance(entry.get("message"), dict):
                    entries.append(entry)
    except OSError:
        return []
    return entries


def _blocks(entry: dict[str, Any]) -> list[dict[str, Any]]:
    content = entry["message"].get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [block for block in content or [] if isinstance(block, dict)]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if isinstance(b, dict))


def _find(session_file: Path, prompt: str | None, tool_call_id: str | None) -> tuple[str, str] | None:
    # (the prompt's start as JSON writes it, or the call's id, is in every line that can match)
    needle = tool_call_id if tool_call_id is not None else json.dumps(prompt or "", ensure_ascii=False)[1:41]
    entries = _lines(session_file, needle)
    for entry in reversed(entries):
        if entry.get("type") != "user" or not isinstance(entry.get("uuid"), str):
            continue
        blocks = _blocks(entry)
        typed = prompt is not None and any(block.get("type") == "text" for block in blocks)  # (not results alone)
        if typed and _text(blocks) == prompt and not entry.get("isCompactSummary"):
            return entry["uuid"], prompt
        for block in blocks:
            if (
                tool_call_id is not None
                and block.get("type") == "tool_result"
                and block.get("tool_use_id") == tool_call_id
            ):
                # (redacted as agentui's own session file has it: a Claude Code session's results are as they were)
                text = f"{_call(entries, tool_call_id)} returned:\n{_capped(_text(block.get('content')))}"
                return entry["uuid"], redact_text(text)
    return None


def _capped(text: str) -> str:
    """A pinned result is carried in every summary: a huge one is kept to its start, so a summary always fits."""
    if len(text) <= RESULT_CHARS:
        return text
    return f"{text[:RESULT_CHARS]}\n[… {len(text) - RESULT_CHARS:,} more characters were not pinned]"


def _call(entries: list[dict[str, Any]], tool_call_id: str) -> str:
    for entry in entries:
        for block in _blocks(entry):
            if block.get("type") == "tool_use" and block.get("id") == tool_call_id:
                arguments = json.dumps(block.get("input"), ensure_ascii=False)
                return f"{block.get('name')}({arguments})"
    return "A tool call"
