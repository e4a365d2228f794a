"""A person's words as an FTS5 query: FTS5's own syntax when it parses (`"exact phrase"`, `OR`, `NEAR`), each word as
a plain phrase when it does not (an unbalanced quote, a bare operator, a path), so no query is ever an error."""

from __future__ import annotations

import re

_WORD = re.compile(r"\w")


def plain(text: str, *, prefix: bool = False) -> str | None:
    """Every whitespace-separated word as a quoted phrase, all of them required; with `prefix`, the last word also
    matches longer words (as one types). None when nothing searchable is left (only punctuation)."""
    words = [word for word in text.split() if _WORD.search(word)]
    if not words:
        return None
    phrases = ['"' + word.replace('"', '""') + '"' for word in words]
    if prefix:
        phrases[-1] += "*"
    return " ".join(phrases)


def is_syntax_problem(message: str) -> bool:
    """An FTS5 complaint about the query itself (as opposed to the database): brackets nested too deep included."""
    text = message.lower()
    return any(
        words in text
        for words in ("syntax error", "no such column", "unterminated string", "special query", "stack overflow")
    )
