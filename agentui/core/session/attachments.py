"""Claude Code's listing attachments: the `attachment` lines (agent_listing_delta, skill_listing) that tell the model
which sub-agent types and skills it has, what of them a history has already told, and the `<system-reminder>` text
each becomes in a request, word for word as Claude Code 2.1.197 sends it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from agentui.core.messages import Message, TextBlock, ToolResultBlock

AGENT_LISTING = "agent_listing_delta"
SKILL_LISTING = "skill_listing"
LISTINGS = (AGENT_LISTING, SKILL_LISTING)

CONCURRENCY_NOTE = (
    "When you launch multiple agents for independent work, send them in a single message with multiple tool uses so "
    "they run concurrently."
)
AMBIENT = (
    "This is ambient context \u2014 do not narrate it to the user unless they ask or it is directly relevant to their "
    "request."
)


def agent_line(name: str, description: str, tools: Sequence[str] | None) -> str:
    """An agent type as Claude Code lists it; no tools named means all of them (Claude Code's `*`)."""
    return f"- {name}: {description} (Tools: {', '.join(tools) if tools else '*'})"


def told(attachments: Iterable[Mapping[str, Any]]) -> tuple[set[str], set[str]]:
    """The agent types and the skills that `attachments` (a history's, oldest first) have listed and not withdrawn."""
    agents: set[str] = set()
    skills: set[str] = set()
    for attachment in attachments:
        if attachment.get("type") == AGENT_LISTING:
            agents.update(_names(attachment.get("addedTypes")))
            agents.difference_update(_names(attachment.get("removedTypes")))
        elif attachment.get("type") == SKILL_LISTING:
            skills.update(_names(attachment.get("names")))
    return agents, skills


def agent_listing(types: Mapping[str, str], agents_told: set[str]) -> dict[str, Any] | None:
    """The agent types (name: its listed line) new since `agents_told`, and those withdrawn; None when nothing
    changed. Sorted as Claude Code sorts them (ignoring case)."""
    added = sorted((name for name in types if name not in agents_told), key=lambda name: (name.casefold(), name))
    removed = sorted(name for name in agents_told if name not in types)
    if not added and not removed:
        return None
    return {
        "type": AGENT_LISTING,
        "addedTypes": added,
        "addedLines": [types[name] for name in added],
        "removedTypes": removed,
        "isInitial": not agents_told,
        "showConcurrencyNote": True,
    }


def skill_listing(skills: Mapping[str, str], skills_told: set[str]) -> dict[str, Any] | None:
    """The skills (name: description) not yet listed, as Claude Code lists them; None when there are none."""
    new = [name for name in skills if name not in skills_told]
    if not new:
        return None
    return {
        "type": SKILL_LISTING,
        "content": "\n".join(f"- {name}: {skills[name]}" for name in new),
        "skillCount": len(new),
        "isInitial": not skills_told,
        "names": new,
    }


def reminder(attachment: Mapping[str, Any]) -> str | None:
    """The text a listing attachment puts in the request (None for any other attachment, or an empty one)."""
    if attachment.get("type") == AGENT_LISTING:
        parts = []
        if lines := [str(line) for line in attachment.get("addedLines") or []]:
            heading = "Available agent types" if attachment.get("isInitial") else "New agent types are now available"
            parts.append(f"{heading} for the Agent tool:\n" + "\n".join(lines))
        if removed := _names(attachment.get("removedTypes")):
            parts.append("The following agent types are no longer available:\n" + "\n".join(f"- {n}" for n in removed))
            parts.append(AMBIENT)
        if attachment.get("isInitial") and attachment.get("showConcurrencyNote"):
            parts.append(CONCURRENCY_NOTE)
        return _wrapped("\n\n".join(parts)) if parts else None
    if attachment.get("type") == SKILL_LISTING and (content := attachment.get("content")):
        return _wrapped(f"The following skills are available for use with the Skill tool:\n\n{content}")
    return None


def with_reminders(messages: Sequence[Message]) -> list[Message]:
    """The messages as a request sends them: each one's listing attachments as reminders. Claude Code moves them up
    past the person's messages before them (a command's record and its prompt) to the first after an answer, and
    puts them after tool results (which must come first)."""
    sent: list[Message] = []
    start, after_barrier = 0, True  # (the first of the person's messages since the last answer or results)
    for message in messages:
        results = any(isinstance(block, ToolResultBlock) for block in message.content)
        if after_barrier:
            start = len(sent)
        after_barrier = message.role == "assistant" or results
        sent.append(message)
        notes = [TextBlock(text=text) for a in message.attachments if (text := reminder(a)) is not None]
        if notes:
            at = len(sent) - 1 if results else start
            held = sent[at].content
            sent[at] = sent[at].model_copy(update={"content": [*held, *notes] if results else [*notes, *held]})
    return sent


def _wrapped(text: str) -> str:
    return f"<system-reminder>\n{text}\n</system-reminder>"


def _names(raw: Any) -> list[str]:
    return [str(name) for name in raw] if isinstance(raw, list) else []
