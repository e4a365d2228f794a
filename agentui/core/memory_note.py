"""`#note`: a line for the project's CLAUDE.md that takes effect at once. The next request carries it, as a note to
the model (the system prompt, and the cache that holds it, stay as they are until the next session reads the file),
and the conversation's memory lists the file with the line in it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agentui.core.context.memory import add_memory_note

if TYPE_CHECKING:
    from agentui.core.conversation import Conversation


def remember_note(note: str, root: Path, conversation: Conversation | None = None) -> Path:
    """Append `note` to `root`'s CLAUDE.md and return the file; with a conversation open, in effect for it now.
    Raises OSError when the file cannot be written."""
    path = add_memory_note(root, note)
    if conversation is not None:
        memory = conversation.agent.services.memory
        if memory is not None:
            memory.reread(path)
        said = f"<system-reminder>\nThe user added this to their memory ({path}); follow it from now on:\n- {note}\n"
        conversation.agent.add_context(said + "</system-reminder>")
    return path
