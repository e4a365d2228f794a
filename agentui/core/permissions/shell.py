"""Bash commands as the permission engine sees them, parsed with tree-sitter-bash: every simple command that
would run (however nested: `&&`, pipes, subshells, `$(...)`, backticks, process substitution, heredocs, functions,
`bash -c` and `eval` of literal text), every redirection, and whatever could not be understood.

Nothing here decides; `engine.py` does. This module only has to be complete: a command it misses is a command
that runs unchecked, so anything it cannot see through sets `problem`, and the engine then asks.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any

MAX_COMMAND_CHARS = 10_000
MAX_DEPTH = 5

_LITERAL_LEAVES = {"word", "number", "raw_string", "string_content", '"', "concatenation", "string"}
_DYNAMIC = {
    "simple_expansion",
    "expansion",
    "command_substitution",
    "process_substitution",
    "arithmetic_expansion",
    "brace_expression",
    "ansi_c_string",
    "translated_string",
}
_WRITE_OPERATORS = {">", ">>", ">|", "&>", "&>>", "<>", ">&"}
_READ_OPERATORS = {"<", "<>"}


@dataclass(frozen=True)
class SimpleCommand:
    name: str
    words: tuple[str | None, ...]
    """Each argument's value with quotes removed, or None where it depends on an expansion."""
    texts: tuple[str, ...]
    """Each argument as written."""
    assignments: tuple[str, ...] = ()
    open_ended: bool = False
    """More arguments are appended when it runs (xargs): only wildcard rules can cover it."""

    @cached_property  # (every rule lookup asks for it; computed once per command)
    def text(self) -> str:
        """The command as rules see it: name and arguments, whitespace collapsed, no leading assignments."""
        return " ".join(" ".join((self.name, *self.texts)).split())

    @cached_property
    def full_text(self) -> str:
        return " ".join((*self.assignments, self.text))

    def matching_text(self, *, with_assignments: bool = False) -> str:
        base = self.full_text if with_assignments else self.text
        return base + " \x00" if self.open_ended else base  # \x00 only a wildcard can match


@dataclass(frozen=True)
class Redirect:
    operator: str
    target: str | None
    """The file, unquoted; None if it depends on an expansion."""

    @property
    def writes(self) -> bool:
        return self.operator in _WRITE_OPERATORS

    @property
    def reads(self) -> bool:
        return self.operator in _READ_OPERATORS


@dataclass
class ShellAnalysis:
    commands: list[SimpleCommand] = field(default_factory=list)
    """What runs, wrappers (timeout, nice, env, ...) taken off."""
    hidden: list[SimpleCommand] = field(default_factory=list)
    """What runs through another program (sudo, xargs, find -exec): checked against deny and ask rules, while
    the outer command must be allowed in its own right."""
    redirects: list[Redirect] = field(default_factory=list)
    problem: str | None = None
    """Why the command cannot be trusted to be what it seems; the engine asks when this is set."""

    def flag(self, problem: str) -> None:
        self.problem = self.problem or problem

    def merge(self, other: ShellAnalysis) -> None:
        self.commands += other.commands
        self.hidden += other.hidden
        self.redirects += other.redirects
        if other.problem:
            self.flag(other.problem)


@cache
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def analyze(command: str, depth: int = 0) -> ShellAnalysis:
    result = ShellAnalysis()
    if len(command) > MAX_COMMAND_CHARS:
        result.flag(f"the command is longer than {MAX_COMMAND_CHARS:,} characters")
        return result
    if depth > MAX_DEPTH:
        result.flag("the command nests shells too deeply to check")
        return result
    if "\x00" in command:
        result.flag("the command contains a NUL byte")
        return result
    tree = _parser().parse(command.encode())
    if tree.root_node.has_error:  # (a tree without errors has no ERROR or missing node for the walker to find)
        result.flag("the command could not be parsed")
    _Walker(result, depth).visit(tree.root_node)
    return result


def literal(node: Any) -> str | None:
    """The value of a word as bash would see it, or None if an expansion is involved."""
    kind = node.type
    if kind in _DYNAMIC:
        return None
    text: str = node.text.decode(errors="surrogateescape")
    if kind == "raw_string":
        return text[1:-1]
    if kind == "word":
        if any(child.type in _DYNAMIC for child in node.children):
            return None
        return _unescape(text)
    if kind == "number":
        return text
    if kind == "string":
        parts = []
        for child in node.children:
            if child.type == '"':
                continue
            if child.type != "string_content":
                return None
            parts.append(child.text.decode(errors="surrogateescape"))
        return "".join(parts)
    if kind == "concatenation":
        values = [literal(child) for child in node.children]
        return None if any(value is None for value in values) else "".join(values)  # type: ignore[arg-type]
    return None


def _unescape(text: str) -> str:
    if "\\" not in text:
        return text
    out, escaped = [], False
    for char in text:
        if escaped:
            out.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        else:
            out.append(char)
    return "".join(out)


class _Walker:
    def __init__(self, result: ShellAnalysis, depth: int) -> None:
        self.result = result
        self.depth = depth

    def visit(self, node: Any) -> None:
        kind = node.type
        if kind == "command":
            self._command(node)
        elif kind in ("declaration_command", "unset_command"):
            self._declaration(node)
        elif kind == "file_redirect":
            self._redirect(node)
        else:
            for child in node.children:
                self.visit(child)

    def _command(self, node: Any) -> None:
        assignments: list[str] = []
        name_node = None
        arguments: list[Any] = []
        for child in node.children:
            if child.type == "variable_assignment" and name_node is None:
                assignments.append(child.text.decode(errors="surrogateescape"))
                self.visit(child)
            elif child.type == "command_name":
                name_node = child
                self.visit(child)
            elif child.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                self.visit(child)
            else:
                arguments.append(child)
                self.visit(child)
        if name_node is None:
            return  # only assignments (`X=1`): nothing runs but what the values expand, already visited
        name = literal(name_node.children[0]) if name_node.children else None
        if name is None:
            self.result.flag("the command name is not a literal word")
            return
        command = SimpleCommand(
            name=name,
            words=tuple(literal(arg) for arg in arguments),
            texts=tuple(arg.text.decode(errors="surrogateescape") for arg in arguments),
            assignments=tuple(assignments),
        )
        self._unwrap(command)

    def _declaration(self, node: Any) -> None:
        keyword = node.children[0].text.decode() if node.children else "declare"
        rest = node.children[1:]
        for child in rest:
            self.visit(child)
        self.result.commands.append(
            SimpleCommand(
                name=keyword,
                words=tuple(literal(child) for child in rest),
                texts=tuple(child.text.decode(errors="surrogateescape") for child in rest),
            )
        )

    def _redirect(self, node: Any) -> None:
        operator, destination = None, None
        for child in node.children:
            if child.type == "file_descriptor":
                continue
            if operator is None and not child.is_named:
                operator = child.type
            elif child.is_named:
                destination = child
                self.visit(child)
        if operator is None:
            return
        target = literal(destination) if destination is not None else None
        if operator in (">&", "<&") and (target is None or target.isdigit() or target == "-"):
            if target is None and destination is not None:
                self.result.flag("a redirection target depends on an expansion")
            return  # 2>&1 and friends duplicate a descriptor; they open no file
        self.result.redirects.append(Redirect(operator, target))

    # Wrappers: programs that run another command

    def _unwrap(self, command: SimpleCommand) -> None:
        name = command.name.rsplit("/", 1)[-1]
        words = list(command.words)
        if name in _SIMPLE_WRAPPERS:
            start = _SIMPLE_WRAPPERS[name](words)
            if start is not None and start < len(words):
                self._inner(command, start, assignments=command.assignments)
                return
        elif name == "env":
            start, extra = _env_start(words)
            if start is not None and start < len(words):
                self._inner(command, start, assignments=(*command.assignments, *extra))
                return
        elif name in ("bash", "sh", "zsh", "dash", "ksh") and "-c" in words:
            index = words.index("-c")
            script = words[index + 1] if index + 1 < len(words) else None
            if script is None:
                self.result.flag(f"{name} -c runs text that depends on an expansion")
            else:
                self.result.merge(analyze(script, self.depth + 1))
            return
        elif name == "eval":
            if any(word is None for word in words):
                self.result.flag("eval runs text that depends on an expansion")
            else:
                self.result.merge(analyze(" ".join(words), self.depth + 1))  # type: ignore[arg-type]
            return
        elif name in ("sudo", "doas"):
            start = _skip_options(words, takes_value={"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"})
            if start is not None and start < len(words):
                self._hidden(command, start)
        elif name == "xargs":
            start = _skip_options(
                words,
                takes_value={
                    "-a",
                    "-d",
                    "-E",
                    "-I",
                    "-L",
                    "-n",
                    "-P",
                    "-s",
                    "--max-args",
                    "--max-procs",
                    "--delimiter",
                    "--arg-file",
                    "--replace",
                },
            )
            if start is not None and start < len(words):
                self._inner(command, start, assignments=command.assignments, open_ended=True)
                return
        elif name == "find":
            for index, word in enumerate(words):
                if word in ("-exec", "-execdir", "-ok", "-okdir") and index + 1 < len(words):
                    end = next((i for i in range(index + 1, len(words)) if words[i] in (";", "+")), len(words))
                    self._hidden(command, index + 1, end)
        self.result.commands.append(command)

    def _slice(self, command: SimpleCommand, start: int, end: int | None = None) -> SimpleCommand | None:
        end = len(command.words) if end is None else end
        name = command.words[start]
        if name is None:
            self.result.flag(f"{command.name} runs a command whose name depends on an expansion")
            return None
        return SimpleCommand(name=name, words=command.words[start + 1 : end], texts=command.texts[start + 1 : end])

    def _inner(
        self, command: SimpleCommand, start: int, *, assignments: tuple[str, ...], open_ended: bool = False
    ) -> None:
        inner = self._slice(command, start)
        if inner is None:
            return
        inner = SimpleCommand(inner.name, inner.words, inner.texts, assignments, open_ended or command.open_ended)
        self._unwrap(inner)

    def _hidden(self, command: SimpleCommand, start: int, end: int | None = None) -> None:
        inner = self._slice(command, start, end)
        if inner is not None:
            self.result.hidden.append(inner)


def _skip_options(words: list[str | None], takes_value: AbstractSet[str] = frozenset()) -> int | None:
    index = 0
    while index < len(words):
        word = words[index]
        if word is None:
            return None
        if word == "--":
            return index + 1
        if not word.startswith("-") or word == "-":
            return index
        index += 2 if word in takes_value else 1
    return index


def _timeout_start(words: list[str | None]) -> int | None:
    start = _skip_options(words, takes_value={"-s", "-k", "--signal", "--kill-after"})
    return None if start is None else start + 1  # the duration comes first


def _nice_start(words: list[str | None]) -> int | None:
    return _skip_options(words, takes_value={"-n", "--adjustment"})


def _stdbuf_start(words: list[str | None]) -> int | None:
    return _skip_options(words, takes_value={"-i", "-o", "-e", "--input", "--output", "--error"})


def _plain_start(words: list[str | None]) -> int | None:
    return _skip_options(words)


def _command_start(words: list[str | None]) -> int | None:
    if any(word in ("-v", "-V") for word in words):
        return None  # `command -v x` only looks x up
    return _skip_options(words)


_SIMPLE_WRAPPERS = {
    "timeout": _timeout_start,
    "nice": _nice_start,
    "nohup": _plain_start,
    "time": _plain_start,
    "stdbuf": _stdbuf_start,
    "command": _command_start,
    "builtin": _plain_start,
    "exec": _plain_start,
}


def _env_start(words: list[str | None]) -> tuple[int | None, tuple[str, ...]]:
    index, assignments = 0, []
    while index < len(words):
        word = words[index]
        if word is None:
            return None, ()
        if word in ("-u", "--unset", "-C", "--chdir", "-S", "--split-string"):
            if word in ("-S", "--split-string"):
                return None, ()  # env -S parses its own command line: not something to see through
            index += 2
        elif word.startswith("-"):
            index += 1
        elif "=" in word:
            assignments.append(word)
            index += 1
        else:
            return index, tuple(assignments)
    return index, tuple(assignments)
