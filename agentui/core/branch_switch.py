"""Moving a conversation to another branch of its session (/tree): its history becomes the chain that ends at that
branch's leaf and the next prompt goes on from there, written as a rewind is (so a resume, agentui's or Claude
Code's, starts there too). Nothing else changes: the files stay as they are."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentui.core.rewind import Rewindable, RewindError, Rewound
from agentui.core.session.reader import branch_of, read_lines

if TYPE_CHECKING:
    from agentui.core.session.tree import SessionTree


def session_tree(conversation: Rewindable) -> SessionTree:
    """The tree of the conversation's session, the branch it is on now marked current. Raises RewindError (one
    sentence) when its file cannot be read."""
    from agentui.core.session.tree import build_tree

    writer = conversation.session.writer
    try:
        return build_tree(writer.path, writer.last_uuid)
    except FileNotFoundError:
        raise RewindError("Nothing has been said in this session yet, so it has no branches to show.") from None
    except OSError as exc:
        raise RewindError(f"The session file cannot be read ({exc.strerror or exc}).") from None


def switch_branch(conversation: Rewindable, leaf: str) -> Rewound:
    """Go on from the line `leaf` of this session's file. Raises RewindError, changing nothing, while a turn runs or
    when the line is not in the file (another session's branch is resumed, not switched to)."""
    if conversation.running:  # (a turn, or parallel attempts that go on from the history as it is)
        raise RewindError("A turn is running; stop it (Esc) before moving to another branch.")
    writer = conversation.session.writer
    try:
        read = read_lines(writer.path)
    except OSError as exc:
        raise RewindError(f"The session file cannot be read ({exc.strerror or exc}).") from None
    if not any(entry.get("uuid") == leaf and not entry.get("isSidechain") for entry in read[0]):
        raise RewindError("That branch is not in this session's file; resume or fork its own session instead.")
    loaded = branch_of(writer.path, read, leaf)
    conversation.agent.history.replace(loaded.messages)
    conversation.project.workspace.tasks.rebuild(loaded.messages)  # (the task list as it stood there)
    writer.rewound_to(leaf)
    prompts = [m.text for m in loaded.messages if m.role == "user" and m.text.strip()]
    return Rewound(prompts[-1] if prompts else "", tool_details=loaded.tool_details)
