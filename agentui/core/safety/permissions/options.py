"""Command-line options read as the programs read them (GNU getopt_long and git's parse-options): bundled short
options (`-la`), attached and separate values (`-n5`, `-n 5`, `--lines=5`, `--lines 5`), optional values that only
attach, `--` ending the options, and options after operands. Each program has a table of the options known to be
harmless; anything not in it, including an abbreviated long option, is refused, so the command asks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from agentui.core.safety.permissions.bash_words import NotUnderstood

Takes = Literal["no", "required", "optional"]
Kind = Literal["text", "path"]
"""What an option's value is: text the program uses as it is, or a file the program reads."""


@dataclass(frozen=True)
class Arg:
    """One argument as the program receives it."""

    value: str
    group: int | None = None
    """Set when the argument is one of several files a glob expanded to: their order is bash's sort order, which
    agentui does not reproduce, so such an argument may only be an operand."""


@dataclass(frozen=True)
class Opt:
    takes: Takes = "no"
    kind: Kind = "text"
    mark: str = ""
    """What the option does that the program's own check needs to know (`recursive`, `follow`, ...)."""


@dataclass(frozen=True)
class Table:
    short: Mapping[str, Opt] = field(default_factory=dict)
    long: Mapping[str, Opt] = field(default_factory=dict)
    """By name without the leading dashes."""
    permute: bool = True
    """Options may follow operands (GNU); False: the first operand ends the options."""
    numbers: Literal["none", "first", "any"] = "none"
    """`-NUM` as an option: never, only as the first argument (head, tail), or anywhere (grep's context)."""
    bundles: bool = True
    """Short options may be bundled (`-la`); False: each short option is a word of its own."""


def table(
    optstring: str = "",
    longs: Iterable[str] = (),
    *,
    paths: Iterable[str] = (),
    marks: Mapping[str, str] | None = None,
    permute: bool = True,
    numbers: Literal["none", "first", "any"] = "none",
    bundles: bool = True,
) -> Table:
    """A table from getopt's own notation: `optstring` as for getopt (`n:` takes a value, `n::` an optional one),
    `longs` as names with `=` (takes a value) or `?` (an optional value, `--name=value` only) appended. `paths`
    names the options (a letter, or a long name) whose value is a file the program reads; `marks` tags options."""
    marks = marks or {}
    paths = set(paths)
    short: dict[str, Opt] = {}
    i = 0
    while i < len(optstring):
        letter = optstring[i]
        takes: Takes = "no"
        if optstring[i + 1 : i + 3] == "::":
            takes, i = "optional", i + 3
        elif optstring[i + 1 : i + 2] == ":":
            takes, i = "required", i + 2
        else:
            i += 1
        short[letter] = Opt(takes, "path" if letter in paths else "text", marks.get(letter, ""))
    long: dict[str, Opt] = {}
    for spec in longs:
        takes = "no"
        name = spec
        if spec.endswith("="):
            takes, name = "required", spec[:-1]
        elif spec.endswith("?"):
            takes, name = "optional", spec[:-1]
        long[name] = Opt(takes, "path" if name in paths else "text", marks.get(name, ""))
    return Table(short, long, permute, numbers, bundles)


@dataclass
class Parsed:
    options: list[tuple[str, Opt, Arg | None]] = field(default_factory=list)
    """Each option as (its name as written, e.g. `-n` or `--lines`; its table entry; its value)."""
    operands: list[Arg] = field(default_factory=list)
    before_dashes: int | None = None
    """How many operands came before a `--` (None: there was none)."""

    def has(self, *marks: str) -> bool:
        return any(opt.mark in marks for _, opt, _ in self.options)

    def values(self, mark: str) -> list[Arg]:
        return [value for _, opt, value in self.options if opt.mark == mark and value is not None]

    def paths(self) -> list[Arg]:
        """The values of options that name files the program reads."""
        return [value for _, opt, value in self.options if opt.kind == "path" and value is not None]


def parse(program: str, args: list[Arg], spec: Table) -> Parsed:
    """Split `args` into options and operands as `program` would; NotUnderstood for any option not in `spec`."""
    out = Parsed()
    index = 0
    ended = False
    while index < len(args):
        arg = args[index]
        text = arg.value
        index += 1
        if ended or text == "-" or not text.startswith("-"):
            out.operands.append(arg)
            if not spec.permute:
                ended = True
            continue
        if arg.group is not None:
            raise NotUnderstood(f"a glob in `{program}` expands to a name that starts with '-'")
        if text == "--":
            ended = True
            out.before_dashes = len(out.operands)
            continue
        if spec.numbers != "none" and text[1:].isdigit() and (spec.numbers == "any" or index == 1):
            out.options.append((text, Opt(mark="number"), Arg(text[1:])))
            continue
        if text.startswith("--"):
            index = _long(program, text, args, index, spec, out)
        else:
            index = _short(program, text, args, index, spec, out)
    return out


def _value(program: str, name: str, args: list[Arg], index: int) -> Arg:
    if index >= len(args):
        raise NotUnderstood(f"`{program} {name}` is missing its value")
    value = args[index]
    if value.group is not None:
        raise NotUnderstood(f"the value of `{program} {name}` comes from a glob of several files")
    return value


def _long(program: str, text: str, args: list[Arg], index: int, spec: Table, out: Parsed) -> int:
    name, equals, attached = text[2:].partition("=")
    opt = spec.long.get(name)
    if opt is None:
        raise NotUnderstood(f"`{program} --{name}` is not an option agentui knows to be harmless")
    if opt.takes == "no":
        if equals:
            raise NotUnderstood(f"`{program} --{name}` takes no value")
        out.options.append((f"--{name}", opt, None))
        return index
    if equals:
        out.options.append((f"--{name}", opt, Arg(attached)))
        return index
    if opt.takes == "optional":
        out.options.append((f"--{name}", opt, None))
        return index
    out.options.append((f"--{name}", opt, _value(program, f"--{name}", args, index)))
    return index + 1


def _short(program: str, text: str, args: list[Arg], index: int, spec: Table, out: Parsed) -> int:
    letters = text[1:]
    if not spec.bundles and len(letters) > 1:
        opt = spec.short.get(letters[0])
        if opt is None or opt.takes == "no":
            raise NotUnderstood(f"`{program} {text}` bundles options, which agentui does not read for {program}")
    position = 0
    while position < len(letters):
        letter = letters[position]
        opt = spec.short.get(letter)
        if opt is None:
            raise NotUnderstood(f"`{program} -{letter}` is not an option agentui knows to be harmless")
        rest = letters[position + 1 :]
        if opt.takes == "no":
            out.options.append((f"-{letter}", opt, None))
            position += 1
            continue
        if rest:
            out.options.append((f"-{letter}", opt, Arg(rest)))
            return index
        if opt.takes == "optional":
            out.options.append((f"-{letter}", opt, None))
            return index
        out.options.append((f"-{letter}", opt, _value(program, f"-{letter}", args, index)))
        return index + 1
    return index
