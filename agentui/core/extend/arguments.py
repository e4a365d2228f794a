"""Arguments in a custom command's or a skill's prompt, filled in as Claude Code 2.1.197 fills them: `$ARGUMENTS`
(all of them), `$ARGUMENTS[0]` and `$0`, `$1`... (each word, counted from 0), `\\$` for a literal dollar; a prompt that
uses none gets `ARGUMENTS: ...` appended. What the person typed can never start a shell command of the prompt's: a
`!` in it is broken up first (`!`cmd`` would run otherwise)."""

from __future__ import annotations

import re
import shlex

_HELD = "\uffff"
"""Stands in for an escaped `\\$` while the arguments go in (Claude Code's placeholder)."""


def words(arguments: str) -> list[str]:
    """The arguments as words, quotes respected where they pair up (as a shell splits them)."""
    if not arguments.strip():
        return []
    try:
        return shlex.split(arguments)
    except ValueError:  # (an unpaired quote: split on spaces)
        return arguments.split()


def defused(text: str) -> str:
    """`text` with no `!` left that could start a shell command of the prompt's (Claude Code's own rewriting)."""
    text = text.replace("`!", "` !").replace("!`", "! `")
    return re.sub(r"(^|\s)!", r"\1\\!", text, flags=re.M)


def fill_arguments(text: str, arguments: str, *, append: bool = True) -> str:
    """`text` with the arguments filled in; with `append`, a text that names none gets them after it."""
    split = words(arguments)
    escaped = re.sub(r"(?<!\\)\\\$(?=\d|ARGUMENTS)", _HELD, text)
    used = False

    def word(at: int) -> str:
        nonlocal used
        used = True
        return defused(split[at].replace(_HELD, "")) if at < len(split) else ""

    filled = re.sub(r"\$ARGUMENTS\[(\d+)\]", lambda m: word(int(m.group(1))), escaped)
    filled = re.sub(r"\$(\d+)(?!\w)", lambda m: word(int(m.group(1))), filled)
    if "$ARGUMENTS" in filled:
        used = True
        filled = filled.replace("$ARGUMENTS", defused(arguments.replace(_HELD, "")))
    if not used and append and arguments:
        filled += f"\n\nARGUMENTS: {defused(arguments)}"
    return filled.replace(_HELD, "$") if escaped != text else filled
