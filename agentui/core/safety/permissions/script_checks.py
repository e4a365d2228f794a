"""The small languages some looking programs take as an argument — sed scripts, awk programs, jq filters — checked
for what they can do besides print: a sed `w`/`e`/`r` command or `s///w`/`e` flag, awk's `system()`, pipes,
output redirections, `getline` and `ARGV`, jq's `import`/`include`. Each check accepts only forms it reads
completely; anything else is NotUnderstood.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess

from agentui.core.safety.permissions.bash_words import NotUnderstood

# sed


_SED_SIMPLE = set("pPdDgGhHxnNlz=FqQ")
"""Commands that take no argument (q/Q may take an exit code) and only print, delete or move text in memory."""


def check_sed_script(script: str) -> None:
    """A GNU sed script that only edits the text it reads and prints: addresses, `{ }`, `!`, the simple commands,
    `s` without the `w`/`e` flags, `y`, `a`/`i`/`c` text, labels and branches, comments."""
    i, n = 0, len(script)

    def skip_blanks(at: int) -> int:
        while at < n and script[at] in " \t":
            at += 1
        return at

    while i < n:
        i = skip_blanks(i)
        if i >= n:
            break
        c = script[i]
        if c in ";\n}":
            i += 1
            continue
        if c == "#":
            end = script.find("\n", i)
            i = n if end < 0 else end + 1
            continue
        i = _sed_address(script, i)
        i = skip_blanks(i)
        if i < n and script[i] == ",":
            i = skip_blanks(_sed_address(script, skip_blanks(i + 1)))
        i = skip_blanks(i)
        while i < n and script[i] == "!":
            i = skip_blanks(i + 1)
        if i >= n:
            raise NotUnderstood("the sed script ends after an address")
        c = script[i]
        if c == "{":
            i += 1
        elif c in _SED_SIMPLE:
            i += 1
            if c in "qQlL":  # (an exit code or a line length may follow, after blanks)
                j = skip_blanks(i)
                if j < n and script[j].isdigit():
                    i = j
                while i < n and script[i].isdigit():
                    i += 1
            i = _sed_end_of_command(script, i)
        elif c == "s":
            i = _sed_substitute(script, i + 1)
        elif c == "y":
            i = _sed_end_of_command(script, _sed_delimited(script, i + 1, parts=2))
        elif c in "aic":
            end = script.find("\n", i)
            i = n if end < 0 else end + 1  # (GNU one-liner text runs to the end of the line)
        elif c in "btT:":
            # GNU sed reads a label up to a blank, a semicolon or a newline; what follows is read as commands
            i = skip_blanks(i + 1)
            while i < n and script[i] not in " \t;\n":
                i += 1
        else:
            raise NotUnderstood(f"the sed command {c!r} can read, write or run something")


def sed_sandbox_accepts(scripts: tuple[str, ...], flags: tuple[str, ...]) -> None:
    """GNU sed's own parser as the last word: `sed --sandbox` refuses a program with any command or flag that reads,
    writes or runs something (e, r, R, w, W, s///w, s///e) before it opens anything, and with no input nothing
    runs. Raises NotUnderstood unless the sed on PATH is GNU sed and accepts the scripts."""
    if not _accepted_by_gnu_sed(scripts, flags):
        raise NotUnderstood("GNU sed itself, in its sandbox mode, does not accept the sed script as harmless")


@functools.lru_cache(maxsize=256)
def _accepted_by_gnu_sed(scripts: tuple[str, ...], flags: tuple[str, ...]) -> bool:
    sed = _gnu_sed()
    if sed is None:
        return False
    argv = [sed, "--sandbox", "-n", *flags]
    for script in scripts:
        argv += ["-e", script]
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=10, cwd="/", env={})
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


@functools.cache
def _gnu_sed() -> str | None:
    """The sed commands will run (the first on PATH), if it is GNU sed."""
    sed = shutil.which("sed")
    if sed is None:
        return None
    try:
        done = subprocess.run([sed, "--version"], capture_output=True, timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return sed if b"GNU sed" in done.stdout else None


def _sed_address(script: str, i: int) -> int:
    n = len(script)
    if i >= n:
        return i
    c = script[i]
    if c.isdigit():
        while i < n and (script[i].isdigit() or script[i] == "~"):
            i += 1
        return i
    if c == "$":
        return i + 1
    if c in "+~" and i + 1 < n and script[i + 1].isdigit():  # (addr,+N and addr,~N)
        i += 1
        while i < n and script[i].isdigit():
            i += 1
        return i
    if c == "/" or c == "\\":
        if c == "\\":
            i += 1
            if i >= n:
                raise NotUnderstood("the sed address is not closed")
        end = _sed_delimited(script, i, parts=1, regexes=1)
        while end < n and script[end] in "IM":
            end += 1
        return end
    return i


def _sed_delimited(script: str, i: int, *, parts: int, regexes: int = 0) -> int:
    """From the delimiter at `i`, past `parts` delimited parts (the first `regexes` of them regular expressions, in
    which GNU sed reads a bracket expression whole: `s/[/]/x/` is one pattern); the index after the last
    delimiter."""
    n = len(script)
    if i >= n or script[i] in "\n\\":
        raise NotUnderstood("the sed script has an expression without a delimiter")
    delimiter = script[i]
    i += 1
    for part in range(parts):
        while True:
            if i >= n:
                raise NotUnderstood("a sed expression is not closed")
            c = script[i]
            if c == "\\":
                i += 2
                continue
            if c == "\n":
                raise NotUnderstood("a sed expression spans lines")
            if c == "[" and part < regexes:
                i = _sed_bracket_end(script, i)
                continue
            if c == delimiter:
                i += 1
                break
            i += 1
    return i


def _sed_bracket_end(script: str, i: int) -> int:
    """The index after the bracket expression opened at `i` (backslashes are literal inside one)."""
    n = len(script)
    j = i + 1
    if j < n and script[j] == "^":
        j += 1
    if j < n and script[j] == "]":
        j += 1
    while j < n:
        c = script[j]
        if c == "\n":
            raise NotUnderstood("a sed bracket expression spans lines")
        if c == "[" and j + 1 < n and script[j + 1] in ":=.":
            close = script.find(script[j + 1] + "]", j + 2)
            if close < 0:
                raise NotUnderstood("a sed character class is not closed")
            j = close + 2
            continue
        if c == "]":
            return j + 1
        j += 1
    raise NotUnderstood("a sed bracket expression is not closed")


def _sed_substitute(script: str, i: int) -> int:
    i = _sed_delimited(script, i, parts=2, regexes=1)
    n = len(script)
    while i < n and (script[i] in "gpiImM" or script[i].isdigit()):
        i += 1
    return _sed_end_of_command(script, i)


def _sed_end_of_command(script: str, i: int) -> int:
    n = len(script)
    while i < n and script[i] in " \t":
        i += 1
    if i < n and script[i] not in ";\n}#":
        raise NotUnderstood(f"the sed script has {script[i : i + 10]!r} where a command ends (a w or e flag?)")
    return i


# awk


_AWK_FORBIDDEN = re.compile(r"\b(system|getline|close|fflush|ARGV|ARGC|ENVIRON|PROCINFO|SYMTAB|FUNCTAB|exec)\b|@|\|&")
_AWK_TOKEN = re.compile(
    r'"(?:[^"\\\n]|\\.)*"'  # a string
    r"|[A-Za-z_][A-Za-z0-9_]*"  # a name
    r"|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+"  # a number
    r"|\$|>>|\|\||&&|[<>!=]=|\+\+|--|[-+*/%^]=|\S",
    re.DOTALL,
)
_AWK_OPERAND_END = {")", "]", "$", "++", "--"}
"""After these (and names, numbers and strings), a `/` divides; elsewhere it starts a regular expression."""
_AWK_PRINT = re.compile(r"print[^;}]*")
_AWK_REDIRECT = re.compile(r">|(?<!\|)\|(?!\|)")
FORBIDDEN_AWK_VARIABLES = frozenset({"ARGV", "ARGC", "ENVIRON", "PROCINFO", "SYMTAB", "FUNCTAB"})


def check_awk_program(program: str) -> None:
    """An awk program that only reads its input and prints to standard output: no system(), getline, close(),
    fflush(), pipes, output redirections, ARGV/ARGC, ENVIRON, PROCINFO, gawk's @-directives or indirect calls.
    The names are refused wherever they appear (strings and regular expressions included)."""
    if found := _AWK_FORBIDDEN.search(program):
        raise NotUnderstood(f"the awk program uses {found[0]!r}, which can run, read or write more than its input")
    if "\n" in program or "\r" in program:
        # (awk carries a statement on past a newline after `,`, `&&`, `||`, `{`, ...: one line is read whole)
        raise NotUnderstood("the awk program spans lines")
    for found in _AWK_PRINT.finditer(program):
        # (a second reading that trusts no tokenizer: from each print to the next ; or } nothing may redirect)
        if _AWK_REDIRECT.search(found[0]):
            raise NotUnderstood("the awk program may print to a file or a command")
    printing = False
    depth = 0
    previous = ""
    i = 0
    while i < len(program):
        if program[i] in " \t":
            i += 1
            continue
        if program[i] == "\n":
            printing = False
            previous = ""
            i += 1
            continue
        if program[i] == "#":
            end = program.find("\n", i)
            i = len(program) if end < 0 else end
            continue
        if program[i] == "\\" and program[i + 1 : i + 2] == "\n":
            i += 2
            continue
        if program[i] == "/" and not _divides(previous):
            end = _awk_regex_end(program, i)
            if printing:
                raise NotUnderstood("the awk program divides or matches inside print, which agentui does not read")
            previous, i = "regex", end
            continue
        match = _AWK_TOKEN.match(program, i)
        if match is None:
            raise NotUnderstood("the awk program could not be read")
        token = match[0]
        i = match.end()
        if token in ("print", "printf"):
            printing, depth = True, 0
        elif printing:
            if token == "(":
                depth += 1
            elif token == ")":
                depth -= 1
            elif token in (";", "}", "{"):
                printing = False
            elif depth <= 0 and token in (">", ">>", "|", "/"):
                raise NotUnderstood("the awk program prints to a file or a command")
        previous = token


def _divides(previous: str) -> bool:
    if not previous:
        return False
    if previous in _AWK_OPERAND_END or previous == "regex":
        return True
    if previous[0] == '"' or previous[0].isdigit() or previous[0] == ".":
        return True
    return previous[0].isalpha() or previous[0] == "_"


def _awk_regex_end(program: str, i: int) -> int:
    j = i + 1
    in_bracket = False
    while j < len(program):
        c = program[j]
        if c == "\\":
            j += 2
            continue
        if c == "\n":
            raise NotUnderstood("an awk regular expression spans lines")
        if c == "[":
            in_bracket = True
        elif c == "]":
            in_bracket = False
        elif c == "/" and not in_bracket:
            return j + 1
        j += 1
    raise NotUnderstood("an awk regular expression is not closed")


# jq


_JQ_FORBIDDEN = re.compile(r"\b(import|include|modulemeta|get_search_list)\b")


def check_jq_filter(program: str) -> None:
    """A jq filter that loads no module (jq has no way to run programs or write files; `import` and `include`
    read files from its library path)."""
    if found := _JQ_FORBIDDEN.search(program):
        raise NotUnderstood(f"the jq filter uses {found[0]!r}, which reads files of its own")
