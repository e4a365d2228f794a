"""One bash word, read exactly as bash reads it: quotes, backslashes, tilde prefixes, `$NAME` and `${NAME}`, and
pathname expansion, or a sentence saying why the word is outside what agentui understands.

Only the forms whose result agentui can compute exactly are understood. Anything else (command or arithmetic
substitution, `${x...}` operators, `$'...'`, positional and special parameters, brace expansion, POSIX character
classes, a variable whose unquoted value would be split or globbed) raises `NotUnderstood`, and the command asks.
"""

from __future__ import annotations

import os
import pwd
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGNMENT_LIKE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_IFS = " \t\n"
_GLOB_CHARS = "*?["
MAX_GLOB_MATCHES = 1000
"""A glob that names more files than this is not followed file by file: the command asks."""

BASH_SETS = frozenset(
    {
        "BASH", "BASHOPTS", "BASHPID", "BASH_ALIASES", "BASH_ARGC", "BASH_ARGV", "BASH_ARGV0", "BASH_CMDS",
        "BASH_COMMAND", "BASH_EXECUTION_STRING", "BASH_LINENO", "BASH_LOADABLES_PATH", "BASH_REMATCH",
        "BASH_SOURCE", "BASH_SUBSHELL", "BASH_VERSINFO", "BASH_VERSION", "COLUMNS", "COMP_CWORD", "COMP_KEY",
        "COMP_LINE", "COMP_POINT", "COMP_TYPE", "COMP_WORDBREAKS", "COMP_WORDS", "COPROC", "DIRSTACK",
        "EPOCHREALTIME", "EPOCHSECONDS", "EUID", "FUNCNAME", "GROUPS", "HISTCMD", "HOSTNAME", "HOSTTYPE", "IFS",
        "LINENO", "LINES", "MACHTYPE", "MAPFILE", "OLDPWD", "OPTARG", "OPTERR", "OPTIND", "OSTYPE", "PIPESTATUS",
        "PPID", "PS1", "PS2", "PS4", "RANDOM", "READLINE_LINE", "READLINE_POINT", "REPLY", "SECONDS",
        "SHELLOPTS", "SHLVL", "SRANDOM", "UID", "_",
    }
)  # fmt: skip
"""Variables bash sets or changes itself: their value in the command is not the one agentui can see."""


BASH_DEFAULTS = frozenset(
    {"PATH", "TERM", "SHELL", "HOME", "MAILCHECK", "HISTFILE", "HISTSIZE", "HISTFILESIZE", "OPTIND", "PS1", "PS2"}
)
"""Variables bash gives a value of its own when the environment does not."""


class NotUnderstood(Exception):
    """Why a command is outside the grammar agentui understands completely; one sentence, no full stop."""


@dataclass(frozen=True)
class Char:
    text: str
    quoted: bool


@dataclass(frozen=True)
class Expanded:
    """A word once bash has expanded it, before pathname expansion."""

    value: str
    """What the program receives when the word is not a glob (quotes removed, tilde and variables expanded)."""
    pattern: tuple[Char, ...] | None
    """The word as a glob, each character marked quoted or not, when it has an unquoted `*`, `?` or `[`."""
    vanishes: bool = False
    """An unquoted expansion that is empty: bash drops the word altogether."""
    from_variable: bool = False


@dataclass(frozen=True)
class Scope:
    """What a word's expansions read: the environment the command runs with, and the directory it runs in."""

    environ: Mapping[str, str]
    cwd: Path
    """The logical working directory at this point of the command ($PWD, `~+`)."""


def expand(text: str, scope: Scope) -> Expanded:
    """The word `text` (as written, quotes included) as bash expands it; raises NotUnderstood."""
    chars = _tilde(_lex(text), scope)
    value: list[str] = []
    pattern: list[Char] = []
    globbing = False
    only_unquoted_variables = True
    from_variable = False
    for item in chars:
        if isinstance(item, _Variable):
            from_variable = True
            content = _variable(item.name, scope)
            if not item.quoted:
                if any(c in content for c in _IFS):
                    raise NotUnderstood(f"the unquoted ${item.name} would be split into several words")
                if any(c in content for c in _GLOB_CHARS) or "\\" in content:
                    raise NotUnderstood(f"the unquoted ${item.name} holds glob characters")
            else:
                only_unquoted_variables = False
            value.append(content)
            pattern.extend(Char(c, item.quoted) for c in content)
            continue
        only_unquoted_variables = False
        value.append(item.text)
        pattern.append(item)
        if not item.quoted and item.text in _GLOB_CHARS:
            globbing = True
    _no_brace_expansion(pattern)
    joined = "".join(value)
    if not joined and only_unquoted_variables and chars:
        return Expanded("", None, vanishes=True, from_variable=True)
    if globbing and not _is_glob(pattern):
        globbing = False  # (a lone `[` with no closing `]` is an ordinary character)
    return Expanded(joined, tuple(pattern) if globbing else None, from_variable=from_variable)


# Lexing


@dataclass(frozen=True)
class _Variable:
    name: str
    quoted: bool


_Item = Char | _Variable


def _lex(text: str) -> list[_Item]:
    items: list[_Item] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            if i + 1 >= n:
                raise NotUnderstood("a word ends in a lone backslash")
            if text[i + 1] == "\n":
                raise NotUnderstood("the command continues a line with a backslash")
            items.append(Char(text[i + 1], True))
            i += 2
        elif c == "'":
            end = text.find("'", i + 1)
            if end < 0:
                raise NotUnderstood("a single quote is not closed")
            items.extend(Char(ch, True) for ch in text[i + 1 : end])
            i = end + 1
        elif c == '"':
            i = _double_quoted(text, i + 1, items)
        elif c == "$":
            i = _dollar(text, i, items, quoted=False)
        elif c == "`":
            raise NotUnderstood("the command substitutes a command's output (backquotes)")
        elif c in " \t\n|&;<>()":
            raise NotUnderstood(f"a word holds the unquoted character {c!r}")
        else:
            items.append(Char(c, False))
            i += 1
    return items


def _double_quoted(text: str, i: int, items: list[_Item]) -> int:
    n = len(text)
    while i < n:
        c = text[i]
        if c == '"':
            return i + 1
        if c == "\\" and i + 1 < n and text[i + 1] in '$`"\\\n':
            if text[i + 1] == "\n":
                raise NotUnderstood("the command continues a line with a backslash")
            items.append(Char(text[i + 1], True))
            i += 2
        elif c == "$":
            i = _dollar(text, i, items, quoted=True)
        elif c == "`":
            raise NotUnderstood("the command substitutes a command's output (backquotes)")
        else:
            items.append(Char(c, True))
            i += 1
    raise NotUnderstood("a double quote is not closed")


def _dollar(text: str, i: int, items: list[_Item], *, quoted: bool) -> int:
    """`$` at `i`: a variable agentui can read, a literal `$`, or something it does not follow."""
    after = text[i + 1 : i + 2]
    if after == "{":
        end = text.find("}", i + 2)
        inner = text[i + 2 : end] if end >= 0 else ""
        if end < 0 or not _NAME.fullmatch(inner):
            raise NotUnderstood(f"the expansion {text[i : i + 20]} is more than a plain ${{NAME}}")
        items.append(_Variable(inner, quoted))
        return end + 1
    if (found := _NAME.match(text, i + 1)) is not None:
        items.append(_Variable(found[0], quoted))
        return found.end()
    if after == "(":
        raise NotUnderstood("the command substitutes a command's output or arithmetic ($(...))")
    if after in ("'", '"') and not quoted:
        raise NotUnderstood(f"the word uses ${after}...{after} quoting")
    if after and (after.isdigit() or after in "@*#?-$!"):
        raise NotUnderstood(f"the word reads the special parameter ${after}")
    items.append(Char("$", quoted))  # (bash keeps a `$` that starts no expansion)
    return i + 1


def _variable(name: str, scope: Scope) -> str:
    if name == "PWD":
        return str(scope.cwd)
    if name in BASH_SETS:
        raise NotUnderstood(f"${name} is set by bash itself, so its value cannot be known in advance")
    if name not in scope.environ and name in BASH_DEFAULTS:
        raise NotUnderstood(f"${name} is not set, and bash gives it a value of its own")
    return scope.environ.get(name, "")


# Tilde expansion


def _tilde(items: list[_Item], scope: Scope) -> list[_Item]:
    """Tilde prefixes replaced by the directories they name: at the start of the word, and in a word that looks
    like an assignment (`name=~/x:~/y`), after the `=` and each `:`, as bash (not in POSIX mode) does."""
    starts = [0]
    if _assignment_like(items):
        equals = next(i for i, item in enumerate(items) if isinstance(item, Char) and item.text == "=")
        starts = [equals + 1] + [
            i + 1 for i, item in enumerate(items) if i > equals and isinstance(item, Char) and item.text == ":"
        ]
    out: list[_Item] = []
    at = 0
    for start in starts:
        if start < at:
            continue
        out.extend(items[at:start])
        at = start
        first = items[start] if start < len(items) else None
        if not (isinstance(first, Char) and first.text == "~" and not first.quoted):
            continue
        end = start + 1
        # (bash ends a tilde prefix at `:` as well as `/`, in any word: `~:x` is `$HOME:x`)
        while end < len(items) and not (isinstance(items[end], Char) and items[end].text in "/:"):  # type: ignore[union-attr]
            end += 1
        prefix = items[start + 1 : end]
        if any(not isinstance(item, Char) or item.quoted for item in prefix):
            continue  # a quoted character in the prefix: no expansion
        home = _tilde_directory("".join(item.text for item in prefix), scope)  # type: ignore[union-attr]
        if home is None:
            continue
        out.extend(Char(ch, True) for ch in home)
        at = end
    out.extend(items[at:])
    return out


def _assignment_like(items: list[_Item]) -> bool:
    text = []
    for item in items:
        if not isinstance(item, Char) or item.quoted:
            break
        text.append(item.text)
        if item.text == "=":
            return _ASSIGNMENT_LIKE.fullmatch("".join(text)) is not None
    return False


def _tilde_directory(login: str, scope: Scope) -> str | None:
    if login == "":
        home = scope.environ.get("HOME")
        if home is not None:
            return home
        try:
            return pwd.getpwuid(os.getuid()).pw_dir
        except KeyError:
            return None
    if login == "+":
        return str(scope.cwd)
    if login == "-" or login[0] in "+-" or login.isdigit():
        raise NotUnderstood(f"~{login} names a directory from the shell's history")
    try:
        return pwd.getpwnam(login).pw_dir
    except KeyError:
        return None  # (bash leaves `~nobody-here` as it is)


# Brace expansion and globs


def _no_brace_expansion(chars: Iterable[Char]) -> None:
    """Brace expansion (`{a,b}`, `{1..3}`) makes several words of one; agentui does not follow it."""
    depth_open = False
    inside: list[str] = []
    for char in chars:
        if char.quoted:
            if depth_open:
                inside.append("")
            continue
        if char.text == "{":
            depth_open, inside = True, []
        elif char.text == "}" and depth_open:
            body = "".join(inside)
            if "," in body or ".." in body:
                raise NotUnderstood("the word uses brace expansion")
            depth_open = False
        elif depth_open:
            inside.append(char.text)


def _is_glob(pattern: list[Char]) -> bool:
    for index, char in enumerate(pattern):
        if char.quoted:
            continue
        if char.text in "*?":
            return True
        if char.text == "[" and _bracket_end(pattern, index) is not None:
            return True
    return False


def _bracket_end(pattern: list[Char] | tuple[Char, ...], start: int) -> int | None:
    """The index of the `]` closing the bracket expression opened at `start`, or None if it is not closed."""
    i = start + 1
    if i < len(pattern) and not pattern[i].quoted and pattern[i].text in "!^":
        i += 1
    if i < len(pattern) and pattern[i].text == "]":
        i += 1  # a `]` first in the set is one of its characters
    while i < len(pattern):
        char = pattern[i]
        if char.text == "/" and not char.quoted:
            return None
        if char.text == "]" and not char.quoted:
            return i
        i += 1
    return None


def _component_regex(component: list[Char]) -> re.Pattern[str]:
    """One path component of a glob as a regular expression (bash's matching, with the shell options bash has
    by default when run as `bash -c`)."""
    out: list[str] = []
    i = 0
    while i < len(component):
        char = component[i]
        if char.quoted:
            out.append(re.escape(char.text))
        elif char.text == "*":
            out.append("[^/]*")
        elif char.text == "?":
            out.append("[^/]")
        elif char.text == "[" and (end := _bracket_end(component, i)) is not None:
            out.append(_bracket(component[i + 1 : end]))
            i = end
        else:
            out.append(re.escape(char.text))
        i += 1
    return re.compile("".join(out), re.DOTALL)


def _bracket(body: list[Char]) -> str:
    negate = bool(body) and not body[0].quoted and body[0].text in "!^"
    if negate:
        body = body[1:]
    text = "".join(c.text for c in body)
    if "[:" in text or "[=" in text or "[." in text:
        raise NotUnderstood("the glob uses a POSIX character class")
    parts: list[str] = []
    i = 0
    while i < len(body):
        char = body[i].text
        if i + 2 < len(body) and body[i + 1].text == "-" and not body[i + 1].quoted:
            low, high = char, body[i + 2].text
            if ord(low) <= ord(high):  # (globasciiranges, on by default since bash 5.0)
                parts.append(f"{re.escape(low)}-{re.escape(high)}")
            i += 3
            continue
        parts.append(re.escape(char))
        i += 1
    if not parts:
        return "(?!)" if not negate else "[^/]"
    return f"[{'^/' if negate else ''}{''.join(parts)}]"


def glob(
    pattern: tuple[Char, ...], cwd: Path, listed: list[str] | None = None, *, bytewise: bool = False
) -> list[str] | None:
    """The words bash makes of a glob in `cwd`: the matching paths (in no particular order), or None when nothing
    matches (bash then passes the word itself, quotes removed). Raises NotUnderstood past MAX_GLOB_MATCHES. Each
    directory bash lists on the way is added to `listed` (as a path from `cwd`): listing one is reading it.
    `bytewise`: the locale is not UTF-8, where bash's `?` and `[...]` match one byte, not one character."""
    components: list[list[Char]] = [[]]
    for char in pattern:
        if char.text == "/" and not char.quoted:
            components.append([])
        else:
            components[-1].append(char)
    absolute = not components[0] and len(components) > 1
    found: list[str] = ["/" if absolute else ""]
    for position, component in enumerate(components[1:] if absolute else components):
        last = position == len(components) - (2 if absolute else 1)
        if not component:  # `a//b` or a trailing slash
            found = [f + "/" for f in found]
            continue
        literal = not _is_glob(component)
        step: list[str] = []
        for prefix in found:
            if literal:
                step.append(prefix + "".join(c.text for c in component) + ("" if last else "/"))
                continue
            if listed is not None:
                listed.append(prefix or ".")
            step.extend(
                prefix + name + ("" if last else "/")
                for name in _matching(component, cwd / prefix if prefix else cwd, bytewise=bytewise)
            )
            if len(step) > MAX_GLOB_MATCHES:
                raise NotUnderstood(f"the glob matches more than {MAX_GLOB_MATCHES} files")
        found = step
    # Literal components after a glob must exist (bash checks the whole path), and inner ones be directories.
    matches = [f for f in found if os.path.lexists(cwd / f if not f.startswith("/") else f)]
    return matches or None


def _matching(component: list[Char], directory: Path, *, bytewise: bool = False) -> list[str]:
    regex = _component_regex(component)
    by_character = any(char.text in "?[" and not char.quoted for char in component)
    explicit_dot = bool(component) and component[0].text == "."
    try:
        entries = os.listdir(directory)
    except OSError:
        return []
    names = []
    for name in entries:
        if name in (".", ".."):
            continue  # (globskipdots, on by default since bash 5.2)
        if name.startswith(".") and not explicit_dot:
            continue
        if bytewise and by_character and not name.isascii():
            raise NotUnderstood("in this locale bash matches ? and [...] byte by byte, which agentui does not follow")
        if regex.fullmatch(name):
            names.append(name)
    return names


def utf8_locale(environ: Mapping[str, str]) -> bool:
    """The locale bash takes from `environ` (LC_ALL, then LC_CTYPE, then LANG) reads UTF-8."""
    value = environ.get("LC_ALL") or environ.get("LC_CTYPE") or environ.get("LANG") or "C"
    return "utf-8" in value.lower() or "utf8" in value.lower()
