"""Rewind: back to before one of the person's prompts — the files agentui (or Claude Code) changed since, from the
session's file history, and the conversation, which goes on from there on a new branch of the same session file
(the tree Claude Code writes for a rewind; readers follow the newest branch)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentui.core.session.file_history import FileChange, RestoreError, file_history_dir, restore, restore_plan
from agentui.core.session.reader import load_branch, read_lines

if TYPE_CHECKING:
    from agentui.core.conversation import Conversation


class RewindError(Exception):
    """A rewind that cannot be done, in one sentence; nothing was changed."""


@dataclass(frozen=True)
class PromptPoint:
    """A prompt the conversation can be rewound to."""

    uuid: str
    text: str


@dataclass
class Rewound:
    prompt: str
    """The prompt gone back to (a front end puts it back in the input)."""
    changes: list[FileChange] = field(default_factory=list)
    """The files restored."""


def prompt_points(entries: list[dict[str, Any]]) -> list[PromptPoint]:
    """The person's typed prompts among a branch's lines, oldest first."""
    points = []
    for entry in entries:
        message = entry.get("message") or {}
        content = message.get("content") if isinstance(message, dict) else None
        if (
            entry.get("type") == "user"
            and isinstance(content, str)
            and isinstance(entry.get("uuid"), str)
            and not entry.get("isMeta")
            and not entry.get("isCompactSummary")
            and not content.startswith(("<bash-input>", "<command-name>", "<local-command"))
        ):
            points.append(PromptPoint(entry["uuid"], content))
    return points


def branch_prompts(conversation: Conversation) -> list[PromptPoint]:
    writer = conversation.session.writer
    if writer.last_uuid is None or not writer.path.exists():
        return []
    return prompt_points(load_branch(writer.path, writer.last_uuid).chain)


def changes_since(conversation: Conversation, to: str) -> list[FileChange]:
    return _plan(conversation, _lines(conversation), to)


def rewind(conversation: Conversation, to: str, *, code: bool = True, history: bool = True) -> Rewound:
    """Back to before the prompt whose line is `to`: its files (`code`) and the conversation (`history`)."""
    if conversation.agent.running:
        raise RewindError("A turn is running; stop it (Esc) before rewinding.")
    writer = conversation.session.writer
    entries = _lines(conversation)
    prompt = next((entry for entry in entries if entry.get("uuid") == to and entry.get("type") == "user"), None)
    if prompt is None:
        raise RewindError("That prompt is not in this session.")
    rewound = Rewound(str((prompt.get("message") or {}).get("content") or ""))
    if code:
        rewound.changes = _plan(conversation, entries, to)
        restore(rewound.changes)
    if history:
        parent = prompt.get("parentUuid")
        messages = load_branch(writer.path, parent).messages if isinstance(parent, str) else []
        conversation.agent.messages[:] = messages
        conversation.agent.compactor.recount()
        writer.last_uuid = parent if isinstance(parent, str) else None
    return rewound


def _lines(conversation: Conversation) -> list[dict[str, Any]]:
    try:
        return read_lines(conversation.session.writer.path)[0]
    except OSError as exc:
        raise RewindError(f"The session file cannot be read ({exc.strerror or exc}).") from None


def _plan(conversation: Conversation, entries: list[dict[str, Any]], to: str) -> list[FileChange]:
    directory = file_history_dir(conversation.session_id, conversation.env)
    try:
        return restore_plan(entries, to, Path(conversation.root), directory)
    except RestoreError as exc:
        raise RewindError(str(exc)) from None
