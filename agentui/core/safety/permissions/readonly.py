"""Commands that only look: they need no permission, as long as what they look at is inside the project.

`read_only_paths(command)` names the files a command of the see-through parse reads, for the deny rules, which must
hold even for a command agentui does not understand as a whole; it never lets anything run without a question
(that is `understand.py`'s allowlist). `only_reads(command)` says whether a command changes no file at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from agentui.core.safety.permissions.git_commands import SAFE_GLOBAL_FLAGS
from agentui.core.safety.permissions.shell import SimpleCommand

HARMLESS_TARGETS = {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"}
"""Redirection targets that write no file."""

# Commands whose arguments are not files.
_NO_PATHS = {
    "echo",
    "printf",
    "pwd",
    "true",
    "false",
    "whoami",
    "id",
    "uname",
    "seq",
    "expr",
    "sleep",
    "printenv",
    "which",
    "type",
    "basename",
    "dirname",
    "nproc",
    "arch",
    "uptime",
    "free",
    "cd",
    "test",
    "[",
}
# Commands that read the files they are given.
_READERS = {
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "file",
    "stat",
    "du",
    "df",
    "tree",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "diff",
    "cmp",
    "comm",
    "cut",
    "realpath",
    "readlink",
    "nl",
    "sort",
    "uniq",
    "column",
    "jq",
    "sha256sum",
    "sha1sum",
    "sha512sum",
    "md5sum",
    "cksum",
    "od",
    "hexdump",
    "strings",
    "find",
    "less",
    "more",
    "tac",
    "rev",
    "fold",
    "paste",
    "join",
    "tr",
}


@dataclass(frozen=True)
class _Flags:
    """How a program reads its options, enough to find the ones that write or run something: short options that
    take a value (the rest of a bundle, or the next word), and the dangerous short letters and long names. Long
    names are matched as GNU getopt matches them, by any prefix (`--outp` is `--output`)."""

    with_value: str = ""
    short: str = ""
    long: tuple[str, ...] = ()
    single_dash_long: tuple[str, ...] = ()
    """find's predicates (`-delete`), matched whole or by a prefix of four characters or more."""


_FORBIDDEN: dict[str, _Flags] = {
    "sort": _Flags(
        with_value="kotST", short="o", long=("--output", "--compress-program", "--files0-from", "--random-source")
    ),
    "tree": _Flags(with_value="oLPIH", short="o", long=("--output", "--fromfile")),
    "find": _Flags(
        single_dash_long=(
            "-delete",
            "-exec",
            "-execdir",
            "-ok",
            "-okdir",
            "-fprint",
            "-fprint0",
            "-fprintf",
            "-fls",
        )
    ),
    "rg": _Flags(with_value="ABCEeFfgjmMrtT", short="f", long=("--pre", "--file", "--ignore-file")),
    "grep": _Flags(with_value="ABCDdefm", short="f", long=("--file",)),
    "less": _Flags(with_value="oObBhjkpPtTxyz", short="oOk", long=("--log-file", "--LOG-FILE", "--lesskey-file")),
    "date": _Flags(with_value="dfrsI", short="sf", long=("--set", "--file")),
    "jq": _Flags(with_value="", short="fL", long=("--rawfile", "--slurpfile", "--from-file")),
}

_GIT_READ_ONLY = {
    "status",
    "diff",
    "log",
    "show",
    "blame",
    "ls-files",
    "ls-tree",
    "rev-parse",
    "describe",
    "shortlog",
    "grep",
    "cat-file",
    "rev-list",
    "version",
    "merge-base",
    "whatchanged",
    "name-rev",
}
_GIT_LISTING = {  # read-only only in their listing forms
    "branch": (
        "-a",
        "-r",
        "-v",
        "-vv",
        "--all",
        "--remotes",
        "--list",
        "--show-current",
        "--merged",
        "--no-merged",
        "--contains",
        "--verbose",
        "--color",
        "--no-color",
    ),
    "remote": ("-v", "--verbose", "show", "get-url"),
    "tag": ("-l", "--list", "-n", "--contains", "--points-at"),
    "stash": ("list", "show"),
    "config": ("--get", "--get-all", "--list", "-l", "--get-regexp", "--show-origin"),
    "reflog": ("show",),
}


def only_reads(command: str, cwd: Path | None = None) -> bool:
    """Whether a whole shell command is known to change no file: agentui understands all of it, every program in it
    only looks (no file command, nothing it does not know), and nothing is redirected into a file."""
    import os

    from agentui.core.safety.environ import child_environment
    from agentui.core.safety.permissions.bash_words import NotUnderstood
    from agentui.core.safety.permissions.understand import understand

    try:
        plan = understand(command, child_environment(os.environ), cwd or Path.cwd())
    except NotUnderstood:
        return False
    for step in plan.steps:
        effects = step.effects
        if step.unknown or effects.edits or effects.writes or effects.removes:
            return False
        if any(redirect.writes and target not in HARMLESS_TARGETS for redirect, target in step.redirects):
            return False
    return True


def read_only_paths(command: SimpleCommand) -> list[str] | None:
    if command.assignments or (command.open_ended and command.fed_from is None):
        return None  # PAGER=..., LD_PRELOAD=..., or arguments nobody has seen yet
    name = command.name
    words = command.words
    if name in _NO_PATHS:
        return []  # (what they print may depend on an expansion: they still read no file)
    if any(word is None for word in words):
        return None
    values: list[str] = list(words)  # type: ignore[arg-type]
    if "/" not in name and values in (["--version"], ["-V"] if name.startswith("python") else ["--version"]):
        return []  # `python3 --version`: the program on the person's PATH says what it is
    if name == "date":
        return None if _forbidden(values, _FORBIDDEN["date"]) else []
    if name == "hostname":
        return [] if not values else None
    if name == "git":
        return _git(values)
    if name == "sed":
        return _sed(values)
    if name in ("awk", "gawk", "mawk"):
        return _awk(values)
    if name not in _READERS:
        return None
    if (flags := _FORBIDDEN.get(name)) is not None and _forbidden(values, flags):
        return None
    positional = _positional(values)
    if name == "uniq" and len(positional) > 1:
        return None  # `uniq in out` writes out
    if command.fed_from is not None:  # find feeds it names under these: that is where it reads
        positional += command.fed_from
    return positional


def _forbidden(values: list[str], flags: _Flags) -> bool:
    """Whether any option in `values` is one of `flags`' dangerous ones, however it is written."""
    index = 0
    while index < len(values):
        value = values[index]
        index += 1
        if value == "--":
            return False
        if value.startswith("--"):
            option = value.split("=", 1)[0]
            if len(option) > 2 and any(long.startswith(option) for long in flags.long):
                return True
            continue
        if value.startswith("-") and len(value) > 1:
            if flags.single_dash_long and any(
                p == value or (len(value) >= 4 and p.startswith(value)) for p in flags.single_dash_long
            ):
                return True
            for position, letter in enumerate(value[1:], 1):
                if letter in flags.short:
                    return True
                if letter in flags.with_value:
                    if position == len(value) - 1:
                        index += 1  # the value is the next word
                    break
    return False


_SED_SCRIPT = re.compile(r"^(\d+|\$)?(,(\d+|\$))?[pd=]$|^\d*q$|^s(.)(?:(?!\4).)*\4(?:(?!\4).)*\4[gpI\d]*$")


def _sed(values: list[str]) -> list[str] | None:
    """sed that only prints: -n/-E/-r and one simple script (line ranges with p, d, =, q, or s/// without the w
    and e flags); anything else (-i, w, e, r) writes, runs or reads more."""
    options = [v for v in values if v.startswith("-")]
    if any(o not in ("-n", "-E", "-r", "--quiet", "--silent", "-nE", "-En", "-nr", "-rn") for o in options):
        return None
    operands = [v for v in values if not v.startswith("-")]
    if not operands or not _SED_SCRIPT.match(operands[0]):
        return None
    return operands[1:]


_AWK_UNSAFE = re.compile(r"system|getline|[|>]|close|fflush|ENVIRON|PROCINFO|@load|@include")


def _awk(values: list[str]) -> list[str] | None:
    """awk whose program only reads and prints: no system(), pipes, redirections or getline."""
    index, operands = 0, []
    while index < len(values):
        value = values[index]
        if value in ("-F", "-v"):
            index += 2
            continue
        if value.startswith(("-F", "-v")) and len(value) > 2:
            index += 1
            continue
        if value.startswith("-"):
            return None  # -f FILE, --exec, -E...: a program nobody has read
        operands.append(value)
        index += 1
    if not operands or _AWK_UNSAFE.search(operands[0]):
        return None
    return [v for v in operands[1:] if "=" not in v]  # (var=value operands assign)


def _positional(values: list[str]) -> list[str]:
    """The operands, and the values of `--option=value` that name a path (`--from-file=../x`)."""
    out, after_dashes = [], False
    for value in values:
        if after_dashes or not value.startswith("-") or value == "-":
            if value != "-":
                out.append(value)
        elif value == "--":
            after_dashes = True
        elif value.startswith("--") and "=" in value:
            attached = value.split("=", 1)[1]
            if "/" in attached or attached in (".", ".."):
                out.append(attached)
    return out


_GIT_DANGEROUS = _Flags(
    with_value="", short="O", long=("--output", "--exec", "--ext-diff", "--open-files-in-pager", "--upload-pack")
)


def _git(values: list[str]) -> list[str] | None:
    while values and values[0] in SAFE_GLOBAL_FLAGS:
        values = values[1:]
    if not values or values[0].startswith("-"):
        return None  # other global options (-c, -C, --exec-path, ...) can run or redirect anything
    subcommand, rest = values[0], values[1:]
    if _forbidden(rest, _GIT_DANGEROUS if subcommand == "grep" else replace_short(_GIT_DANGEROUS)):
        return None
    if subcommand == "remote":
        names = [v for v in rest if not v.startswith("-")]
        flags_ok = all(v in ("-v", "--verbose") for v in rest if v.startswith("-"))
        return [] if flags_ok and (not names or names[0] in ("show", "get-url")) else None
    if subcommand in _GIT_READ_ONLY:
        return _positional(rest)
    allowed = _GIT_LISTING.get(subcommand)
    if allowed is None:
        return None
    if subcommand in ("stash", "reflog", "config"):
        return [] if not rest or rest[0] in allowed else None
    # branch and tag: only listing flags, and names only as patterns after a listing flag (`git branch x` creates x)
    flags = [v for v in rest if v.startswith("-")]
    if any(flag.split("=")[0] not in allowed for flag in flags):
        return None
    listing = any(flag.split("=")[0] in _PATTERN_FLAGS for flag in flags)
    return [] if listing or len(flags) == len(rest) else None


_PATTERN_FLAGS = {"-l", "--list", "--contains", "--points-at", "--merged", "--no-merged"}


def replace_short(flags: _Flags) -> _Flags:
    """The same flags with no dangerous short letter (only `git grep` reads -O as a program)."""
    return _Flags(with_value=flags.with_value, short="", long=flags.long)
