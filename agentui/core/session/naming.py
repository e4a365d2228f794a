"""/rename: the person names the session, as Claude Code's /rename does: a `custom-title` line in the session file,
which every reader prefers to the summary and the model's title (the /resume picker, Claude Code's `--resume
<title>`, claude-code-log)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from agentui.core.session.store import OpenSession


class Named(Protocol):
    session: OpenSession


def rename_session(conversation: Named, name: str) -> str:
    """Name the session `name` (on one line); the title written. ValueError for a name with nothing in it."""
    title = " ".join(name.split())
    if not title:
        raise ValueError("A session's name needs some text: /rename <name>.")
    conversation.session.writer.rename(title)
    return title
