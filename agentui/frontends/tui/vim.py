"""Vim mode for the prompt, as Claude Code's (`/vim`): INSERT and NORMAL modes, and in NORMAL the motions (h j k l,
w b e W B E, 0 ^ $, gg G, f F t T ; ,), the operators d c y with any motion, a count or a text object (dd cc yy, dw
cw, diw ci" da( ...), and x ~ J r p P D C Y >> << i a I A o O u and `.`. A pure state machine over the prompt's text
and cursor offset: `PromptInput` gives it the keys and applies what comes back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agentui.frontends.tui import vim_motions as m

Mode = Literal["INSERT", "NORMAL"]
Action = Literal["", "undo", "history_previous", "history_next", "history_search"]

MOTIONS = frozenset("hljkwbeWBE0^$G ;,")
INCLUSIVE = frozenset("eE$ft")
LINEWISE = frozenset({"j", "k", "G", "gg", "gj", "gk", "line"})
SIMPLE = frozenset("x~JpPDCYu.iIaAoO")
"""Commands complete in one key (with their count)."""
INSERTING = frozenset("cCiIaAoO")
MAX_COUNT = 10_000


@dataclass(frozen=True)
class Command:
    count: int
    counted: bool
    """Whether a count was typed (`G` and `gg` go to the last/first line without one, line N with one)."""
    name: str
    """A motion ("w", "gg", "f"), a command ("x", "p"), or "line" for an operator doubled (dd, cc, yy, >>)."""
    op: str = ""
    arg: str = ""
    """The character of f F t T r, or the object of a text object ("w", '"', "(")."""
    scope: str = ""
    """"i" or "a" for a text object."""


@dataclass(frozen=True)
class Outcome:
    text: str
    cursor: int
    action: Action = ""


class Incomplete(Exception):
    """More keys are needed."""


class Invalid(Exception):
    """The keys make no command: they are dropped, as vim does."""


def _count(keys: str, index: int) -> tuple[int | None, int]:
    start = index
    while index < len(keys) and keys[index].isdigit() and (index > start or keys[index] != "0"):
        index += 1
    return (min(int(keys[start:index]), MAX_COUNT) if index > start else None), index


def _take(keys: str, index: int) -> str:
    if index >= len(keys):
        raise Incomplete
    return keys[index]


def parse(keys: str) -> Command:
    """The command `keys` make; raises Incomplete or Invalid."""
    count, index = _count(keys, 0)
    key = _take(keys, index)
    if key in "dcy<>":
        inner, index = _count(keys, index + 1) if key in "dcy" else (None, index + 1)
        total = (count or 1) * (inner or 1)
        counted = count is not None or inner is not None
        name = _take(keys, index)
        if name == key:
            return Command(total, counted, "line", key)
        if key in "<>":
            raise Invalid
        if name in "ia":
            kind = _take(keys, index + 1)
            if kind not in m.OBJECTS:
                raise Invalid
            return Command(total, counted, "object", key, kind, name)
        return _motion(keys, index, total, counted, key)
    if key in SIMPLE:
        return Command(count or 1, count is not None, key)
    if key == "r":
        return Command(count or 1, count is not None, "r", arg=_take(keys, index + 1))
    return _motion(keys, index, count or 1, count is not None, "")


def _motion(keys: str, index: int, count: int, counted: bool, op: str) -> Command:
    key = keys[index]
    if key in MOTIONS:
        return Command(count, counted, key, op)
    if key == "g":
        second = _take(keys, index + 1)
        if second not in "gjk":
            raise Invalid
        return Command(count, counted, "gg" if second == "g" else second, op)
    if key in "fFtT":
        return Command(count, counted, key, op, _take(keys, index + 1))
    raise Invalid


class Vim:
    """One prompt's vim state: its mode, the command being typed, the register, the last find and the last change."""

    def __init__(self) -> None:
        self.mode: Mode = "INSERT"
        self.pending = ""
        self.register = ""
        self.linewise = False
        self.last_find: tuple[str, str] | None = None
        self.last_change: tuple[str, str] | None = None
        """The keys of the last change, and the text typed in INSERT mode after them, for `.`."""
        self.inserted = ""
        self._change_keys = ""
        self._replaying = False

    # INSERT mode

    def typed(self, text: str) -> None:
        """Text typed (or pasted) in INSERT mode: `.` types it again."""
        self.inserted += text

    def erased(self) -> None:
        self.inserted = self.inserted[:-1]

    def escape(self, text: str, cursor: int) -> Outcome | None:
        """Esc: INSERT to NORMAL (the cursor steps back onto the last character typed), or the end of a command
        being typed; None when there was nothing for it to end (NORMAL mode, no command)."""
        if self.mode == "INSERT":
            if self._change_keys and not self._replaying:
                self.last_change = (self._change_keys, self.inserted)
            self.mode, self._change_keys, self.inserted = "NORMAL", "", ""
            back = cursor - 1 if cursor > m.line_start(text, cursor) else cursor
            return Outcome(text, m.clamp(text, back))
        if self.pending:
            self.pending = ""
            return Outcome(text, cursor)
        return None

    def to_insert(self) -> None:
        self.mode, self.pending, self._change_keys, self.inserted = "INSERT", "", "", ""

    # NORMAL mode

    def key(self, key: str, text: str, cursor: int) -> Outcome:
        """One key typed in NORMAL mode."""
        keys = self.pending + key
        if not self.pending:
            if key == "k" and "\n" not in text[:cursor]:
                return Outcome(text, cursor, "history_previous")  # (as ↑ on the first line)
            if key == "j" and "\n" not in text[cursor:]:
                return Outcome(text, cursor, "history_next")
            if key == "/":
                return Outcome(text, cursor, "history_search")
        try:
            command = parse(keys)
        except Incomplete:
            self.pending = keys
            return Outcome(text, cursor)
        except Invalid:
            self.pending = ""
            return Outcome(text, cursor)
        self.pending = ""
        return self._run(command, keys, text, cursor)

    def _run(self, command: Command, keys: str, text: str, cursor: int) -> Outcome:
        if command.name == "u":
            return Outcome(text, cursor, "undo")
        if command.name == ".":
            return self.repeat(text, cursor)
        outcome = self.execute(command, text, cursor)
        changes = command.op in ("d", "c", "<", ">") or command.name in SIMPLE | {"r"}
        if self.mode == "INSERT":
            self._change_keys = keys
        elif changes and not self._replaying and command.name not in ("Y", "u"):
            self.last_change = (keys, "")
        return outcome

    def repeat(self, text: str, cursor: int) -> Outcome:
        """`.`: the last change again, with what was typed after it."""
        if self.last_change is None:
            return Outcome(text, cursor)
        keys, typed = self.last_change
        self._replaying = True
        try:
            outcome = self.execute(parse(keys), text, cursor)
            if self.mode == "INSERT":
                at = outcome.cursor
                inserted = outcome.text[:at] + typed + outcome.text[at:]
                outcome = self.escape(inserted, at + len(typed)) or outcome
        finally:
            self._replaying = False
        return outcome

    def execute(self, command: Command, text: str, cursor: int) -> Outcome:
        if command.op:
            return self._operate(command, text, cursor)
        if command.name in MOTIONS or command.name in ("gg", "gj", "gk", "f", "F", "t", "T"):
            target = self._target(command, text, cursor, moving=True)
            return Outcome(text, m.clamp(text, target if target is not None else cursor))
        return edit(self, command, text, cursor)

    def _target(self, command: Command, text: str, at: int, *, moving: bool = False) -> int | None:
        name, count = command.name, command.count
        if name in ";,":
            if self.last_find is None:
                return None
            kind, char = self.last_find
            if name == ",":
                kind = {"f": "F", "F": "f", "t": "T", "T": "t"}[kind]
            return m.find_char(text, at, kind, char, count)
        if name in "fFtT":
            self.last_find = (name, command.arg)
            return m.find_char(text, at, name, command.arg, count)
        return motion(text, at, command, moving)

    def _operate(self, command: Command, text: str, at: int) -> Outcome:
        span = self._span(command, text, at)
        if span is None:
            return Outcome(text, at)
        start, end, linewise = span
        if command.op in "<>":
            return indent(text, at, start, end, command.op)
        return operate(self, command.op, text, at, start, end, linewise)

    def _span(self, command: Command, text: str, at: int) -> tuple[int, int, bool] | None:
        """The [start, end) an operator acts on, and whether it takes whole lines."""
        name = command.name
        if name == "object":
            found = m.text_object(text, at, command.scope, command.arg)
            return (*found, False) if found else None
        if name == "line":
            last = m.line_offset(text, m.line_number(text, at) + command.count - 1)
            return at, last, True
        if command.op == "c" and name in "wW" and at < len(text) and not text[at].isspace():
            name = "e" if name == "w" else "E"  # (cw changes to the end of the word, as vim's)
            command = Command(command.count, command.counted, name, "c")
        target = self._target(command, text, at)
        if target is None:
            return None
        if name in LINEWISE:
            return min(at, target), max(at, target), True
        start, end = min(at, target), max(at, target)
        kind = self.last_find[0] if name in ";," and self.last_find else name
        if kind in INCLUSIVE and end < len(text) and text[end] != "\n":  # (not on an empty line's newline)
            end += 1
        elif name in "wW" and (newline := text.rfind("\n", start, end)) >= start:
            end = newline if newline > start else end  # (dw at a line's last word stops at its end)
        return (start, end, False) if end > start else None


def motion(text: str, at: int, command: Command, moving: bool) -> int:
    """Where a motion goes (past the line's last character only for an operator: `dl` there deletes it)."""
    name, count = command.name, command.count
    if name == "h":
        return max(m.line_start(text, at), at - count)
    if name in "l ":
        return min(at + count, m.last_char(text, at) if moving else m.line_end(text, at))
    if name in ("j", "gj"):
        return m.vertical(text, at, count)
    if name in ("k", "gk"):
        return m.vertical(text, at, -count)
    if name == "0":
        return m.line_start(text, at)
    if name == "^":
        return m.first_non_blank(text, at)
    if name == "$":
        return m.last_char(text, m.vertical(text, at, count - 1))
    if name in ("G", "gg"):
        last = text.count("\n") if name == "G" else 0
        return m.line_offset(text, command.count - 1 if command.counted else last)
    step = {"w": m.next_word, "W": m.next_word, "b": m.previous_word, "B": m.previous_word}.get(name, m.word_end)
    for _ in range(count):
        at = step(text, at, name in "WBE")
    return at


def operate(vim: Vim, op: str, text: str, at: int, start: int, end: int, linewise: bool) -> Outcome:
    """d, c or y over [start, end), or over the whole lines it touches."""
    if linewise:
        start, end = m.line_start(text, start), m.line_end(text, end)
        vim.register, vim.linewise = text[start:end] + "\n", True
        if op == "y":
            return Outcome(text, at)
        if op == "c":
            vim.to_insert()
            return Outcome(text[:start] + text[end:], start)
        if end < len(text):
            end += 1
        elif start > 0:
            start -= 1  # (the last lines: the newline before them goes)
        rest = text[:start] + text[end:]
        return Outcome(rest, m.first_non_blank(rest, min(start, len(rest))))
    vim.register, vim.linewise = text[start:end], False
    if op == "y":
        return Outcome(text, start)
    rest = text[:start] + text[end:]
    if op == "c":
        vim.to_insert()
        return Outcome(rest, start)
    return Outcome(rest, m.clamp(rest, start))


def indent(text: str, at: int, start: int, end: int, direction: str) -> Outcome:
    """>> and <<: two spaces more or less at the start of each line."""
    first, last = m.line_number(text, start), m.line_number(text, end)
    lines = text.split("\n")
    for number in range(first, last + 1):
        line = lines[number]
        if direction == ">":
            lines[number] = "  " + line if line else line
        else:
            lines[number] = line[2:] if line.startswith("  ") else line.removeprefix("\t").removeprefix(" ")
    changed = "\n".join(lines)
    return Outcome(changed, m.first_non_blank(changed, m.line_offset(changed, first)))


def edit(vim: Vim, command: Command, text: str, at: int) -> Outcome:
    """The commands that are not a motion or an operator."""
    name, count = command.name, command.count
    end = m.line_end(text, at)
    if name in INSERTING or name == "C":
        return _insert(vim, name, text, at)
    if name == "x":
        stop = min(at + count, end)
        if stop <= at:
            return Outcome(text, at)
        vim.register, vim.linewise = text[at:stop], False
        rest = text[:at] + text[stop:]
        return Outcome(rest, m.clamp(rest, at))
    if name == "D":
        vim.register, vim.linewise = text[at:end], False
        rest = text[:at] + text[end:]
        return Outcome(rest, m.clamp(rest, at))
    if name == "Y":
        return operate(vim, "y", text, at, at, m.line_offset(text, m.line_number(text, at) + count - 1), True)
    if name == "~":
        stop = min(at + count, end)
        return Outcome(text[:at] + text[at:stop].swapcase() + text[stop:], m.clamp(text, stop))
    if name == "r":
        if at + count > end:
            return Outcome(text, at)
        return Outcome(text[:at] + command.arg * count + text[at + count :], at + count - 1)
    if name == "J":
        return join(text, at, max(count, 2))
    if name in "pP":
        return put(vim, text, at, count, after=name == "p")
    return Outcome(text, at)


def _insert(vim: Vim, name: str, text: str, at: int) -> Outcome:
    start, end = m.line_start(text, at), m.line_end(text, at)
    if name == "C":
        vim.register, vim.linewise = text[at:end], False
        vim.to_insert()
        return Outcome(text[:at] + text[end:], at)
    vim.to_insert()
    if name == "o":
        return Outcome(text[:end] + "\n" + text[end:], end + 1)
    if name == "O":
        return Outcome(text[:start] + "\n" + text[start:], start)
    where = {"i": at, "a": min(at + 1, end), "I": m.first_non_blank(text, at), "A": end}
    return Outcome(text, where[name])


def join(text: str, at: int, lines: int) -> Outcome:
    """J: this line and the next ones as one, a space between (the next line's indent dropped)."""
    joint = at
    for _ in range(lines - 1):
        end = m.line_end(text, at)
        if end >= len(text):
            break
        after = text[end + 1 :]
        stripped = after.lstrip(" \t")
        line = text[m.line_start(text, at) : end]
        space = "" if not line or line.endswith(" ") or stripped.startswith(("\n", ")")) or not stripped else " "
        text = text[:end] + space + stripped
        joint = end
    return Outcome(text, m.clamp(text, joint))


def put(vim: Vim, text: str, at: int, count: int, *, after: bool) -> Outcome:
    """p and P: the register after (before) the cursor, or as lines below (above) this one."""
    if not vim.register:
        return Outcome(text, at)
    if vim.linewise:
        lines = vim.register.removesuffix("\n")
        block = "\n".join([lines] * count)
        if after:
            end = m.line_end(text, at)
            changed = text[:end] + "\n" + block + text[end:]
            return Outcome(changed, m.first_non_blank(changed, end + 1))
        start = m.line_start(text, at)
        changed = text[:start] + block + "\n" + text[start:]
        return Outcome(changed, m.first_non_blank(changed, start))
    block = vim.register * count
    where = min(at + 1, m.line_end(text, at)) if after else at
    changed = text[:where] + block + text[where:]
    return Outcome(changed, where + len(block) - 1 if "\n" not in block else where)
