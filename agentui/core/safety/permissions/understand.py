"""A Bash command understood completely, or not at all: parsed in the small grammar (`bash_syntax`), confirmed by
a second parser (`shfmt_check`), every word expanded as bash would expand it (`bash_words`), every program looked up
in the allowlist with the options it may take (`programs`), and the working directory followed through `cd`.

The result says, for each simple command that would run, which program it is, exactly what arguments it gets, in
which directory (or directories) it may run, and what it does with them. The permission engine decides from that;
anything this module cannot follow raises NotUnderstood and the command asks.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from agentui.core.safety.environ import SHELL_CHANGING
from agentui.core.safety.permissions import bash_syntax, shfmt_check
from agentui.core.safety.permissions.bash_syntax import Redirect, SimpleCommand
from agentui.core.safety.permissions.bash_words import NotUnderstood, Scope, expand, glob, utf8_locale
from agentui.core.safety.permissions.effects import Effects, Inner
from agentui.core.safety.permissions.options import Arg
from agentui.core.safety.permissions.programs import BUILTINS, effects

_SHELL_STATE = frozenset(
    {
        "read", "mapfile", "readarray", "let", "declare", "typeset", "local", "export", "readonly", "unset", "eval",
        "source", ".", "exec", "set", "shopt", "alias", "unalias", "trap", "enable", "builtin", "hash", "getopts",
        "shift", "pushd", "popd", "dirs", "fc", "history", "bind", "complete", "compgen", "compopt", "ulimit",
        "umask", "wait", "kill", "disown", "jobs", "fg", "bg", "caller", "suspend", "logout", "exit", "return",
        "break", "continue", "times", "coproc", "function", "select", "[[", "((", "time",
    }
)  # fmt: skip
"""Builtins that change the shell itself (variables, options, functions, jobs, the flow of the script), or read
text as arithmetic or code: outside the grammar, whatever a rule says."""

MAX_DIRECTORIES = 4
"""How many working directories a command may end up in (each `cd` that may fail doubles them) before it asks."""


@dataclass(frozen=True)
class Place:
    """A working directory: as bash names it ($PWD) and as the kernel resolves it."""

    logical: Path
    physical: Path


@dataclass
class Step:
    """One program that would run."""

    program: str
    args: list[Arg]
    text: str
    """The command as written (for permission rules), from the program's name to its last argument."""
    place: Place
    effects: Effects
    redirects: list[tuple[Redirect, str]] = field(default_factory=list)
    """Each redirection that opens a file, with the file's name once expanded."""
    names_from: Inner | None = None
    """Run by xargs with the names find prints appended."""
    wrapped: bool = False
    """Run by another program (timeout, nice, nohup, xargs)."""
    unknown: str = ""
    """Why the program, or the way it is used, is not one agentui knows to be harmless: only an allow rule (or the
    person) lets it run."""
    listed: list[str] = field(default_factory=list)
    """The directories bash lists to expand the command's globs (whatever the program does with the names)."""
    pipeline: int = 0
    """Which of the command's pipelines it belongs to (the same pipeline is stepped once per directory a `cd` may
    have left the shell in: those are alternatives, not one after the other)."""

    @property
    def value_text(self) -> str:
        """The command as bash passes it: the program and its arguments' values (quotes gone, globs expanded)."""
        return " ".join(" ".join((self.program, *(arg.value for arg in self.args))).split())


@dataclass
class Understood:
    steps: list[Step]
    syntax: bash_syntax.Syntax


def understand(command: str, environ: Mapping[str, str], cwd: Path) -> Understood:
    """What `command` does when bash runs it in `cwd` with `environ`; NotUnderstood if any part of it is outside
    what agentui follows exactly."""
    for name in environ:
        if name in SHELL_CHANGING or name.startswith("BASH_FUNC_"):
            raise NotUnderstood(f"the environment sets {name}, which changes how bash reads the command")
    syntax = bash_syntax.parse(command)
    shfmt_check.agree(command, syntax)
    # Where each pipeline may run, followed as bash runs a list: `a && b` runs b only if a succeeded, `a || b` only
    # if it failed, `;` either way. A state is (where the shell is, whether the last pipeline it ran succeeded).
    states: list[tuple[Place, bool]] = [(Place(cwd, cwd), True)]
    steps: list[Step] = []
    data = command.encode()
    for number, pipeline in enumerate(syntax.pipelines):
        connector = pipeline.connector
        running = [s for s in states if connector in (None, ";") or s[1] == (connector == "&&")]
        passing = [s for s in states if s not in running]
        places = list(dict.fromkeys(place for place, _ in running))
        firsts: list[Step] = []
        for place in places:
            before: Effects | None = None
            for index, command_node in enumerate(pipeline.commands):
                made = _steps(command_node, data, environ, place, before)
                for step in made:
                    step.pipeline = number
                steps.extend(made)
                firsts.append(made[0])
                # (what flows down the pipe is the command's output alone only through `|` from a command whose
                # descriptors are not redirected: `find x |& xargs cat` also sends find's error messages)
                plain = index + 1 < len(pipeline.commands) and pipeline.pipes[index] == "|"
                before = made[0].effects if plain and not command_node.redirects else None
        after: list[tuple[Place, bool]] = list(passing)
        if len(pipeline.commands) == 1 and firsts and firsts[0].program == "cd":
            # (a cd inside a pipeline runs in a subshell and moves nothing after it)
            for place, step in zip(places, firsts, strict=True):
                after += [(new, True) for new in _cd_targets(place, step, environ)] + [(place, False)]
        else:
            after += [(place, status) for place in places for status in (True, False)]
        states = list(dict.fromkeys(after))
        if len({place for place, _ in states}) > MAX_DIRECTORIES:
            raise NotUnderstood("the command changes directory too many ways to follow")
    return Understood(steps, syntax)


def _steps(
    node: SimpleCommand, data: bytes, environ: Mapping[str, str], place: Place, before: Effects | None
) -> list[Step]:
    scope = Scope(environ, place.logical)
    name_word = expand(node.words[0].text, scope)
    if name_word.pattern is not None or name_word.from_variable or name_word.vanishes:
        raise NotUnderstood("the program's name is not a plain word")
    listed: list[str] = []
    args = _arguments([w.text for w in node.words[1:]], scope, place, listed)
    text = " ".join(word.text for word in node.words)  # (the words as written, without the redirections among them)
    redirects = []
    for redirect in node.redirects:
        if redirect.duplicates or redirect.target is None:
            continue
        target = expand(redirect.target.text, scope)
        if target.pattern is not None or target.vanishes:
            raise NotUnderstood("a redirection's file name is a glob or empty")
        redirects.append((redirect, target.value))
    _grammar_builtin(name_word.value, args)
    step = _step(name_word.value, args, text, place, environ, before)
    step.redirects = redirects
    step.listed = list(dict.fromkeys(listed))
    return [step, *_inner_steps(step, environ)]


def _grammar_builtin(name: str, args: list[Arg]) -> None:
    """The shell's own commands that are outside the grammar, or the forms of them that are."""
    if name == "ulimit" and args and all(re.fullmatch(r"-[a-zA-Z]+", a.value) for a in args):
        return  # (`ulimit -a`, `ulimit -n`: with no value, it only prints)
    if name in _SHELL_STATE:
        raise NotUnderstood(f"`{name}` changes the shell itself or evaluates text as code")
    if name == "command":
        inner = next((a.value for a in args if not a.value.startswith("-")), "")
        if inner in _SHELL_STATE:
            raise NotUnderstood(f"`command {inner}` changes the shell itself or evaluates text as code")
    if name in ("test", "[") and any(a.value in ("-v", "-R") for a in args):
        raise NotUnderstood("`test -v` evaluates a variable's name, in which an array subscript can run commands")
    if name == "printf" and args and args[0].value.startswith("-v"):
        raise NotUnderstood("`printf -v` assigns a variable")


def _arguments(texts: list[str], scope: Scope, place: Place, listed: list[str]) -> list[Arg]:
    args: list[Arg] = []
    for index, text in enumerate(texts):
        word = expand(text, scope)
        if word.vanishes:
            continue
        if word.pattern is None:
            args.append(Arg(word.value))
            continue
        matches = glob(word.pattern, place.physical, listed, bytewise=not utf8_locale(scope.environ))
        if matches is None:
            args.append(Arg(word.value))  # (nothing matches: bash passes the word as it is)
            continue
        args.extend(Arg(match, group=index) for match in matches)
    return args


def _step(
    name: str, args: list[Arg], text: str, place: Place, environ: Mapping[str, str], before: Effects | None
) -> Step:
    if "/" in name:
        return Step(name, args, text, place, Effects(), unknown=f"`{name}` is run by its path")
    try:
        found = effects(name, args, before)
    except NotUnderstood as exc:
        return Step(name, args, text, place, Effects(), unknown=str(exc))
    return Step(name, args, text, place, found)


def _inner_steps(step: Step, environ: Mapping[str, str]) -> list[Step]:
    """The commands a wrapper runs (`timeout 5 CMD`, `xargs CMD`), each a step of its own."""
    found: list[Step] = []
    for inner in step.effects.inner:
        if not inner.args:
            continue
        name = inner.args[0].value
        if inner.args[0].group is not None:
            raise NotUnderstood(f"`{step.program}` runs a program named by a glob")
        args = list(inner.args[1:])
        text = " ".join(a.value for a in inner.args)
        if inner.names is not None:
            args.append(Arg(_NAMES, group=-1))
            text += " \x00"  # (only a rule with a wildcard at its end covers the names xargs appends)
        child = _step(name, args, text, step.place, environ, None)
        child.wrapped = True
        if inner.names is not None:
            child.names_from = inner
            placed = appended_names(child)
            if not child.unknown and (not placed or _names_elsewhere(child)):
                child.effects = Effects()
                child.unknown = f"`{name}` does more with the file names xargs gives it than read them"
        found.append(child)
        found.extend(_inner_steps(child, environ))
    return found


_NAMES = "\x00names"
"""Stands for the file names xargs appends, so the program's own table says what it does with them."""


def appended_names(step: Step) -> str:
    """Where the names xargs appends end up: `reads`, `looks`, or `` (anywhere else: not understood)."""
    if any(arg.value == _NAMES for arg in step.effects.reads):
        return "reads"
    if any(arg.value == _NAMES for arg in step.effects.looks):
        return "looks"
    return ""


def is_names(arg: Arg) -> bool:
    return arg.value == _NAMES


def _names_elsewhere(step: Step) -> bool:
    e = step.effects
    others = [*e.writes, *(t.path for t in e.removes), *(t.path for t in e.trees), *(e.git.reads if e.git else [])]
    return any(is_names(arg) for arg in others) or (e.cd is not None and is_names(e.cd))


def _cd_targets(place: Place, step: Step, environ: Mapping[str, str]) -> list[Place]:
    """Where `cd` goes from `place`. A directory that does not exist yet asks: something earlier in the command may
    be about to make it, and what lies under it is not known now."""
    if step.effects.cd_home:
        target = environ.get("HOME")
        if target is None:
            raise NotUnderstood("`cd` alone goes to a home directory that is not set")
    elif step.effects.cd is not None:
        target = step.effects.cd.value
        if environ.get("CDPATH") and not target.startswith(("/", "./", "../")) and target not in (".", ".."):
            raise NotUnderstood("`cd` may follow CDPATH")
    else:
        return []
    found = _cd_candidates(place, target)
    if not found:
        raise NotUnderstood(f"`cd {target}` goes to a directory that does not exist now")
    return found


def _cd_candidates(place: Place, target: str) -> list[Place]:
    """bash's `cd` (without -P) first tries the path with `..` folded by name, then as the kernel resolves it."""
    joined = os.path.join(place.logical, target)
    lexical = Path(os.path.normpath(joined))
    found = []
    if lexical.is_dir():
        found.append(Place(lexical, Path(os.path.realpath(lexical))))
    kernel = Path(os.path.realpath(os.path.join(place.physical, target)))
    if kernel.is_dir() and all(kernel != p.physical for p in found):
        found.append(Place(kernel, kernel))  # (then bash sets $PWD to where the kernel went)
    return found


def resolve_program(name: str, environ: Mapping[str, str], cwd: Path) -> Path | None:
    """The file bash runs for `name` from `cwd` (None for a builtin, or one not found): a relative entry of PATH
    (an empty one is `.`) is taken from the command's directory, as bash takes it."""
    if name in BUILTINS:
        return None
    entries = environ.get("PATH", os.defpath).split(os.pathsep)
    path = os.pathsep.join(entry if entry.startswith("/") else os.path.join(cwd, entry or ".") for entry in entries)
    found = shutil.which(name, path=path)
    return Path(os.path.realpath(found)) if found else None


def plain_command(command: str) -> list[str] | None:
    """The words of a command that is exactly one program with plain arguments (quoted or not, but no expansion,
    glob, redirection, pipe or list), else None: what `excludedCommands` may take out of the sandbox."""
    try:
        syntax = bash_syntax.parse(command)
        shfmt_check.agree(command, syntax)
    except NotUnderstood:
        return None
    commands = syntax.commands
    if len(syntax.pipelines) != 1 or len(commands) != 1 or commands[0].redirects:
        return None
    words = []
    for word in commands[0].words:
        try:
            expanded = expand(word.text, Scope({}, Path("/")))
        except NotUnderstood:
            return None
        if expanded.pattern is not None or expanded.from_variable or expanded.vanishes or "~" in word.text:
            return None
        words.append(expanded.value)
    return words
