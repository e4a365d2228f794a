"""Standing instructions the person gave ("always …", "never …", "from now on …"), found without the model, and the
section of a compaction summary that carries them, and pinned messages, verbatim past every compaction."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from agentui.core.messages import SUMMARY_PREFIX, Message, TextBlock, is_summary, typed_command

INSTRUCTIONS_HEADING = "Instructions the user gave (carried verbatim by agentui):"
PINNED_HEADING = "Messages the user pinned (carried verbatim by agentui):"
PIN_START, PIN_END = "<pinned>", "</pinned>"

# What a person's instruction starts with, after an optional lead-in ("Please", "Also", "Important:").
_LEAD = r"(?:(?:please|also|and|but|so|oh|ok|okay|remember|important|note|one more thing|reminder)\b[\s,:;-]*)*"
_OPENERS = (
    r"always\b",
    r"never\b(?!\s+mind\b)",
    r"(?:don'?t|don’t|do not)\b(?!\s+(?:know|think|understand|see|get|remember|care|worry|mind)\b)",
    r"make sure\b",
    r"from now on\b",
    r"prefer\b",
    r"use\b.+\binstead of\b",
)
_STARTS = re.compile(rf"^{_LEAD}(?:{'|'.join(_OPENERS)})", re.IGNORECASE)
# ... or, anywhere in the sentence, an instruction to the assistant in its middle ("You should always run ruff").
_INSIDE = re.compile(
    r"\b(?:you|we)\s+(?:should\s+|must\s+|will\s+)?(?:always|never)\b|\b(?:must|should)\s+(?:always|never)\b"
    r"|\bfrom now on\b|\buse\s+\S.*\binstead of\b|\bI\s+(?:always\s+)?prefer\b",
    re.IGNORECASE,
)
# What is quoted rather than said: code fences, inline code, quotations, quoted lines; and tagged blocks, found by a
# look-up of the closing tags (a pattern would search the rest of the text from every tag left open: minutes for a
# pasted page).
_QUOTED = re.compile(
    r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|`[^`\n]*`|\"[^\"\n]*\"|“[^”\n]*”|^\s*>.*?$",
    re.IGNORECASE | re.DOTALL | re.MULTILINE,
)
_OPENING = re.compile(r"<([a-z][\w-]*)[^<>]{0,1000}>", re.IGNORECASE)
_CLOSING = re.compile(r"</([a-z][\w-]*)>", re.IGNORECASE)
_SENTENCE = re.compile(r"[^\n]+?(?:[.!?]+(?=\s)|$)", re.MULTILINE)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
MAX_CHARS = 500
"""A "sentence" longer than this is a pasted text, not an instruction."""


PASTE_LINES = 12
"""A run of more lines than this without a blank one is a paste (a log, a file): what its inner lines say is quoted;
its first and last may be what the person typed around it."""
_RUN = re.compile(rf"(?:^[^\S\n]*\S[^\n]*(?:\n|\Z)){{{PASTE_LINES + 1},}}", re.MULTILINE)


def _masked(text: str) -> str:
    """`text` with what is quoted in it blanked out, character for character (so positions still match)."""
    blank = _QUOTED.sub(lambda match: re.sub(r"[^\n]", " ", match.group(0)), _tags_blanked(text))
    return _RUN.sub(lambda match: _inner_blanked(match.group(0)), blank)


def _tags_blanked(text: str) -> str:
    """`text` with each `<tag …>…</tag>` blanked out, in one pass, up to the last closing tag of its name: what is
    quoted (a file in an editor's `<resource>`, a pasted page) may hold a closing tag of its own, which must not end
    the quotation early (a person's instruction between two tagged blocks is the rare loss)."""
    closing: dict[str, list[tuple[int, int]]] = {}
    for match in _CLOSING.finditer(text):
        closing.setdefault(match.group(1).lower(), []).append((match.start(), match.end()))
    spans, reached = [], 0
    for match in _OPENING.finditer(text):
        ends = closing.get(match.group(1).lower(), [])
        if match.start() >= reached and ends and ends[-1][0] >= match.end():
            spans.append((match.start(), ends[-1][1]))
            reached = ends[-1][1]
    if not spans:
        return text
    parts, last = [], 0
    for start, end in spans:
        parts += [text[last:start], re.sub(r"[^\n]", " ", text[start:end])]
        last = end
    return "".join([*parts, text[last:]])


def _inner_blanked(run: str) -> str:
    lines = run.split("\n")
    last = len(lines) - (2 if lines[-1] == "" else 1)
    return "\n".join(line if i in (0, last) else " " * len(line) for i, line in enumerate(lines))


def detect(text: str) -> list[str]:
    """The instructions in one prompt of the person's, each the sentence as they wrote it."""
    masked = _masked(text)
    found: list[str] = []
    for match in _SENTENCE.finditer(masked):
        said = _BULLET.sub("", match.group(0)).strip()
        if not said or len(said) > MAX_CHARS:
            continue
        if _STARTS.match(said) or _INSIDE.search(said):
            original = text[match.start() : match.end()]
            found.append(_BULLET.sub("", original).strip())
    return found


CONTINUED = SUMMARY_PREFIX.split(". ", 1)[0]
"""How a summary, or the note left when none could be made (which carries the same section), begins."""


def stands_for_history(message: Message) -> bool:
    """A summary, or the note compaction leaves when none could be made: either may carry agentui's section."""
    return is_summary(message) or (message.role == "user" and summary_text(message).startswith(CONTINUED))


NOT_SAID = ("<", "Stop hook feedback:")
"""How the user messages agentui (and Claude Code) add begin: a `!command`'s record, a reminder, a Stop hook's
reason for going on (a program's words, or a prompt hook's model's)."""


def said_by_person(message: Message) -> str | None:
    """The text of a prompt the person typed (not a tool result, not a summary, not a note agentui added)."""
    if message.role != "user" or message.meta or message.has_results or stands_for_history(message):
        return None
    # (only the prompt as typed, its first text: what agentui added after it in the same message, a file named with
    # @, an MCP resource, a hook's context, a reminder, is not the person's, and may close a tag early)
    text = next((block.text for block in message.content if isinstance(block, TextBlock)), "")
    if text.lstrip().startswith(NOT_SAID):
        return None
    return text


def instructions_in(messages: Sequence[Message]) -> list[str]:
    """Every instruction the person gave in `messages`, those an earlier summary carried first, in order, once."""
    found: list[str] = []
    for before, message in zip([None, *messages], messages, strict=False):
        if stands_for_history(message):
            found += carried(summary_text(message))[0]
        elif (typed := _command_typed(before)) is not None:  # (a command's expansion: a file's or a server's words)
            found += detect(typed) if said_by_person(message) is not None else []
        elif (text := said_by_person(message)) is not None:
            found += detect(text)
    return _unique(found)


def _command_typed(record: Message | None) -> str | None:
    """The arguments typed with a command (`/name arguments`), when `record` is the record of one."""
    if record is None or record.role != "user" or (command := typed_command(summary_text(record))) is None:
        return None
    return command.partition(" ")[2]


def summary_text(summary: Message) -> str:
    """A summary's own text, its first: what a hook added after it (SessionStart "compact") is not agentui's section."""
    return next((block.text for block in summary.content if isinstance(block, TextBlock)), "")


def carried(summary: str) -> tuple[list[str], list[str]]:
    """The instructions and the pinned messages an earlier summary carried: read from agentui's section only (it
    starts at the first heading, as the model's part above it has none), never from what the model wrote, and pins
    from their own section only."""
    starts = [
        at for at in (_heading_at(summary, INSTRUCTIONS_HEADING), _heading_at(summary, PINNED_HEADING)) if at >= 0
    ]
    if not starts:
        return [], []
    section = summary[min(starts) :]
    instructions: list[str] = []
    if section.startswith(INSTRUCTIONS_HEADING):
        for line in section.removeprefix(INSTRUCTIONS_HEADING).lstrip("\n").splitlines():
            if not line.startswith("- "):
                break
            instructions.append(line[2:])
    at = _heading_at(section, PINNED_HEADING)
    pins = section[at + len(PINNED_HEADING) :] if at >= 0 else ""
    pinned = re.findall(re.escape(PIN_START) + r"\n(.*?)\n" + re.escape(PIN_END), pins, re.DOTALL)
    return instructions, pinned


def _heading_at(text: str, heading: str) -> int:
    """Where `heading` stands on a line of its own in `text` (-1: nowhere)."""
    found = re.search(rf"^{re.escape(heading)}$", text, re.MULTILINE)
    return found.start() if found else -1


def without_carried(summary: str) -> str:
    """A summary without the sections agentui appends (a model may copy them from the summary it read, or imitate
    them)."""
    for heading in (INSTRUCTIONS_HEADING, PINNED_HEADING):
        summary = summary.split(heading, 1)[0]
    return summary.rstrip()


def defused(pinned: str) -> str:
    """A pinned text whose own `<pinned>` tags (a pinned file may hold them) cannot end its pin or start another."""
    return pinned.replace(PIN_START, "<pinned >").replace(PIN_END, "</pinned >")


def carried_section(instructions: Sequence[str], pinned: Sequence[str]) -> str:
    """The sections appended to a summary ("" when there is nothing to carry)."""
    parts = []
    if instructions:
        parts.append(INSTRUCTIONS_HEADING + "\n" + "\n".join(f"- {' '.join(i.split())}" for i in instructions))
    if pinned:
        texts = dict.fromkeys(map(defused, pinned))
        parts.append(PINNED_HEADING + "\n" + "\n".join(f"{PIN_START}\n{text}\n{PIN_END}" for text in texts))
    return "\n\n".join(parts)


def within(
    instructions: Sequence[str], pinned: Sequence[str], budget: int, count: Callable[[str], int]
) -> tuple[list[str], list[str], int]:
    """The newest instructions, then the newest pins, whose section fits in `budget` tokens (`count` counts), each
    list in its order; and how many did not fit."""
    spent = count(INSTRUCTIONS_HEADING) + count(PINNED_HEADING)
    chosen: list[list[str]] = []
    for items in (instructions, pinned):
        fitted = []
        for item in reversed(items):
            cost = count(item) + 4
            if spent + cost <= budget:
                spent += cost
                fitted.append(item)
        chosen.append(fitted[::-1])
    return chosen[0], chosen[1], len(instructions) + len(pinned) - len(chosen[0]) - len(chosen[1])


def _unique(items: Iterable[str]) -> list[str]:
    seen: dict[str, str] = {}
    for item in items:
        seen.setdefault(" ".join(item.split()), item)
    return list(seen.values())
