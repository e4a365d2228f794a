"""`@path` in a person's prompt, read as Claude Code reads it: each file named goes with the prompt as the Read tool
gives it, a directory as its listing, so the model need not ask for them. Only what the permission rules let Read
read without a question is attached: a deny rule still wins, and a file outside the project (or one an ask rule
covers) is left to the model's Read, which asks. What is not attached says why in one sentence, to the person and
the model. Only the person's own prompts are read this way: a sub-agent's prompt is the model's words."""

from __future__ import annotations

import json
import os
import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentui.core.messages import ImageBlock, TextBlock, ToolUseBlock
from agentui.core.safety.permissions import PermissionGate
from agentui.core.tools.base import ToolContext, ToolRegistry

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
        args = read.Args.model_validate({"file_path": str(path)})
        call = ToolUseBlock(id=f"mention_{uuid.uuid4().hex[:12]}", name=read.name, input={"file_path": str(path)})
        verdict = gate.check(read, args, call)
        shown = _shown(path, cwd)
        if verdict.behavior != "allow":
            # (a question is not taken as answered by the @: the text may be a project's custom command, not the
            # person's words, and a file outside the project or one a rule asks for is read only after a yes)
            said = f"@{shown} was not attached: {_lower_first(verdict.reason)}"
            if verdict.behavior == "ask":
                said += "; the model's Read of it asks first"
            attached.notices.append(said + ".")
            attached.blocks.append(TextBlock(text=_reminder(said + ".")))
        elif path.is_dir():
            attached.blocks += _listing(path)
        else:
            ctx = ToolContext(cwd=cwd, session_id="", tool_call_id=call.id, checked_path=verdict.path)
            result = await read.run(args, ctx)
            called = {"file_path": str(path)}
            attached.blocks.append(
                TextBlock(text=_reminder(f"Called the Read tool with the following input: {_json(called)}"))
            )
            if result.is_error:
                text = result.content if isinstance(result.content, str) else "it could not be read"
                attached.notices.append(f"@{shown} was not attached: {_first_sentence(text)}")
                attached.blocks.append(TextBlock(text=_reminder(f"Result of calling the Read tool: {text}")))
            elif isinstance(result.content, str):
                attached.blocks.append(TextBlock(text=_reminder(f"Result of calling the Read tool:\n{result.content}")))
            else:  # (an image, a PDF's pages: the blocks themselves)
                attached.blocks.append(TextBlock(text=_reminder("Result of calling the Read tool:")))
                attached.blocks += [b for b in result.content if isinstance(b, TextBlock | ImageBlock)]
    return attached


def _listing(path: Path) -> list[TextBlock]:
    """A directory as `ls` lists it (Claude Code attaches a directory as an `ls` of it)."""
    try:
        names = sorted(entry.name for entry in os.scandir(path) if not entry.name.startswith("."))
    except OSError as exc:
        names = [f"(the directory could not be listed: {exc.strerror or exc})"]
    more = len(names) - MAX_LISTED
    listed = "\n".join(names[:MAX_LISTED]) + (f"\n… and {more} more" if more > 0 else "")
    called: dict[str, Any] = {"command": f"ls {path}", "description": f"Lists files in {path}"}
    return [
        TextBlock(text=_reminder(f"Called the Bash tool with the following input: {_json(called)}")),
        TextBlock(text=_reminder(f"Result of calling the Bash tool:\n{listed}")),
    ]


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
