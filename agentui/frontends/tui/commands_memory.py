"""/memory: the memory files the model reads and why each, then the project's learnings, numbered; `/memory forget N`
forgets one and `/memory edit N text` rewrites it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agentui.frontends.tui.slash_command import SlashCommand, shown_path

if TYPE_CHECKING:
    from agentui.api import LearningStore
    from agentui.frontends.tui.host import AppHost

MEMORY_TAIL = 3
"""The last lines of each memory file /memory shows."""
USAGE = "Say /memory, /memory forget N or /memory edit N text (N as /memory numbers the learnings)."


class Memory(SlashCommand):
    name = "memory"
    description = "List the memory files the model reads and why, and its learnings [forget N or edit N text]"

    async def run(self, app: AppHost, arguments: str) -> None:
        from agentui.api import LearningError

        store = _store(app)
        try:
            if arguments:
                app.say(*_change(store, arguments))
                return
            learnings = store.all()
        except LearningError as exc:
            app.say(str(exc), "error")
            return
        parts = [_files(app)]
        if learnings:
            lines = [f"{number}. {learning.text}" for number, learning in enumerate(learnings, 1)]
            said = "Learnings from earlier runs (the most relevant five join each prompt; /memory forget N):\n"
            parts.append(said + "\n".join(lines))
        app.say("\n\n".join(parts))


def _store(app: AppHost) -> LearningStore:
    from agentui.api import LearningStore

    if app.conversation is not None:
        return LearningStore(app.conversation.root, app.conversation.env)
    return LearningStore(app.launch.cwd if app.launch else Path.cwd(), app.env)


def _change(store: LearningStore, arguments: str) -> tuple[str, str]:
    """`forget N` or `edit N text`: what was done, or why not (a message and its level)."""
    verb, _, rest = arguments.strip().partition(" ")
    number, _, text = rest.strip().partition(" ")
    if verb not in ("forget", "edit") or not number.isdigit() or (verb == "forget" and text):
        return USAGE, "warning"
    if verb == "forget":
        return f"Forgotten: {store.forget(int(number)).text}", "info"
    return f"Learning {number} now says: {store.edit(int(number), text).text}", "info"


def _files(app: AppHost) -> str:
    files = app.conversation.memory_files if app.conversation else []
    if not files:
        return (
            "No memory files are loaded. Add instructions to CLAUDE.md in the project (#note adds a line), "
            "or to ~/.claude/CLAUDE.md for every project."
        )
    lines = []
    root = app.conversation.root if app.conversation else Path.cwd()
    for f in files:  # (each with why it was read, and its last lines: what #note added shows at once)
        why = f"imported by {shown_path(f.imported_by, root)}" if f.imported_by else f.reason or f.kind
        lines.append(f"- {shown_path(f.path, root)}: {why} ({len(f.text):,} characters), ending:")
        lines += [f"    {line[:200]}" for line in [x for x in f.text.splitlines() if x.strip()][-MEMORY_TAIL:]]
    return "Memory files the model reads, in order:\n" + "\n".join(lines)
