"""`@path` in a person's prompt, read as Claude Code reads it: each file named goes with the prompt as the Read tool
gives it, a directory as its listing, so the model need not ask for them. Only what the permission rules let Read
read without a question is attached: a deny rule still wins, and a file outside the project (or one an ask rule
covers) is left to the model's Read, which asks. What is not attached says why in one sentence, to the person and
the model. Only the person's own prompts are read this way: a sub-agent's prompt is the model's words."""

from __future__ import annotations

import json
import logging
import os
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentui.core.messages import ImageBlock, TextBlock, ToolUseBlock
from agentui.core.no_links import open_no_links
from agentui.core.safety.permissions import PermissionGate, Verdict
from agentui.core.tools.base import Tool, ToolContext, ToolRegistry

log = logging.getLogger(__name__)

MENTION = re.compile(r'(?:^|(?<=\s))@(?:"([^"\n]+)"|(\S+))')
"""`@path` or `@"a path with spaces"`, at the start or after a space (so `me@example.com` is no mention)."""
_TRAILING = ",.;:!?)]}'\""
MAX_MENTIONS = 20
MAX_LISTED = 500


@dataclass
class Attachments:
    blocks: list[TextBlock | ImageBlock] = field(default_factory=list)
    """What goes with the prompt, after its text, for the model."""
    notices: list[str] = field(default_factory=list)
    """One sentence each for the person: what was named and not attached, and why."""


def mentioned(prompt: str, cwd: Path) -> list[Path]:
    """The paths `prompt` names with `@` that exist, in order, each once (a word that names no file is left as
    typed: `@someone`, `@param`)."""
    found: list[Path] = []
    for match in MENTION.finditer(prompt):
        quoted, word = match.groups()
        for candidate in [quoted] if quoted else [word, word.rstrip(_TRAILING)]:
            if not candidate:
                continue
            path = Path(os.path.abspath(cwd / Path(candidate).expanduser()))
            if os.path.lexists(path):
                if path not in found:
                    found.append(path)
                break
        if len(found) >= MAX_MENTIONS:
            break
    return found


async def attach_mentions(prompt: str, cwd: Path, tools: ToolRegistry, gate: PermissionGate) -> Attachments:
    attached = Attachments()
    read = tools.get("Read")
    if read is None or "@" not in prompt:
        return attached
    for path in mentioned(prompt, cwd):
        shown = _shown(path, cwd)
        try:
            await _attach(path, shown, cwd, read, gate, attached)
        except Exception as exc:  # (an odd file must never cost the prompt: it goes, without this file)
            log.warning("@%s could not be attached", path, exc_info=True)
            _refuse(attached, f"@{shown} was not attached: it could not be read ({_why(exc)})")
    return attached


async def _attach(path: Path, shown: str, cwd: Path, read: Tool[Any], gate: PermissionGate, into: Attachments) -> None:
    args = read.Args.model_validate({"file_path": str(path)})
    verdict = gate.check(read, args, _call(read, path))
    if verdict.behavior != "allow":
        # (a question is not taken as answered by the @: the text may be a project's custom command, not the person's
        # words, and a file outside the project or one a rule asks for is read only after a yes)
        said = f"@{shown} was not attached: {_lower_first(verdict.reason)}"
        _refuse(into, said + ("; the model's Read of it asks first" if verdict.behavior == "ask" else ""))
        return
    real = verdict.path or Path(os.path.realpath(path))  # (what was checked is what is read or listed)
    if os.path.isdir(real):
        into.blocks += _listing(real, lambda name: gate.check(read, _args(read, real / name), _call(read, real / name)))
        return
    ctx = ToolContext(cwd=cwd, session_id="", tool_call_id="mention", checked_path=real)
    result = await read.run(args, ctx)
    called = {"file_path": str(path)}
    into.blocks.append(TextBlock(text=_reminder(f"Called the Read tool with the following input: {_json(called)}")))
    if result.is_error:
        text = result.content if isinstance(result.content, str) else "it could not be read"
        into.notices.append(f"@{shown} was not attached: {_first_sentence(text)}")
        into.blocks.append(TextBlock(text=_reminder(f"Result of calling the Read tool: {text}")))
    elif isinstance(result.content, str):
        into.blocks.append(TextBlock(text=_reminder(f"Result of calling the Read tool:\n{result.content}")))
    else:  # (an image, a PDF's pages: the blocks themselves)
        into.blocks.append(TextBlock(text=_reminder("Result of calling the Read tool:")))
        into.blocks += [b for b in result.content if isinstance(b, TextBlock | ImageBlock)]


def _refuse(into: Attachments, said: str) -> None:
    into.notices.append(said + ".")
    into.blocks.append(TextBlock(text=_reminder(said + ".")))


def _args(read: Tool[Any], path: Path) -> Any:
    return read.Args.model_validate({"file_path": str(path)})


def _call(read: Tool[Any], path: Path) -> ToolUseBlock:
    return ToolUseBlock(id=f"mention_{uuid.uuid4().hex[:12]}", name=read.name, input={"file_path": str(path)})


def _listing(real: Path, verdict: Callable[[str], Verdict]) -> list[TextBlock]:
    """A directory as `ls` lists it (Claude Code attaches a directory as an `ls` of it): read through a descriptor
    of the checked path (a link swapped in meanwhile is not followed), without the names a deny rule covers (as
    Glob leaves them out), and nothing at all when a deny rule covers all it holds."""
    try:
        descriptor = open_no_links(real, os.O_RDONLY | os.O_DIRECTORY)
        try:
            names = sorted(name for name in os.listdir(descriptor) if not name.startswith("."))
        finally:
            os.close(descriptor)
    except OSError as exc:
        names, note = [], f"(the directory could not be listed: {_why(exc)})"
    else:
        note = ""
    shown = [name for name in names[:MAX_LISTED] if verdict(name).behavior != "deny"]
    if names and not shown:
        note = "(a deny rule covers what it holds; its names are not listed)"
    more = len(names) - MAX_LISTED
    listed = "\n".join([*shown, *([note] if note else [])]) + (f"\n… and {more} more" if more > 0 else "")
    called: dict[str, Any] = {"command": f"ls {real}", "description": f"Lists files in {real}"}
    return [
        TextBlock(text=_reminder(f"Called the Bash tool with the following input: {_json(called)}")),
        TextBlock(text=_reminder(f"Result of calling the Bash tool:\n{listed}")),
    ]


def _why(exc: BaseException) -> str:
    return (exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__).lower()


def _reminder(text: str) -> str:
    return f"<system-reminder>\n{text}\n</system-reminder>"


def _json(value: dict[str, Any]) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _shown(path: Path, cwd: Path) -> str:
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return str(path)


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _first_sentence(text: str) -> str:
    line = (text.strip().splitlines() or [""])[0]
    return line if line.endswith(".") else line + "."
