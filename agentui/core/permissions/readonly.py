"""Commands that only look: they need no permission, as long as what they look at is inside the project.

`read_only_paths(command)` returns the arguments to check as paths that are read, or None when the command is
not known to be read-only (then a rule or the person must allow it). Flags that make a looking command write or
run something (`sort -o`, `find -delete`, `git diff --output`, `rg --pre`) disqualify it.
"""

from __future__ import annotations

from agentui.core.permissions.shell import SimpleCommand

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
_FORBIDDEN_FLAGS: dict[str, tuple[str, ...]] = {
    "sort": ("-o", "--output"),
    "tree": ("-o",),
    "find": ("-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"),
    "rg": ("--pre",),
    "less": ("-o", "-O", "--log-file", "--LOG-FILE"),
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


def read_only_paths(command: SimpleCommand) -> list[str] | None:
    if command.assignments or command.open_ended:
        return None  # PAGER=..., LD_PRELOAD=..., or arguments nobody has seen yet
    name = command.name
    words = command.words
    if any(word is None for word in words):
        return None
    values: list[str] = list(words)  # type: ignore[arg-type]
    if name in _NO_PATHS:
        return []
    if name == "date":
        return None if any(v in ("-s", "--set") or v.startswith("--set=") for v in values) else []
    if name == "hostname":
        return [] if not values else None
    if name == "git":
        return _git(values)
    if name not in _READERS:
        return None
    forbidden = _FORBIDDEN_FLAGS.get(name, ())
    if any(v == flag or v.startswith(flag + "=") for v in values for flag in forbidden):
        return None
    positional = _positional(values)
    if name == "uniq" and len(positional) > 1:
        return None  # `uniq in out` writes out
    return positional


def _positional(values: list[str]) -> list[str]:
    out, after_dashes = [], False
    for value in values:
        if after_dashes or not value.startswith("-") or value == "-":
            if value != "-":
                out.append(value)
        elif value == "--":
            after_dashes = True
    return out


def _git(values: list[str]) -> list[str] | None:
    if not values or values[0].startswith("-"):
        return None  # global options (-c, -C, --exec-path, ...) can run or redirect anything
    subcommand, rest = values[0], values[1:]
    if any(v == "--output" or v.startswith(("--output=", "--exec")) or v == "--ext-diff" for v in rest):
        return None
    if subcommand in _GIT_READ_ONLY:
        return _positional(rest)
    allowed = _GIT_LISTING.get(subcommand)
    if allowed is None:
        return None
    if subcommand in ("stash", "reflog", "remote", "config"):
        return [] if not rest or rest[0] in allowed else None
    # branch and tag: only listing flags, and names only as patterns after a listing flag (`git branch x` creates x)
    flags = [v for v in rest if v.startswith("-")]
    if any(flag.split("=")[0] not in allowed for flag in flags):
        return None
    listing = any(flag.split("=")[0] in _PATTERN_FLAGS for flag in flags)
    return [] if listing or len(flags) == len(rest) else None


_PATTERN_FLAGS = {"-l", "--list", "--contains", "--points-at", "--merged", "--no-merged"}
