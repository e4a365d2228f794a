"""Where vim's motions and text objects go in a prompt's text: pure functions of the text and an offset into it, so
the vim mode (`vim.py`) is tested without a screen. Words are vim's: runs of letters, digits and `_`, or runs of other
non-blank characters; WORDs are runs of non-blank characters."""

from __future__ import annotations

from collections.abc import Callable

PAIRS = {"(": "()", ")": "()", "b": "()", "[": "[]", "]": "[]", "{": "{}", "}": "{}", "B": "{}", "<": "<>", ">": "<>"}
QUOTES = frozenset("\"'`")
OBJECTS = frozenset(PAIRS) | QUOTES | {"w", "W"}


def line_start(text: str, at: int) -> int:
    return text.rfind("\n", 0, at) + 1


def line_end(text: str, at: int) -> int:
    """The offset of the line's newline (or the text's end): one past its last character."""
    end = text.find("\n", at)
    return len(text) if end < 0 else end


def last_char(text: str, at: int) -> int:
    """The line's last character (its start when it is empty): where NORMAL mode's cursor may go at most."""
    return max(line_start(text, at), line_end(text, at) - 1)


def clamp(text: str, at: int) -> int:
    """`at` kept on a character of its line, as NORMAL mode's cursor is (never on the newline of a line with text)."""
    at = max(0, min(at, len(text)))
    return min(at, last_char(text, at))


def first_non_blank(text: str, at: int) -> int:
    start, end = line_start(text, at), line_end(text, at)
    index = start
    while index < end and text[index] in " \t":
        index += 1
    return index


def line_number(text: str, at: int) -> int:
    return text.count("\n", 0, at)


def line_offset(text: str, number: int) -> int:
    """The start of line `number` (from 0), or of the last line when there are fewer."""
    at = 0
    for _ in range(number):
        found = text.find("\n", at)
        if found < 0:
            break
        at = found + 1
    return at


def vertical(text: str, at: int, lines: int) -> int:
    """`lines` lines down (up when negative), in the same column as far as the line allows."""
    column = at - line_start(text, at)
    target = max(0, min(line_number(text, at) + lines, text.count("\n")))
    start = line_offset(text, target)
    return min(start + column, last_char(text, start))


def _kind(char: str, big: bool) -> int:
    """0 blank, 1 punctuation, 2 word (a WORD's characters are all of one kind)."""
    if char.isspace():
        return 0
    if big or char.isalnum() or char == "_":
        return 2
    return 1


def next_word(text: str, at: int, big: bool = False) -> int:
    """`w`: the start of the next word (an empty line counts as one), or the text's end."""
    size = len(text)
    if at >= size:
        return size
    kind = _kind(text[at], big)
    index = at
    while index < size and kind and _kind(text[index], big) == kind:
        index += 1
    while index < size and text[index].isspace():
        if text[index] == "\n" and index + 1 < size and text[index + 1] == "\n":
            return index + 1  # (an empty line is a word of its own)
        index += 1
    return index


def word_end(text: str, at: int, big: bool = False) -> int:
    """`e`: the last character of this word if the cursor is not on it already, else of the next one."""
    size = len(text)
    index = at + 1
    while index < size and text[index].isspace():
        index += 1
    if index >= size:
        return max(at, size - 1)
    kind = _kind(text[index], big)
    while index + 1 < size and _kind(text[index + 1], big) == kind:
        index += 1
    return index


def previous_word(text: str, at: int, big: bool = False) -> int:
    """`b`: the start of this word if the cursor is past it, else of the word before."""
    index = at - 1
    while index > 0 and text[index].isspace():
        if text[index] == "\n" and text[index - 1] == "\n":
            return index  # (an empty line)
        index -= 1
    if index <= 0:
        return 0
    kind = _kind(text[index], big)
    while index > 0 and _kind(text[index - 1], big) == kind:
        index -= 1
    return index


def find_char(text: str, at: int, kind: str, char: str, count: int) -> int | None:
    """`f` `F` `t` `T`: the `count`th `char` after (before) the cursor on its line, or just before (after) it; None
    when the line has fewer."""
    start, end = line_start(text, at), line_end(text, at)
    index = at
    for _ in range(count):
        index = text.find(char, index + 1, end) if kind in "ft" else text.rfind(char, start, index)
        if index < 0:
            return None
    return {"t": index - 1, "T": index + 1}.get(kind, index)


def text_object(text: str, at: int, scope: str, kind: str) -> tuple[int, int] | None:
    """`iw`, `a(`, `i"`...: the [start, end) the object covers around the cursor, `scope` "i" inner or "a" around."""
    if kind in ("w", "W"):
        return _word_object(text, at, scope == "a", kind == "W")
    if kind in QUOTES:
        return _quote_object(text, at, scope == "a", kind)
    if kind in PAIRS:
        return _pair_object(text, at, scope == "a", *PAIRS[kind])
    return None


def _word_object(text: str, at: int, around: bool, big: bool) -> tuple[int, int] | None:
    start, end = line_start(text, at), line_end(text, at)
    if at >= end:
        return None
    kind = _kind(text[at], big)

    def run(index: int, step: int, same: Callable[[str], bool]) -> int:
        while start <= index + step < end and same(text[index + step]):
            index += step
        return index

    first = run(at, -1, lambda c: _kind(c, big) == kind)
    last = run(at, 1, lambda c: _kind(c, big) == kind) + 1
    if around and kind:  # the word and the blanks after it (or, at the line's end, before it)
        after = run(last - 1, 1, str.isspace) + 1 if last < end and text[last].isspace() else last
        if after > last:
            last = after
        else:
            first = run(first, -1, str.isspace)
    return first, last


def _quote_object(text: str, at: int, around: bool, quote: str) -> tuple[int, int] | None:
    start, end = line_start(text, at), line_end(text, at)
    marks = [index for index in range(start, end) if text[index] == quote]
    for opening, closing in zip(marks[::2], marks[1::2], strict=False):
        if opening <= at <= closing:
            return (opening, closing + 1) if around else (opening + 1, closing)
    return None


def _pair_object(text: str, at: int, around: bool, opening: str, closing: str) -> tuple[int, int] | None:
    depth, left = 0, at
    while left >= 0:
        char = text[left] if left < len(text) else ""
        if char == closing and left != at:
            depth += 1
        elif char == opening:
            if depth == 0:
                break
            depth -= 1
        left -= 1
    if left < 0:
        return None
    depth, right = 0, left + 1
    while right < len(text):
        if text[right] == opening:
            depth += 1
        elif text[right] == closing:
            if depth == 0:
                return (left, right + 1) if around else (left + 1, right)
            depth -= 1
        right += 1
    return None
