"""The programs a command may run without a question, each with the options it may take and what its arguments
mean: the files it reads, the directories it walks, the files it writes (the file commands acceptEdits lets
through), the command it runs (timeout, nice, xargs). A program not here, or an option not in its table, makes the
command ask. See CONTRIBUTING.md, "Adding a program to the allowlist", before adding one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from agentui.core.safety.permissions.bash_words import NotUnderstood
from agentui.core.safety.permissions.effects import Copy, Effects, GitUse, Inner, Tree
from agentui.core.safety.permissions.options import Arg, Opt, Parsed, Table, parse, table
from agentui.core.safety.permissions.script_checks import (
    FORBIDDEN_AWK_VARIABLES,
    check_awk_program,
    check_jq_filter,
    check_sed_script,
    sed_sandbox_accepts,
)

_INFO = ("help", "version")
"""Every GNU program's `--help` and `--version`: they print and exit."""


Handler = Callable[[str, list[Arg], "Effects | None"], Effects]
"""(the program's name, its arguments, the effects of the command piped into it) -> what it does."""


def _readers(spec: Table, *, at_most: int | None = None) -> Handler:
    def handle(name: str, args: list[Arg], before: Effects | None) -> Effects:
        parsed = parse(name, args, spec)
        if at_most is not None and len(parsed.operands) > at_most:
            raise NotUnderstood(f"`{name}` with more than {at_most} file(s) writes or does more than read")
        return Effects(reads=[*parsed.operands, *parsed.paths()])

    return handle


def _lookers(
    spec: Table, *, recursive: str = "", follow: str = "", default_here: bool = False, own_links: bool = False
) -> Handler:
    """Programs that read names and metadata (ls, stat, du): `recursive` marks the option that walks trees;
    `own_links`: a link named as an operand is looked at itself unless the `follow` option is given."""

    def handle(name: str, args: list[Arg], before: Effects | None) -> Effects:
        parsed = parse(name, args, spec)
        operands = parsed.operands or ([Arg(".")] if default_here or recursive else [])
        effects = Effects(looks=list(operands), reads=parsed.paths())
        effects.own_links = own_links and not (follow and parsed.has(follow))
        effects.linked = tuple(arg.value for arg in parsed.paths())
        if default_here or (recursive and parsed.has(recursive)):
            effects.trees = [
                Tree(op, follow=parsed.has(follow) if follow else False, contents=False) for op in operands
            ]
        return effects

    return handle


def _no_paths(spec: Table | None = None, *, operands: bool = True) -> Handler:
    def handle(name: str, args: list[Arg], before: Effects | None) -> Effects:
        if spec is not None:
            parsed = parse(name, args, spec)
            if not operands and parsed.operands:
                raise NotUnderstood(f"`{name}` with arguments does more than print")
            if parsed.paths():
                return Effects(reads=parsed.paths())
        elif not operands and args:
            raise NotUnderstood(f"`{name}` with arguments does more than print")
        return Effects()

    return handle


_PS = table(
    "efFlAadNHjLTwyMcqo:p:u:U:C:g:G:t:s:O:",
    ["forest", "no-headers", "headers", "sort=", "cols=", "columns=", "width=", "format=", "pid=", "ppid=", "user=",
     "User=", "group=", "Group=", "tty=", "sid=", "quick-pid=", "lines=", "rows=", *_INFO],
    bundles=True,
)  # fmt: skip
_PS_BSD = frozenset("auxwfjlvrTScnhHmMZ")
"""Letters of ps's BSD-style first word that only choose processes and columns (not `e`: their environments)."""


_PS_COLUMNS = frozenset(
    {
        "pid", "ppid", "pgid", "pgrp", "sid", "tid", "lwp", "nlwp", "thcount", "user", "euser", "ruser", "uid", "euid",
        "ruid", "gid", "egid", "group", "egroup", "comm", "ucmd", "ucomm", "cmd", "args", "command", "etime", "etimes",
        "time", "cputime", "cputimes", "stat", "state", "s", "pcpu", "%cpu", "c", "pmem", "%mem", "rss", "rssize",
        "rsz", "vsz", "vsize", "sz", "size", "tty", "tt", "tname", "start", "start_time", "stime", "lstart", "bsdstart",
        "nice", "ni", "pri", "priority", "psr", "wchan", "f", "flags", "cls", "policy", "rtprio", "maj_flt",
        "min_flt", "cgroup",
    }
)  # fmt: skip
"""Columns ps may show unasked: not `environ` (processes' environments hold keys, agentui's own included)."""


def _ps(name: str, args: list[Arg], before: Effects | None) -> Effects:
    """ps lists processes from /proc; it reads no file it is given. Never their environments (BSD `e`, `-o environ`):
    its columns are from a list, as are its BSD-style letters."""
    if args and not args[0].value.startswith("-"):
        if not args[0].value or not set(args[0].value) <= _PS_BSD:
            raise NotUnderstood("`ps` is given a BSD-style option agentui does not know to be harmless")
        args = args[1:]
    parsed = parse(name, args, _PS)
    if parsed.operands:
        raise NotUnderstood("`ps` is given an operand agentui does not follow")
    for flag, _, value in parsed.options:
        if flag.split("=", 1)[0] in ("-o", "-O", "--format", "--sort") and value is not None:
            for column in re.split(r"[,\s]+", value.value):
                keyword = column.split("=", 1)[0].lstrip("+-").lower()
                if keyword and keyword not in _PS_COLUMNS:
                    raise NotUnderstood(f"`ps` is asked for the column {keyword!r}, which agentui does not know")
    return Effects()


def _anything(name: str, args: list[Arg], before: Effects | None) -> Effects:
    """Builtins whose arguments are only text to print (echo, true, false)."""
    return Effects()


# Programs that print what they are given or what the system is


def _printf(name: str, args: list[Arg], before: Effects | None) -> Effects:
    if args and args[0].value.startswith("-") and args[0].value != "--":
        raise NotUnderstood("`printf -v` assigns a variable")
    return Effects()


def _command(name: str, args: list[Arg], before: Effects | None) -> Effects:
    """`command -v NAME` / `command -V NAME` only look a name up (`command CMD` would run CMD)."""
    if not args or args[0].value not in ("-v", "-V", "-pv", "-vp"):
        raise NotUnderstood("`command` runs a command unless given -v or -V")
    if any(a.value.startswith("-") for a in args[1:]):
        raise NotUnderstood("`command -v` is given an option agentui does not know")
    return Effects()


def _env(name: str, args: list[Arg], before: Effects | None) -> Effects:
    """`env` alone prints the environment (secrets are already kept out of it); with arguments it runs a command."""
    if any(a.value not in ("-0", "--null") for a in args):
        raise NotUnderstood("`env` with arguments runs a command in a changed environment")
    return Effects()


def _hostname(name: str, args: list[Arg], before: Effects | None) -> Effects:
    if any(a.value not in ("-f", "-s", "-d", "-i", "-I", "-A", "--fqdn", "--short", "--domain") for a in args):
        raise NotUnderstood("`hostname` with an operand sets the host name")
    return Effects()


def _date(name: str, args: list[Arg], before: Effects | None) -> Effects:
    spec = table(
        "d:f:I::r:Ru",
        ["date=", "file=", "iso-8601?", "reference=", "rfc-email", "rfc-3339=", "universal", "utc", "debug", *_INFO],
        paths=("f", "file"),
    )
    parsed = parse(name, args, spec)
    if any(not op.value.startswith("+") for op in parsed.operands):
        raise NotUnderstood("`date` with an operand that is not +FORMAT sets the clock")
    looks = [v for flag, _, v in parsed.options if flag in ("-r", "--reference") and v is not None]
    return Effects(reads=parsed.paths(), looks=looks)


def _version_only(name: str, args: list[Arg], before: Effects | None) -> Effects:
    """Language tools asked only for their version (`python3 --version`, `node -v`). The check also wants the
    program to be the one asked about, not a version manager's shim (see `version_query`)."""
    allowed = {"--version", "-V"} if name.startswith(("python", "pip")) else {"--version"}
    if name == "node":
        allowed = {"--version", "-v"}
    if [a.value for a in args] not in ([v] for v in allowed):
        raise NotUnderstood(f"`{name}` runs code unless asked only for its version")
    return Effects()


# Builtins of the shell itself


def _cd(name: str, args: list[Arg], before: Effects | None) -> Effects:
    rest = [a for a in args if a.value not in ("-L", "-P", "--")]
    if any(a.value.startswith("-") and a.value != "-" for a in rest):
        raise NotUnderstood("`cd` is given an option agentui does not follow")
    if not rest:
        return Effects(cd_home=True)
    if len(rest) > 1:
        raise NotUnderstood("`cd` is given more than one directory")
    if rest[0].value == "-":
        raise NotUnderstood("`cd -` goes back to a directory from the shell's history")
    return Effects(cd=rest[0], looks=[rest[0]])


_TEST_UNARY = set("bcdefghkprstuwxGLNOSz") | {"n", "o"}
_TEST_FILE_UNARY = set("bcdefghkprsuwxGLNOSt") - {"t"}
_TEST_BINARY = {"=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef"}


def _test(name: str, args: list[Arg], before: Effects | None) -> Effects:
    """`test` and `[`: file tests, string and integer comparisons. Not `-v` (it evaluates array subscripts, which
    can run commands) and not `-R`."""
    if name == "[":
        if not args or args[-1].value != "]":
            raise NotUnderstood("`[` is not closed with `]`")
        args = args[:-1]
    looks: list[Arg] = []
    i = 0
    while i < len(args):
        word = args[i].value
        expecting = i == 0 or args[i - 1].value in ("!", "(", "-a", "-o")
        if word == "-a" and expecting and i + 1 < len(args):  # (`-a FILE` where an operand is due: FILE exists)
            looks.append(args[i + 1])
            i += 2
            continue
        if word in ("!", "(", ")", "-a", "-o") and not (i + 1 < len(args) and args[i + 1].value in _TEST_BINARY):
            i += 1
            continue
        if word.startswith("-") and len(word) == 2 and word[1] in _TEST_UNARY and i + 1 < len(args):
            if word[1] in _TEST_FILE_UNARY:
                looks.append(args[i + 1])
            i += 2
            continue
        if word in ("-v", "-R"):
            raise NotUnderstood(f"`test {word}` evaluates a variable's name, which can run commands")
        if i + 2 < len(args) and args[i + 1].value in _TEST_BINARY:
            if args[i + 1].value in ("-nt", "-ot", "-ef"):
                looks += [args[i], args[i + 2]]
            i += 3
            continue
        i += 1  # a lone string: true if not empty
    return Effects(looks=looks)


# Programs that run another program


def _timeout(name: str, args: list[Arg], before: Effects | None) -> Effects:
    spec = table("k:s:v", ["kill-after=", "signal=", "preserve-status", "foreground", "verbose", *_INFO], permute=False)
    parsed = parse(name, args, spec)
    if len(parsed.operands) < 2:
        raise NotUnderstood("`timeout` is given no command")
    return Effects(inner=[Inner(parsed.operands[1:])])


def _nice(name: str, args: list[Arg], before: Effects | None) -> Effects:
    spec = table("n:", ["adjustment=", *_INFO], permute=False, numbers="first")
    parsed = parse(name, args, spec)
    if not parsed.operands:
        return Effects()
    return Effects(inner=[Inner(parsed.operands)])


def _nohup(name: str, args: list[Arg], before: Effects | None) -> Effects:
    if not args or args[0].value.startswith("-"):
        raise NotUnderstood("`nohup` is given no command")
    return Effects(inner=[Inner(args)])


_XARGS = table(
    "0n:P:rtx",
    ["null", "max-args=", "max-procs=", "no-run-if-empty", "verbose", "exit", *_INFO],
    permute=False,
)


def _xargs(name: str, args: list[Arg], before: Effects | None) -> Effects:
    """`find DIRS ... | xargs CMD`: CMD gets the names of files under DIRS as operands. From anything else, the
    names are unknown. Without -0, xargs splits names on blanks and quotes: the walk then checks that no name
    under DIRS has any."""
    parsed = parse(name, args, _XARGS)
    if before is None or before.names is None:
        raise NotUnderstood("`xargs` gets its arguments from a command other than find")
    null = any(flag in ("-0", "--null") for flag, _, _ in parsed.options)
    if null != before.names_null:
        raise NotUnderstood("`find` and `xargs` disagree about NUL-separated names")
    if not parsed.operands:
        raise NotUnderstood("`xargs` without a command runs echo")
    return Effects(inner=[Inner(parsed.operands, before.names, split=not null)])


# Looking at files


_CAT = table("AbeEnstTuv", ["show-all", "number-nonblank", "show-ends", "number", "squeeze-blank", "show-tabs",
                            "show-nonprinting", *_INFO])  # fmt: skip
_HEAD = table("c:n:qvz", ["bytes=", "lines=", "quiet", "silent", "verbose", "zero-terminated", *_INFO],
              numbers="first")  # fmt: skip
_TAIL = table("c:n:fFqs:vz", ["bytes=", "lines=", "follow?", "retry", "quiet", "silent", "sleep-interval=",
              "verbose", "zero-terminated", "max-unchanged-stats=", *_INFO], numbers="first")  # fmt: skip
_WC = table("clmwL", ["bytes", "chars", "lines", "words", "max-line-length", "total=", *_INFO])
_NL = table("b:d:f:h:i:l:n:ps:v:w:", ["body-numbering=", "section-delimiter=", "footer-numbering=",
            "header-numbering=", "line-increment=", "join-blank-lines=", "number-format=", "no-renumber",
            "number-separator=", "starting-line-number=", "number-width=", *_INFO])  # fmt: skip
_TAC = table("brs:", ["before", "regex", "separator=", *_INFO])
_REV = table("0", ["zero", *_INFO])
_CUT = table("b:c:d:f:nsz", ["bytes=", "characters=", "delimiter=", "fields=", "complement", "only-delimited",
                             "output-delimiter=", "zero-terminated", *_INFO])  # fmt: skip
# (no -S/--buffer-size: a small buffer makes sort spill the data to temporary files in /tmp)
_SORT = table("bcCdfghik:mMnrRst:uVz", ["ignore-leading-blanks", "check?", "dictionary-order", "ignore-case",
              "general-numeric-sort", "human-numeric-sort", "ignore-nonprinting", "key=", "merge", "month-sort",
              "numeric-sort", "random-sort", "reverse", "stable", "field-separator=", "unique",
              "version-sort", "zero-terminated", "parallel=", "sort=", "debug", *_INFO])  # fmt: skip
_UNIQ = table("cdDf:is:uw:z", ["count", "repeated", "all-repeated?", "skip-fields=", "group?", "ignore-case",
              "skip-chars=", "unique", "check-chars=", "zero-terminated", *_INFO])  # fmt: skip
_TR = table("cCdst", ["complement", "delete", "squeeze-repeats", "truncate-set1", *_INFO])
_COMM = table("123z", ["check-order", "nocheck-order", "output-delimiter=", "total", "zero-terminated", *_INFO])
_JOIN = table("a:e:ij:o:t:v:z1:2:", ["ignore-case", "check-order", "nocheck-order", "header", "zero-terminated",
              *_INFO])  # fmt: skip
_PASTE = table("d:sz", ["delimiters=", "serial", "zero-terminated", *_INFO])
_FOLD = table("bsw:", ["bytes", "spaces", "width=", *_INFO], numbers="first")
_EXPAND = table("it:", ["initial", "tabs=", *_INFO], numbers="first")
_UNEXPAND = table("at:", ["all", "first-only", "tabs=", *_INFO], numbers="first")
_COLUMN = table("c:dE:eH:iJl:LN:n:O:o:R:rs:T:tW:x", ["columns=", "table-noheadings", "table-noextreme=",
                "keep-empty-lines", "table-hide=", "json", "table-columns-limit=", "table-empty-lines",
                "table-columns=", "table-name=", "table-order=", "output-separator=", "table-right=", "tree=",
                "separator=", "table-truncate=", "table", "table-wrap=", "fillrows", *_INFO])  # fmt: skip
_OD = table("A:j:N:t:vw::abcdfhilosx", ["address-radix=", "endian=", "skip-bytes=", "read-bytes=", "format=",
            "output-duplicates", "strings?", "width?", "traditional", *_INFO])  # fmt: skip
_HEXDUMP = table("bcCde:f:n:os:vx", ["one-byte-octal", "one-byte-char", "canonical", "two-bytes-decimal", "format=",
                 "format-file=", "length=", "skip=", "no-squeezing", "two-bytes-octal", "two-bytes-hex", "color?",
                 *_INFO], paths=("f", "format-file"))  # fmt: skip
_STRINGS = table("adfn:t:e:ws:", ["all", "data", "print-file-name", "bytes=", "radix=", "encoding=",
                 "include-all-whitespace", "output-separator=", *_INFO])  # fmt: skip
_BASE64 = table("diw:", ["decode", "ignore-garbage", "wrap=", *_INFO])
_SUMS = table("btz", ["binary", "text", "tag", "zero", *_INFO])
_B2SUM = table("btzl:", ["binary", "text", "tag", "zero", "length=", *_INFO])
_CKSUM = table("a:l:", ["algorithm=", "length=", "untagged", "base64", "raw", "debug", *_INFO])
_SUM = table("rs", ["sysv", *_INFO])
_CMP = table("bi:ln:s", ["print-bytes", "ignore-initial=", "verbose", "bytes=", "quiet", "silent", *_INFO])
_FILE = table("bcdEe:F:hikLNnprP:0v", ["brief", "extension", "mime", "mime-type", "mime-encoding", "keep-going",
              "dereference", "no-dereference", "no-pad", "no-buffer", "raw", "separator=", "print0", "exclude=",
              "exclude-quiet=", "parameter=", "preserve-date", *_INFO])  # fmt: skip
_LS = table("abcdfghiklmnopqrstuvw:xABCDFGHI:LNQRST:UXZ1", ["all", "almost-all", "author", "escape", "block-size=",
            "ignore-backups", "color?", "colour?", "directory", "dired", "classify?", "file-type", "format=",
            "full-time", "group-directories-first", "no-group", "human-readable", "si",
            "dereference-command-line", "dereference-command-line-symlink-to-dir", "hide=", "hyperlink?",
            "indicator-style=", "inode", "ignore=", "kibibytes", "dereference", "literal", "numeric-uid-gid",
            "hide-control-chars", "show-control-chars", "quote-name", "quoting-style=", "reverse", "recursive",
            "size", "sort=", "time=", "time-style=", "tabsize=", "width=", "context", "zero", *_INFO],
            marks={"R": "recursive", "recursive": "recursive", "L": "follow", "dereference": "follow"})  # fmt: skip
_STAT = table("c:fLt", ["dereference", "file-system", "cached=", "format=", "printf=", "terse", *_INFO],
              marks={"L": "follow", "dereference": "follow"})  # fmt: skip
_DU = table("0abcd:hHklLmsSxB:t:X:", ["null", "all", "apparent-size", "block-size=", "bytes", "total", "max-depth=",
            "human-readable", "inodes", "dereference-args", "dereference", "count-links", "separate-dirs",
            "summarize", "si", "threshold=", "time?", "time-style=", "exclude=", "exclude-from=", "one-file-system",
            *_INFO], paths=("X", "exclude-from"), marks={"L": "follow", "dereference": "follow",
            "D": "follow", "H": "follow", "dereference-args": "follow"})  # fmt: skip
_DF = table("aB:hHiklmPTt:vx:", ["all", "block-size=", "human-readable", "si", "inodes", "local", "output?",
            "portability", "print-type", "sync", "no-sync", "total", "type=", "exclude-type=", *_INFO])  # fmt: skip
_LOCALE = table("acmkv", ["all-locales", "charmaps", "category-name", "keyword-name", "verbose", *_INFO])
_REALPATH = table("eLmPqsz", ["canonicalize-existing", "canonicalize-missing", "logical", "physical", "quiet",
                  "relative-to=", "relative-base=", "strip", "no-symlinks", "zero", *_INFO],
                  paths=("relative-to", "relative-base"))  # fmt: skip
_READLINK = table("efmnqsvz", ["canonicalize", "canonicalize-existing", "canonicalize-missing", "no-newline",
                  "quiet", "silent", "verbose", "zero", *_INFO],
                  marks=dict.fromkeys(("e", "f", "m", "canonicalize", "canonicalize-existing",
                                       "canonicalize-missing"), "follow"))  # fmt: skip
_TREE_FLAGS = set("adlfxiAsSnCpugDFvtcUrhJ")
_TREE_VALUES = {"-L", "-P", "-I"}
_TREE_LONG = {"--gitignore", "--ignore-case", "--matchdirs", "--prune", "--noreport", "--du", "--si", "--dirsfirst",
              "--filesfirst", "--metafirst", "--inodes", "--device", "--help", "--version"}  # fmt: skip


def _tree(name: str, args: list[Arg], before: Effects | None) -> Effects:
    """tree reads its options its own way: a letter that takes a value takes the next word, wherever it stands in a
    bundle (`-Lo 2 out` is -L 2 and -o out). So a value-taking option must be a word of its own (-L, -P, -I), and
    a bundle holds flags only; -o (writes a file), -R, -H, -T and --fromfile are not taken at all."""
    operands: list[Arg] = []
    follow = False
    i = 0
    while i < len(args):
        word = args[i].value
        if word in _TREE_VALUES:
            if i + 1 >= len(args) or args[i + 1].group is not None:
                raise NotUnderstood(f"`tree {word}` is missing its value")
            i += 2
            continue
        if word in _TREE_LONG or (word.startswith(("--filelimit=", "--sort=")) and word.count("=") == 1):
            i += 1
            continue
        if word.startswith("-") and word != "-":
            if word.startswith("--") or any(letter not in _TREE_FLAGS for letter in word[1:]):
                raise NotUnderstood(f"`tree {word}` is not an option agentui knows to be harmless")
            follow = follow or "l" in word
            i += 1
            continue
        operands.append(args[i])
        i += 1
    operands = operands or [Arg(".")]
    return Effects(looks=operands, trees=[Tree(op, follow=follow, contents=False) for op in operands])


_DIFF = table("abBcC:dD:eEF:iI:nNpPqrsS:tTuU:wW:x:X:yZ", ["normal", "brief", "report-identical-files",
              "context?", "unified?", "ed", "rcs", "side-by-side", "left-column", "suppress-common-lines",
              "show-c-function", "show-function-line=", "label=", "expand-tabs", "initial-tab", "tabsize=",
              "suppress-blank-empty", "width=", "recursive", "no-dereference", "new-file", "unidirectional-new-file",
              "ignore-file-name-case", "no-ignore-file-name-case", "exclude=", "exclude-from=", "starting-file=",
              "from-file=", "to-file=", "ignore-case", "ignore-tab-expansion", "ignore-trailing-space",
              "ignore-space-change", "ignore-all-space", "ignore-blank-lines", "ignore-matching-lines=", "text",
              "strip-trailing-cr", "minimal", "speed-large-files", "horizon-lines=", "color?", "palette=",
              "line-format=", "old-line-format=", "new-line-format=", "unchanged-line-format=", "old-group-format=",
              "new-group-format=", "unchanged-group-format=", "changed-group-format=", *_INFO],
              paths=("X", "exclude-from", "from-file", "to-file"),
              marks={"r": "recursive", "recursive": "recursive", "no-dereference": "nofollow"})  # fmt: skip


def _diff(name: str, args: list[Arg], before: Effects | None) -> Effects:
    parsed = parse(name, args, _DIFF)
    files = [*parsed.operands, *[v for f, _, v in parsed.options if f in ("--from-file", "--to-file") and v]]
    effects = Effects(reads=[*parsed.operands, *parsed.paths()])
    # (a directory operand, recursive or not, has diff read what is inside it: the same names as in the other
    # operand, or a file's basename; so it is read whole)
    effects.trees = [Tree(f, follow=not parsed.has("nofollow")) for f in files]
    return effects


def _cmp(name: str, args: list[Arg], before: Effects | None) -> Effects:
    parsed = parse(name, args, _CMP)
    if any(not op.value.isdigit() for op in parsed.operands[2:]):
        raise NotUnderstood("`cmp` is given more than two files")
    return Effects(reads=parsed.operands[:2])


def _xxd(name: str, args: list[Arg], before: Effects | None) -> Effects:
    """xxd parses its own options, one to a word; a second operand is a file it writes."""
    with_value = {"-c", "-cols", "-g", "-groupsize", "-l", "-len", "-o", "-s", "-seek", "-n", "-name", "-R"}
    flags = {"-a", "-autoskip", "-b", "-bits", "-C", "-capitalize", "-E", "-EBCDIC", "-e", "-h", "-help", "-i",
             "-include", "-p", "-ps", "-postscript", "-plain", "-u", "-d", "-v", "-version"}  # fmt: skip
    operands: list[Arg] = []
    i = 0
    while i < len(args):
        word = args[i].value
        if operands:  # (xxd reads no option after its first file: `xxd in -ps` writes a file named -ps)
            operands.append(args[i])
            i += 1
            continue
        if word in with_value:
            if i + 1 < len(args) and args[i + 1].group is not None:
                raise NotUnderstood(f"the value of `xxd {word}` comes from a glob")
            i += 2
            continue
        if word in flags:
            i += 1
            continue
        if word.startswith("-") and word != "-":
            raise NotUnderstood(f"`xxd {word}` is not an option agentui knows to be harmless")
        operands.append(args[i])
        i += 1
    if len(operands) > 1:
        raise NotUnderstood("`xxd` with two files writes the second")
    return Effects(reads=operands)


def _strings(name: str, args: list[Arg], before: Effects | None) -> Effects:
    if any(a.value.startswith("@") for a in args):
        raise NotUnderstood("`strings @FILE` reads more arguments from a file")
    return _readers(_STRINGS)(name, args, before)


def _tac(name: str, args: list[Arg], before: Effects | None) -> Effects:
    effects = _readers(_TAC)(name, args, before)
    if not effects.reads or any(arg.value == "-" for arg in effects.reads):
        raise NotUnderstood("tac copies what it reads from a pipe to a temporary file in /tmp")
    return effects


_SHUF = table("ei:n:rz", ["echo", "input-range=", "head-count=", "repeat", "zero-terminated", "random-source=",
              *_INFO], paths=("random-source",), marks={"e": "words", "echo": "words", "i": "words",
              "input-range": "words"})  # fmt: skip


def _shuf(name: str, args: list[Arg], before: Effects | None) -> Effects:
    """shuf's operands are lines to shuffle under -e (or none under -i), else the one file it reads; -o, which
    writes, is not in the table."""
    parsed = parse(name, args, _SHUF)
    if parsed.has("words"):
        return Effects(reads=parsed.paths())
    if len(parsed.operands) > 1:
        raise NotUnderstood("`shuf` reads one file")
    return Effects(reads=[*parsed.operands, *parsed.paths()])


def _uniq(name: str, args: list[Arg], before: Effects | None) -> Effects:
    return _readers(_UNIQ, at_most=1)(name, args, before)


def _df(name: str, args: list[Arg], before: Effects | None) -> Effects:
    parsed = parse(name, args, _DF)
    return Effects(looks=parsed.operands, anywhere=True)


def _file(name: str, args: list[Arg], before: Effects | None) -> Effects:
    effects = _readers(_FILE)(name, args, before)
    follows = any(a.value in ("-L", "--dereference") or (a.value.startswith("-") and "L" in a.value[1:]
                                                           and not a.value.startswith("--")) for a in args)  # fmt: skip
    effects.own_links = not follows
    effects.linked = tuple(arg.value for arg in parse(name, args, _FILE).paths())
    return effects


# Searching


_GREP = table("A:B:C:D:EFGHILPTVabcd:e:f:hilm:noqRrsvwxyZz", ["extended-regexp", "fixed-strings", "basic-regexp",
              "perl-regexp", "regexp=", "file=", "ignore-case", "no-ignore-case", "word-regexp", "line-regexp",
              "null-data", "no-messages", "invert-match", "max-count=", "byte-offset", "line-number",
              "no-line-number", "line-buffered", "with-filename", "no-filename", "label=", "only-matching", "quiet",
              "silent", "binary-files=", "text", "directories=", "devices=", "recursive", "dereference-recursive",
              "include=", "exclude=", "exclude-from=", "exclude-dir=", "files-without-match", "files-with-matches",
              "count", "initial-tab", "null", "before-context=", "after-context=", "context=", "group-separator=",
              "no-group-separator", "color?", "colour?", *_INFO],
              paths=("f", "file", "exclude-from"), numbers="any",
              marks={"e": "pattern", "regexp": "pattern", "f": "pattern", "file": "pattern",
                     "r": "recursive", "recursive": "recursive", "R": "follow", "dereference-recursive": "follow",
                     "d": "directories", "directories": "directories"})  # fmt: skip


def _grep(name: str, args: list[Arg], before: Effects | None) -> Effects:
    parsed = parse(name, args, _GREP)
    operands = list(parsed.operands)
    if not parsed.has("pattern"):
        if not operands:
            raise NotUnderstood(f"`{name}` is given no pattern")
        if operands[0].group is not None:
            raise NotUnderstood(f"the pattern of `{name}` comes from a glob")
        operands = operands[1:]
    actions = {v.value for v in parsed.values("directories")}
    if actions - {"read", "skip", "recurse"}:
        raise NotUnderstood(f"`{name} --directories` is given an action agentui does not know")
    recursive = parsed.has("recursive", "follow") or "recurse" in actions
    if recursive and not operands:
        operands = [Arg(".")]
    effects = Effects(reads=[*operands, *parsed.paths()])
    if recursive:
        selection = tuple(
            ("include" if flag == "--include" else "exclude", value.value)
            for flag, _, value in parsed.options
            if flag in ("--include", "--exclude") and value is not None
        )
        skip_dirs = tuple(v.value for f, _, v in parsed.options if f == "--exclude-dir" and v is not None)
        effects.trees = [Tree(op, parsed.has("follow"), True, selection, skip_dirs) for op in operands]
    return effects


_RG = table("A:B:C:e:f:g:iSswxFvclnNHoqm:M:t:T:uULj:E:abpP0d:r:", ["regexp=", "file=", "glob=", "iglob=",
            "ignore-case", "case-sensitive", "smart-case", "word-regexp", "line-regexp", "fixed-strings",
            "invert-match", "count", "count-matches", "files-with-matches", "files-without-match", "files",
            "line-number", "no-line-number", "with-filename", "no-filename", "only-matching", "quiet", "max-count=",
            "max-columns=", "max-columns-preview", "max-depth=", "max-filesize=", "type=", "type-not=",
            "type-list", "unrestricted", "hidden", "no-hidden", "no-ignore", "no-ignore-vcs", "no-ignore-dot",
            "no-ignore-parent", "no-ignore-global", "no-ignore-exclude", "no-ignore-files", "follow", "no-follow",
            "json", "vimgrep", "heading", "no-heading", "color=", "colors=", "pretty", "null", "sort=", "sortr=",
            "stats", "trim", "multiline", "multiline-dotall", "pcre2", "no-pcre2", "encoding=", "no-messages",
            "column", "no-column", "byte-offset", "text", "binary", "threads=", "one-file-system", "replace=",
            "passthru", "context-separator=", "no-context-separator", "field-match-separator=",
            "field-context-separator=", "line-buffered", "block-buffered", "before-context=", "after-context=",
            "context=", "crlf", "null-data", "word-regexp", "auto-hybrid-regex", "engine=", "no-unicode",
            "search-zip-not", "no-config", *_INFO],
            paths=("f", "file"),
            marks={"e": "pattern", "regexp": "pattern", "f": "pattern", "file": "pattern", "files": "files",
                   "L": "follow", "follow": "follow", "type-list": "files"})  # fmt: skip


def _rg(name: str, args: list[Arg], before: Effects | None) -> Effects:
    parsed = parse(name, args, _RG)
    operands = list(parsed.operands)
    if not parsed.has("pattern", "files"):
        if not operands:
            raise NotUnderstood("`rg` is given no pattern")
        if operands[0].group is not None:
            raise NotUnderstood("the pattern of `rg` comes from a glob")
        operands = operands[1:]
    operands = operands or [Arg(".")]
    flags = [flag.split("=", 1)[0] for flag, _, _ in parsed.options]
    hidden = "--hidden" in flags or sum(1 for flag in flags if flag in ("-u", "--unrestricted")) >= 2
    # (an override glob or a file type whitelists the names it matches, hidden ones included)
    matching = _rg_whitelists(parsed.options) if not hidden else None
    contents = not parsed.has("files")
    trees = [
        Tree(op, parsed.has("follow"), contents, skips_hidden=not hidden and matching is None, hidden_matching=matching)
        for op in operands
    ]
    return Effects(reads=[*operands, *parsed.paths()], trees=trees)


_RG_TYPES = {
    "py": ("*.py", "*.pyi"), "python": ("*.py", "*.pyi"), "js": ("*.js", "*.jsx", "*.vue", "*.cjs", "*.mjs"),
    "ts": ("*.ts", "*.tsx", "*.cts", "*.mts"), "typescript": ("*.ts", "*.tsx", "*.cts", "*.mts"), "go": ("*.go",),
    "rust": ("*.rs",), "java": ("*.java", "*.jsp", "*.jspx", "*.properties"), "md": ("*.md", "*.markdown"),
    "markdown": ("*.md", "*.markdown"), "json": ("*.json",), "yaml": ("*.yaml", "*.yml"), "toml": ("*.toml",),
    "html": ("*.htm", "*.html"), "css": ("*.css", "*.scss"), "rb": ("*.rb",), "ruby": ("*.rb",), "php": ("*.php",),
    "c": ("*.c", "*.h"), "cpp": ("*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.h"), "kotlin": ("*.kt", "*.kts"),
    "swift": ("*.swift",),
}  # fmt: skip
"""For the types listed: globs that together match at least every hidden name ripgrep's own type would (an
extension: a hidden name matches only if it ends with one). A type not listed may match any hidden name."""


def _rg_whitelists(options: list[tuple[str, Opt, Arg | None]]) -> tuple[str, ...] | None:
    """The globs a hidden file must match to be searched, given -g/--glob/--iglob and -t/--type; None without any.
    A negated glob, a type agentui does not know or a glob it cannot match exactly: `*` (any hidden name)."""
    found: list[str] = []
    for flag, _, value in options:
        name = flag.split("=", 1)[0]
        if name not in ("-g", "--glob", "--iglob", "-t", "--type") or value is None:
            continue
        if name in ("-t", "--type"):
            found += _RG_TYPES.get(value.value, ("*",))
        elif value.value.startswith("!"):
            continue  # (it only excludes)
        else:
            found.append(value.value if name != "--iglob" else "*")
    return tuple(found) if found else None


_FIND_GLOBAL = {"-H", "-L", "-P"}
_FIND_NO_ARGUMENT = {
    "-print", "-print0", "-ls", "-prune", "-quit", "-true", "-false", "-empty", "-readable", "-writable",
    "-executable", "-nouser", "-nogroup", "-depth", "-d", "-mount", "-xdev", "-ignore_readdir_race",
    "-noignore_readdir_race", "-follow", "-daystart", "-not", "!", "-a", "-and", "-o", "-or", "(", ")", ",",
    "-noleaf", "-warn", "-nowarn",
}  # fmt: skip
_FIND_ONE_ARGUMENT = {
    "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-regextype", "-type",
    "-xtype", "-size", "-perm", "-user", "-group", "-uid", "-gid", "-links", "-inum", "-samefile", "-newer",
    "-anewer", "-cnewer", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-used", "-maxdepth",
    "-mindepth", "-printf", "-fstype", "-lname", "-ilname", "-context",
}  # fmt: skip
_FIND_LOOKS_AT = {"-samefile", "-newer", "-anewer", "-cnewer"}


def _find(name: str, args: list[Arg], before: Effects | None) -> Effects:
    """find walks trees and prints names and metadata; it reads no file's contents. Not -ok, -execdir, -delete, the
    -fprint family or -files0-from. One `-exec CMD ARGS {} +` (or `{} ;`) with `{}` last is a command of its own
    given the names of files under the one tree, as `find | xargs -0 CMD ARGS` would be (see `_find_exec`)."""
    args, run = _find_exec(args)
    i = 0
    follow = False
    while i < len(args) and (
        args[i].value in _FIND_GLOBAL or (args[i].value.startswith("-O") and args[i].value[2:].isdigit())
    ):
        follow = follow or args[i].value == "-L"
        i += 1
    starts: list[Arg] = []
    while i < len(args) and not (args[i].value.startswith("-") or args[i].value in ("(", "!", ",")):
        starts.append(args[i])
        i += 1
    looks: list[Arg] = []
    null = False
    expression = [a.value for a in args[i:]]
    while i < len(args):
        word = args[i].value
        if args[i].group is not None:
            raise NotUnderstood("a find expression holds a glob bash expands")
        if word in _FIND_NO_ARGUMENT:
            follow = follow or word == "-follow"
            null = null or word == "-print0"
            i += 1
        elif word in _FIND_ONE_ARGUMENT or word.startswith("-newer"):
            if i + 1 >= len(args):
                raise NotUnderstood(f"`find {word}` is missing its value")
            if word in _FIND_LOOKS_AT or (word.startswith("-newer") and len(word) == 8 and word[7] != "t"):
                looks.append(args[i + 1])  # (-newerXY compares with a file's time, unless Y is t: a date)
            i += 2
        else:
            raise NotUnderstood(f"`find {word}` is not a test or action agentui knows to be harmless")
    starts = starts or [Arg(".")]
    if null and any(a.value in ("-print", "-ls", "-printf") for a in args):
        raise NotUnderstood("`find` mixes -print0 with other output")
    files_only = _only_files(expression) and not follow
    tree = Tree(starts[0], follow, False, all_names=_name_tests(expression), files_only=files_only)
    inner: list[Inner] = []
    if run is not None:
        if len(starts) != 1:
            raise NotUnderstood("`find -exec` walks more than one tree")
        inner.append(Inner(run, tree))
    if run is not None or (not null and any(a.value in ("-ls", "-printf") for a in args)):
        names = None  # (its output is not one name per line, or is what the command it runs prints)
    else:
        names = tree if len(starts) == 1 else None
    return Effects(
        looks=[*starts, *looks],
        trees=[Tree(start, follow=follow, contents=False) for start in starts],
        names=names,
        names_null=null,
        inner=inner,
    )


def _find_exec(args: list[Arg]) -> tuple[list[Arg], list[Arg] | None]:
    """find's arguments with its one `-exec CMD ARGS {} +|;` replaced by `-print` (the action, where the tests
    before it filter the names as they filter what is printed), and CMD ARGS. find passes each name as an argument of
    its own, never split, in place of a `{}` that ends the command; a `{}` anywhere else (`{}.bak`, `-exec mv {} x`)
    is not understood."""
    starts = [i for i, a in enumerate(args) if a.value in ("-exec", "-execdir", "-ok", "-okdir")]
    if not starts:
        return args, None
    if len(starts) > 1 or args[starts[0]].value != "-exec":
        raise NotUnderstood(f"`find {args[starts[0]].value}` is not an action agentui knows to be harmless")
    at = starts[0]
    end = next((j for j in range(at + 1, len(args)) if args[j].value in ("+", ";") and args[j].group is None), None)
    if end is None or end < at + 3 or args[end - 1].value != "{}":
        raise NotUnderstood("`find -exec` without `{}` just before its end")
    run = args[at + 1 : end - 1]
    if any("{}" in a.value or a.group is not None for a in run):
        raise NotUnderstood("`find -exec` uses `{}` before the end of its command, or a glob bash expands")
    return [*args[:at], Arg("-print"), *args[end + 1 :]], run


_PLAIN_FIND = {"-type", "-maxdepth", "-mindepth", "-name", "-iname", "-print", "-print0", "-a", "-and", "-size",
               "-mtime", "-mmin", "-newer", "-empty", "-readable", "-xtype"}  # fmt: skip


def _only_files(expression: list[str]) -> bool:
    """`-type f` joined by AND alone, before any action: find lists regular files only."""
    filters = _filters(expression)
    return filters is not None and "f" in filters[1]


def _name_tests(expression: list[str]) -> tuple[tuple[str, bool], ...]:
    """The -name and -iname tests of an expression that only joins tests with AND (no -o, no !, no parentheses, no
    -prune), every one before the action: every name find prints passes each of them. Anything else: no filter is
    known."""
    filters = _filters(expression)
    return filters[0] if filters is not None else ()


def _filters(expression: list[str]) -> tuple[tuple[tuple[str, bool], ...], tuple[str, ...]] | None:
    """(-name/-iname tests, -type values) of a plain AND of tests; None if anything else, or if a test comes after
    an action (`-print0 -name x` prints every name before testing it)."""
    tests: list[tuple[str, bool]] = []
    types: list[str] = []
    acted = False
    i = 0
    while i < len(expression):
        word = expression[i]
        if word not in _PLAIN_FIND:
            return None
        if word in ("-print", "-print0"):
            acted = True
            i += 1
            continue
        if word in ("-a", "-and"):
            i += 1
            continue
        if acted:
            return None
        if i + 1 < len(expression) and word in ("-name", "-iname"):
            tests.append((expression[i + 1], word == "-iname"))
        elif i + 1 < len(expression) and word == "-type":
            types.append(expression[i + 1])
        i += 1 if word in ("-empty", "-readable") else 2
    return tuple(tests), tuple(types)


# Programs whose first argument is a small program


_SED = table("nrsuzEe:l:i::", ["quiet", "silent", "expression=", "line-length=", "regexp-extended", "separate",
             "unbuffered", "null-data", "zero-terminated", "posix", "debug", "sandbox", "in-place?",
             "follow-symlinks", *_INFO],
             marks={"e": "script", "expression": "script", "i": "in-place", "in-place": "in-place"})  # fmt: skip


def _sed(name: str, args: list[Arg], before: Effects | None) -> Effects:
    parsed = parse(name, args, _SED)
    scripts = parsed.values("script")
    operands = list(parsed.operands)
    if not scripts:
        if not operands:
            raise NotUnderstood("`sed` is given no script")
        if operands[0].group is not None:
            raise NotUnderstood("the sed script comes from a glob")
        scripts, operands = [operands[0]], operands[1:]
    for script in scripts:
        check_sed_script(script.value)
    reading = tuple(f for f, _, _ in parsed.options if f in ("-E", "-r", "--regexp-extended", "--posix", "-z",
                                                             "--null-data", "--zero-terminated"))  # fmt: skip
    sed_sandbox_accepts(tuple(s.value for s in scripts), reading)
    if parsed.has("in-place"):
        if not operands:
            raise NotUnderstood("`sed -i` is given no file")
        suffix = [v.value for f, _, v in parsed.options if f in ("-i", "--in-place") and v is not None]
        if any("/" in s or "*" in s for s in suffix):
            raise NotUnderstood("`sed -i` makes its backup somewhere else")
        backups = [Arg(op.value + s) for op in operands for s in suffix if s]
        return Effects(reads=operands, writes=[*operands, *backups], edits=True)
    return Effects(reads=operands)


def _awk(name: str, args: list[Arg], before: Effects | None) -> Effects:
    """awk (mawk or gawk) with -F and -v only; the program must only read its input and print."""
    i = 0
    while i < len(args):
        word = args[i].value
        if word == "--":
            i += 1
            break
        if word in ("-F", "-v"):
            value = args[i + 1].value if i + 1 < len(args) else None
            if value is None:
                raise NotUnderstood(f"`awk {word}` is missing its value")
            if word == "-v":
                _awk_assignment(value)
            i += 2
            continue
        if word.startswith(("-F", "-v")) and len(word) > 2:
            if word.startswith("-v"):
                _awk_assignment(word[2:])
            i += 1
            continue
        if word.startswith("-") and word != "-":
            raise NotUnderstood(f"`awk {word}` is not an option agentui knows to be harmless")
        break
    rest = args[i:]
    if not rest:
        raise NotUnderstood("`awk` is given no program")
    if rest[0].group is not None:
        raise NotUnderstood("the awk program comes from a glob")
    check_awk_program(rest[0].value)
    reads = []
    for operand in rest[1:]:
        head, equals, _ = operand.value.partition("=")
        if equals and _AWK_NAME.fullmatch(head):
            _awk_assignment(operand.value)  # (an operand `var=value` assigns; it names no file)
        else:
            reads.append(operand)
    return Effects(reads=reads)


_AWK_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""An operand `name=value` is an assignment only for an ASCII name (awk's); anything else is a file it reads."""


def _awk_assignment(text: str) -> None:
    variable = text.partition("=")[0]
    if variable in FORBIDDEN_AWK_VARIABLES:
        raise NotUnderstood(f"the awk assignment to {variable} changes what awk reads")


def _jq(name: str, args: list[Arg], before: Effects | None) -> Effects:
    flags = {"c", "r", "j", "a", "s", "n", "e", "C", "M", "S", "R"}
    long_flags = {"--compact-output", "--raw-output", "--join-output", "--ascii-output", "--slurp", "--null-input",
                  "--exit-status", "--color-output", "--monochrome-output", "--sort-keys", "--raw-input", "--tab",
                  "--seq", "--stream", "--stream-errors", "--unbuffered", "--help", "--version"}  # fmt: skip
    reads: list[Arg] = []
    operands: list[Arg] = []
    i = 0
    while i < len(args):
        word = args[i].value
        if word in ("--arg", "--argjson", "--slurpfile", "--rawfile", "--indent"):
            width = 2 if word == "--indent" else 3
            if any(a.group is not None for a in args[i + 1 : i + width]):
                raise NotUnderstood(f"a value of `jq {word}` comes from a glob")
        if word in ("--arg", "--argjson"):
            i += 3
        elif word in ("--slurpfile", "--rawfile"):
            if i + 2 >= len(args):
                raise NotUnderstood(f"`jq {word}` is missing its values")
            reads.append(args[i + 2])
            i += 3
        elif word == "--indent":
            i += 2
        elif word in long_flags:
            i += 1
        elif word.startswith("--"):
            raise NotUnderstood(f"`jq {word}` is not an option agentui knows to be harmless")
        elif word.startswith("-") and word != "-":
            if any(letter not in flags for letter in word[1:]):
                raise NotUnderstood(f"`jq {word}` is not an option agentui knows to be harmless")
            i += 1
        else:
            operands.append(args[i])
            i += 1
    if i > len(args):
        raise NotUnderstood("a jq option is missing its values")
    if not operands:
        raise NotUnderstood("`jq` is given no filter")
    if operands[0].group is not None:
        raise NotUnderstood("the jq filter comes from a glob")
    check_jq_filter(operands[0].value)
    return Effects(reads=[*reads, *operands[1:]])


# The file commands acceptEdits runs without a question (as Claude Code's does): they write inside the project


_MKDIR = table("pvm:", ["parents", "verbose", "mode=", *_INFO])
_TOUCH = table("acd:fhmr:t:", ["time=", "date=", "reference=", "no-create", "no-dereference", *_INFO],
               marks={"r": "reference", "reference": "reference"})  # fmt: skip
_RMDIR = table("v", ["ignore-fail-on-non-empty", "verbose", *_INFO])
_RM = table("dfrRv", ["force", "recursive", "dir", "verbose", "one-file-system", "preserve-root?", *_INFO],
            marks={"r": "recursive", "R": "recursive", "recursive": "recursive"})  # fmt: skip
_CP = table("fnprRuvTt:PH", ["force", "no-clobber", "preserve?", "no-preserve=", "recursive", "update?",
            "verbose", "target-directory=", "no-target-directory", "no-dereference", "sparse=",
            "strip-trailing-slashes", "attributes-only", "one-file-system", "remove-destination", *_INFO],
            marks={"r": "recursive", "R": "recursive", "recursive": "recursive", "t": "target",
                   "target-directory": "target", "T": "no-target", "no-target-directory": "no-target",
                   "H": "follow-args"})  # fmt: skip
_MV = table("fnt:Tuv", ["force", "no-clobber", "target-directory=", "no-target-directory", "update?", "verbose",
            "strip-trailing-slashes", *_INFO],
            marks={"t": "target", "target-directory": "target", "T": "no-target",
                   "no-target-directory": "no-target"})  # fmt: skip


_TEE = table("aip", ["append", "ignore-interrupts", "output-error?", *_INFO])


def _tee(name: str, args: list[Arg], before: Effects | None) -> Effects:
    parsed = parse(name, args, _TEE)
    return Effects(writes=parsed.operands, edits=True)


def _mkdir(name: str, args: list[Arg], before: Effects | None) -> Effects:
    parsed = parse(name, args, _MKDIR)
    return Effects(writes=parsed.operands, edits=True)


def _touch(name: str, args: list[Arg], before: Effects | None) -> Effects:
    parsed = parse(name, args, _TOUCH)
    return Effects(writes=parsed.operands, looks=parsed.values("reference"), edits=True)


def _rmdir(name: str, args: list[Arg], before: Effects | None) -> Effects:
    parsed = parse(name, args, _RMDIR)
    return Effects(removes=[Tree(op, contents=False) for op in parsed.operands], edits=True)


def _rm(name: str, args: list[Arg], before: Effects | None) -> Effects:
    parsed = parse(name, args, _RM)
    if not parsed.operands:
        raise NotUnderstood("`rm` is given no file")
    return Effects(removes=[Tree(op, contents=False) for op in parsed.operands], edits=True)


def _copy_or_move(spec: Table, *, move: bool) -> Handler:
    def handle(name: str, args: list[Arg], before: Effects | None) -> Effects:
        parsed = parse(name, args, spec)
        operands = list(parsed.operands)
        targets = parsed.values("target")
        if targets:
            destination, sources = targets[0], operands
        else:
            if len(operands) < 2:
                raise NotUnderstood(f"`{name}` is given no destination")
            destination, sources = operands[-1], operands[:-1]
        if not sources:
            raise NotUnderstood(f"`{name}` is given nothing to {'move' if move else 'copy'}")
        trees = [Tree(source) for source in sources] if move or parsed.has("recursive") else []
        effects = Effects(reads=sources, writes=[destination], trees=trees, edits=True)
        into = True if targets else (False if parsed.has("no-target") else None)
        effects.copies = [Copy(source, destination, into) for source in sources]
        if move:
            effects.removes = [Tree(source, contents=False) for source in sources]
        return effects

    return handle


@dataclass(frozen=True)
class Program:
    handle: Handler
    kind: str = "look"
    """`look` (reads and prints), `edit` (a file command), `run` (runs another program), `git`."""


def _git(name: str, args: list[Arg], before: Effects | None) -> Effects:
    from agentui.core.safety.permissions.git_commands import git_effects

    return git_effects(args)


_UNAME = table("asnrvmpio", ["all", "kernel-name", "nodename", "kernel-release", "kernel-version", "machine",
               "processor", "hardware-platform", "operating-system", *_INFO])  # fmt: skip
_FREE = table("bkmghltwv", ["bytes", "kibi", "mebi", "gibi", "kilo", "mega", "giga", "human", "si", "lohi", "total",
              "wide", *_INFO])  # fmt: skip
PROGRAMS: dict[str, Program] = {
    # print what they are given, or facts about the system
    "echo": Program(_anything),
    "true": Program(_anything),
    "false": Program(_anything),
    ":": Program(_anything),
    "printf": Program(_printf),
    "pwd": Program(_no_paths(table("LP"), operands=False)),
    "whoami": Program(_no_paths(table("", _INFO), operands=False)),
    "groups": Program(_no_paths(table("", _INFO))),  # (its operands are user names)
    "tty": Program(_no_paths(table("s", ["silent", "quiet", *_INFO]), operands=False)),
    "ps": Program(_ps),
    "id": Program(_no_paths(table("agGnruzZ", ["group", "groups", "name", "real", "user", "zero", *_INFO]))),
    "uname": Program(_no_paths(_UNAME, operands=False)),
    "nproc": Program(_no_paths(table("", ["all", "ignore=", *_INFO]), operands=False)),
    "locale": Program(_no_paths(_LOCALE)),
    "getconf": Program(_no_paths(table("av:", ["all"]))),  # (a name, and a path it asks pathconf about)
    "ulimit": Program(_no_paths(table("aHSbcdefiklmnpqrstuvxPRT"), operands=False)),
    "arch": Program(_no_paths(table("", _INFO), operands=False)),
    "uptime": Program(_no_paths(table("ps", ["pretty", "since", *_INFO]), operands=False)),
    "free": Program(_no_paths(_FREE, operands=False)),
    "seq": Program(_no_paths(table("f:s:w", ["format=", "separator=", "equal-width", *_INFO], numbers="any"))),
    "sleep": Program(_no_paths(table("", _INFO))),
    "basename": Program(_no_paths(table("as:z", ["multiple", "suffix=", "zero", *_INFO]))),
    "dirname": Program(_no_paths(table("z", ["zero", *_INFO]))),
    "printenv": Program(_no_paths(table("0", ["null", *_INFO]))),
    "env": Program(_env),
    "which": Program(_no_paths(table("as"))),
    "type": Program(_no_paths(table("afpPt"))),
    "command": Program(_command),
    "hostname": Program(_hostname),
    "date": Program(_date),
    "cd": Program(_cd),
    "test": Program(_test),
    "[": Program(_test),
    # look at files
    "cat": Program(_readers(_CAT)),
    "head": Program(_readers(_HEAD)),
    "tail": Program(_readers(_TAIL)),
    "wc": Program(_readers(_WC)),
    "nl": Program(_readers(_NL)),
    "tac": Program(_tac),
    "rev": Program(_readers(_REV)),
    "cut": Program(_readers(_CUT)),
    "sort": Program(_readers(_SORT)),
    "uniq": Program(_uniq),
    "shuf": Program(_shuf),
    "tr": Program(_no_paths(_TR)),
    "comm": Program(_readers(_COMM, at_most=2)),
    "join": Program(_readers(_JOIN, at_most=2)),
    "paste": Program(_readers(_PASTE)),
    "fold": Program(_readers(_FOLD)),
    "expand": Program(_readers(_EXPAND)),
    "unexpand": Program(_readers(_UNEXPAND)),
    "column": Program(_readers(_COLUMN)),
    "od": Program(_readers(_OD)),
    "hexdump": Program(_readers(_HEXDUMP)),
    "xxd": Program(_xxd),
    "strings": Program(_strings),
    "base64": Program(_readers(_BASE64, at_most=1)),
    "base32": Program(_readers(_BASE64, at_most=1)),
    "md5sum": Program(_readers(_SUMS)),
    "sha1sum": Program(_readers(_SUMS)),
    "sha224sum": Program(_readers(_SUMS)),
    "sha256sum": Program(_readers(_SUMS)),
    "sha384sum": Program(_readers(_SUMS)),
    "sha512sum": Program(_readers(_SUMS)),
    "b2sum": Program(_readers(_B2SUM)),
    "cksum": Program(_readers(_CKSUM)),
    "sum": Program(_readers(_SUM)),
    "cmp": Program(_cmp),
    "diff": Program(_diff),
    "file": Program(_file),
    "ls": Program(_lookers(_LS, recursive="recursive", follow="follow")),
    "stat": Program(_lookers(_STAT, follow="follow", own_links=True)),
    "du": Program(_lookers(_DU, follow="follow", default_here=True, own_links=True)),
    "df": Program(_df),
    "realpath": Program(_lookers(_REALPATH)),
    "readlink": Program(_lookers(_READLINK, follow="follow", own_links=True)),  # (without -f: the link itself)
    "tree": Program(_tree),
    "grep": Program(_grep),
    "egrep": Program(_grep),
    "fgrep": Program(_grep),
    "rg": Program(_rg),
    "find": Program(_find),
    "sed": Program(_sed),
    "awk": Program(_awk),
    "mawk": Program(_awk),
    "gawk": Program(_awk),
    "jq": Program(_jq),
    "git": Program(_git, "git"),
    # run another program, which is checked in its own right
    "timeout": Program(_timeout, "run"),
    "nice": Program(_nice, "run"),
    "nohup": Program(_nohup, "run"),
    "tee": Program(_tee, "edit"),
    "xargs": Program(_xargs, "run"),
    # the file commands
    "mkdir": Program(_mkdir, "edit"),
    "touch": Program(_touch, "edit"),
    "rmdir": Program(_rmdir, "edit"),
    "rm": Program(_rm, "edit"),
    "cp": Program(_copy_or_move(_CP, move=False), "edit"),
    "mv": Program(_copy_or_move(_MV, move=True), "edit"),
}
# (not java: `java -version` starts the JVM, which writes /tmp/hsperfdata_$USER; not go: `go version` in a module
# whose go.mod names a newer toolchain downloads that toolchain and runs it; not cargo or rustc: rustup's proxies,
# wherever installed, run the toolchain a rust-toolchain.toml in the project names, from any directory; not npm: it
# loads the project's .npmrc first)
VERSION_ONLY = frozenset({"python", "python3", "pip", "pip3", "node", "gcc", "cc", "g++", "clang", "make", "cmake",
                          "ruby", "bash"})  # fmt: skip
for _language in VERSION_ONLY:
    PROGRAMS[_language] = Program(_version_only)

BUILTINS = frozenset({"echo", "true", "false", ":", "printf", "pwd", "type", "command", "cd", "test", "["})
"""Run by bash itself: no file on PATH is involved."""


def effects(name: str, args: list[Arg], before: Effects | None) -> Effects:
    """What the program `name` does with `args`; NotUnderstood if it is not one agentui knows, or is used in a way
    agentui does not know to be harmless."""
    program = PROGRAMS.get(name)
    if program is None:
        raise NotUnderstood(f"`{name}` is not a program agentui knows to be harmless")
    return program.handle(name, args, before)


def program_kind(name: str) -> str:
    program = PROGRAMS.get(name)
    return program.kind if program is not None else ""


__all__ = ["PROGRAMS", "Effects", "GitUse", "Inner", "Parsed", "Tree", "effects"]
