"""Bash commands as the permission engine sees them, parsed with tree-sitter-bash: every simple command that
would run (however nested: `&&`, pipes, subshells, `$(...)`, backticks, process substitution, heredocs, functions,
`bash -c` and `eval` of literal text), every redirection, and whatever could not be understood.

Nothing here decides; `engine.py` does. This module only has to be complete: a command it misses is a command
that runs unchecked, so anything it cannot see through sets `problem`, and the engine then asks.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from agentui.core.safety.permissions.once import once

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
# Variables that change what later commands run or which files they trust: setting one is never "just an
# assignment" (`PATH=./bin:$PATH; ls` runs the project's own ls).
_RISKY_VARIABLES = frozenset(
    {
        "PATH", "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "BASH_ENV", "ENV", "ZDOTDIR", "SHELL", "CDPATH",
        "IFS", "GLOBIGNORE", "SHELLOPTS", "BASHOPTS", "PROMPT_COMMAND", "PS4", "LD_PRELOAD", "LD_LIBRARY_PATH",
        "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "DYLD_LIBRARY_PATH", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME",
        "NODE_OPTIONS", "NODE_PATH", "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB", "PAGER",
        "GIT_PAGER", "MANPAGER", "EDITOR", "VISUAL", "GIT_EDITOR", "LESSOPEN", "LESSCLOSE", "BROWSER", "GIT_DIR",
        "GIT_WORK_TREE", "GIT_EXEC_PATH", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS",
        "GIT_EXTERNAL_DIFF", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT", "GIT_PROXY_COMMAND", "GIT_TEMPLATE_DIR",
    }
)  # fmt: skip
_ARITHMETIC_TESTS = {"-eq", "-ne", "-lt", "-le", "-gt", "-ge"}
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
    fed_from: tuple[str, ...] | None = None
    """For `find DIRS ... | xargs CMD`: the appended arguments are paths under these."""

    @once  # (every rule lookup asks for it; computed once per command)
    def text(self) -> str:
        """The command as rules see it: name and arguments, whitespace collapsed, no leading assignments."""
        return " ".join(" ".join((self.name, *self.texts)).split())

    @once
    def value_text(self) -> str:
        """The command with its quotes removed, where each word's value is known (`git 'push'` is `git push`)."""
        values = (word if word is not None else text for word, text in zip(self.words, self.texts, strict=True))
        return " ".join(" ".join((self.name, *values)).split())

    @once
    def full_text(self) -> str:
        return " ".join((*self.assignments, self.text))

    def matching_text(self, *, with_assignments: bool = False) -> str:
        base = self.full_text if with_assignments else self.text
        return base + " \x00" if self.open_ended else base  # \x00 only a wildcard can match

    @once
    def guarded_texts(self) -> tuple[str, ...]:
        """Every form a deny or ask rule sees it in (asked for twice per check, once for each): as written, without
        its VAR=value prefix, with quotes removed, and by the program's base name (`/usr/bin/touch` is touch)."""
        texts = [self.matching_text(with_assignments=True)]
        forms = [self, replace(self, name=os.path.basename(self.name))] if "/" in self.name else [self]
        for form in forms:
            if form.assignments:
                texts.append(form.matching_text())
            texts.append(form.value_text + (" \x00" if form.open_ended else ""))
        return tuple(dict.fromkeys(texts))

    @once
    def known_text(self) -> str:
        """The program's base name and its arguments' values."""
        return " ".join((os.path.basename(self.name), *self.value_text.split(" ")[1:]))


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


@functools.lru_cache(maxsize=64)
def parse_tree(command: str) -> Any:
    """tree-sitter's parse of a command (kept for a few commands: one check reads the same command twice, once
    to see through it for deny rules and once to understand it; trees are never changed)."""
    return _parser().parse(command.encode())


_SURROGATE = re.compile("[\ud800-\udfff]")


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
    if _SURROGATE.search(command):
        result.flag("the command is not valid text")
        return result
    tree = parse_tree(command)
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
    if kind in ("raw_string", "number") or (kind == "word" and not node.child_count):
        return _token_value(kind, text)
    if kind == "word":
        return None if any(child.type in _DYNAMIC for child in node.children) else _unescape(text)
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


def _token_value(kind: str, text: str) -> str | None:
    """`literal` of a token (a node with no children), from its type and text alone."""
    if kind == "word":
        return _unescape(text)
    if kind == "raw_string":
        return text[1:-1]
    if kind == "number":
        return text
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


_SUBSTRING = re.compile(r"^\$\{#?\w+:[^-=+?]")  # ${x:offset}: the offset is arithmetic


def _identifiers(node: Any) -> list[str]:
    """Variable names an arithmetic expression reads (bare names count: `(( x ))` reads $x)."""
    found = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in ("variable_name", "simple_expansion", "expansion", "command_substitution"):
            found.append(current.text.decode(errors="surrogateescape").strip("${}"))
            continue
        if current.type == "word" and not current.text.decode(errors="replace").isdigit():
            found.append(current.text.decode(errors="surrogateescape"))
            continue
        stack.extend(current.children)
    return found


def _find_starts(node: Any) -> tuple[str, ...] | None:
    """The start directories of a plain `find` command node (all literal words), else None."""
    if node.type != "command":
        return None
    name = node.child_by_field_name("name")
    if name is None or literal(name.children[0]) != "find":
        return None
    words = [literal(c) for c in node.children if c.type != "command_name"]
    if any(w is None for w in words):
        return None
    starts = []
    for word in words:
        if word is None or word.startswith(("-", "(", "!")):
            break
        starts.append(word)
    return tuple(starts or ["."])


def _destinations(redirect: Any) -> list[Any]:
    return [child for child in redirect.children if child.is_named and child.type != "file_descriptor"]


class _Walker:
    def __init__(self, result: ShellAnalysis, depth: int) -> None:
        self.result = result
        self.depth = depth
        self.feed: tuple[str, ...] | None = None
        """While visiting the command after `find DIRS |`: those directories."""
        self.bindings: dict[str, str] = {}
        """Loop variables with the literal value they hold on this pass through the loop body."""

    def visit(self, node: Any) -> None:
        kind = node.type
        if kind == "command":
            self._command(node)
        elif kind in ("declaration_command", "unset_command"):
            self._declaration(node)
        elif kind == "file_redirect":
            self._redirect(node)
        elif (kind == "redirected_statement" and self._spilled_words(node)) or (
            kind == "for_statement" and self._bound_loop(node)
        ):
            return
        elif kind == "pipeline":
            self._pipeline(node)
        else:
            if kind == "variable_assignment":
                self._assignment(node)
            elif kind in ("arithmetic_expansion", "c_style_for_statement") or (
                kind == "compound_statement" and node.children and node.children[0].type == "(("
            ):
                self._arithmetic(node)
            elif kind == "binary_expression" and node.parent is not None and node.parent.type == "test_command":
                self._arithmetic_test(node)
            elif kind == "expansion":
                self._expansion(node)
            for child in node.children:
                if child.child_count:  # (a token holds nothing that runs: most nodes are, and a call costs)
                    self.visit(child)

    def _pipeline(self, node: Any) -> None:
        """A pipeline, noting where `find` feeds `xargs` the names of files it found (and only that)."""
        previous = None
        for child in node.children:
            self.feed = _find_starts(previous) if previous is not None else None
            self.visit(child)
            if child.is_named:
                previous = child
        self.feed = None

    # Words that bash evaluates as code: arithmetic evaluates a variable's value as an expression, and an array
    # subscript in it runs command substitutions (`x='a[$(touch f)]'; (( x ))`).

    def _arithmetic(self, node: Any) -> None:
        assigned = set()
        if node.type == "c_style_for_statement":  # (( i=0; i<3; i++ )): a counter set to a number is safe
            for child in node.children:
                if child.type == "variable_assignment" and child.child_by_field_name("value") is not None:
                    value = child.child_by_field_name("value")
                    name = child.child_by_field_name("name")
                    if value.type == "number" and name is not None:
                        assigned.add(name.text.decode())
        for name in _identifiers(node):
            if name not in assigned:
                self.result.flag(f"an arithmetic expression evaluates ${name}, whose value can run commands")
                return

    def _arithmetic_test(self, node: Any) -> None:
        operator = node.child_by_field_name("operator")
        if operator is None or operator.text.decode() not in _ARITHMETIC_TESTS:
            return
        for side in (node.child_by_field_name("left"), node.child_by_field_name("right")):
            if side is not None and side.type != "number":
                self.result.flag("a [[ ]] comparison evaluates a value as arithmetic, which can run commands")
                return

    def _expansion(self, node: Any) -> None:
        text = node.text.decode(errors="surrogateescape")
        if text.startswith("${!") or "@P" in text or "[" in text or _SUBSTRING.match(text):
            self.result.flag(f"the expansion {text[:40]} can run commands hidden in a variable's value")

    def _assignment(self, node: Any) -> None:
        name = node.child_by_field_name("name")
        if name is not None:
            self._risky(name.text.decode(errors="surrogateescape"))

    def _risky(self, variable: str) -> None:
        variable = variable.split("=", 1)[0].split("[", 1)[0].lstrip("+")
        if variable in _RISKY_VARIABLES or variable.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_")):
            self.result.flag(f"the command sets {variable}, which changes what later commands run")

    def _bound_loop(self, node: Any) -> bool:
        """`for f in a b *.md; do ... "$f" ...; done` over literal words: the body is checked once for each value,
        so a loop over files is judged by the files. False (walk it as usual) for any other loop."""
        variable = node.child_by_field_name("variable")
        body = node.child_by_field_name("body")
        values_nodes = [c for c in node.children if c.type in _LITERAL_LEAVES and c != variable]
        if variable is None or body is None or not values_nodes:
            return False
        values = [literal(c) for c in values_nodes]
        if any(v is None for v in values) or len(values) > 50:
            return False
        name = variable.text.decode()
        self._risky(name)
        outer = self.bindings.get(name)
        for value in values:
            self.bindings[name] = value  # type: ignore[assignment]
            self.visit(body)
        if outer is None:
            self.bindings.pop(name, None)
        else:
            self.bindings[name] = outer
        return True

    def _spilled_words(self, node: Any) -> bool:
        """tree-sitter reads `git 2>/dev/null push` as one redirection to three targets; bash redirects to the
        first and passes the rest to the command as arguments. True once such a statement has been walked."""
        body = node.child_by_field_name("body")
        extra = [word for child in node.children if child.type == "file_redirect" for word in _destinations(child)[1:]]
        if not extra:
            return False
        if body is not None and body.type == "command":
            self._command(body, extra)
        else:
            self.result.flag("words follow a redirection of a compound command")
        for child in node.children:
            if body is None or body.type != "command" or child != body:
                self.visit(child)
        return True

    def _command(self, node: Any, spilled: list[Any] | None = None) -> None:
        assignments: list[str] = []
        name_parts: list[Any] | None = None
        arguments: list[Any] = []
        for child in node.children:
            kind = child.type
            if kind == "command_name":
                name_parts = child.children
                for part in name_parts:
                    if part.child_count:
                        self.visit(part)
                continue
            if kind == "variable_assignment" and name_parts is None:
                assignments.append(child.text.decode(errors="surrogateescape"))
            elif kind not in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                arguments.append(child)
            if child.child_count:
                self.visit(child)
        arguments.extend(spilled or ())  # visited with their redirection
        if name_parts is None:
            return  # only assignments (`X=1`): nothing runs but what the values expand, already visited
        name = literal(name_parts[0]) if name_parts else None
        if name is None:
            self.result.flag("the command name is not a literal word")
            return
        words, texts = [], []
        for arg in arguments:
            text = arg.text.decode(errors="surrogateescape")
            texts.append(text)
            words.append(_token_value(arg.type, text) if not arg.child_count else self._word(arg))
        command = SimpleCommand(name=name, words=tuple(words), texts=tuple(texts), assignments=tuple(assignments))
        self._unwrap(command)

    def _word(self, node: Any) -> str | None:
        """A word's value, a loop variable's included (`"$f"` inside `for f in a b`)."""
        value = literal(node)
        if value is not None or not self.bindings:
            return value
        inner = node
        if inner.type == "string" and len(inner.named_children) == 1:
            inner = inner.named_children[0]
        if inner.type in ("simple_expansion", "expansion") and len(inner.named_children) == 1:
            variable = inner.named_children[0]
            if variable.type == "variable_name":
                return self.bindings.get(variable.text.decode())
        return None

    def _declaration(self, node: Any) -> None:
        keyword = node.children[0].text.decode() if node.children else "declare"
        rest = node.children[1:]
        if any(c.type == "word" and c.text.startswith(b"-") and b"i" in c.text for c in rest):
            self.result.flag(f"{keyword} -i evaluates its values as arithmetic, which can run commands")
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
        operator = next((child.type for child in node.children if not child.is_named), None)
        destinations = _destinations(node)
        for child in destinations:
            self.visit(child)
        destination = destinations[0] if destinations else None
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
            for assignment in extra:
                self._risky(assignment)
            if start is not None and start < len(words):
                self._inner(command, start, assignments=(*command.assignments, *extra))
                return
        elif name in _SHELLS:
            script = _shell_script(words)
            if isinstance(script, _Problem):
                self.result.flag(f"{name} {script.why}")
                return
            if script is not None:
                self.result.merge(analyze(script, self.depth + 1))
                return
            # a script file (or standard input) runs: `bash` itself is the command to allow
        elif name == "let" and any(word is None or not word.isdigit() for word in words):
            self.result.flag("let evaluates its arguments as arithmetic, which can run commands")
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
        elif name == "git":
            self._git_runs(words)
        elif name == "find":
            for index, word in enumerate(words):
                if word in ("-exec", "-execdir", "-ok", "-okdir") and index + 1 < len(words):
                    end = next((i for i in range(index + 1, len(words)) if words[i] in (";", "+")), len(words))
                    self._hidden(command, index + 1, end)
        self.result.commands.append(command)

    def _git_runs(self, words: list[str | None]) -> None:
        """The commands git subcommands run for you: `submodule foreach CMD`, `rebase --exec CMD` (`-x`), `bisect
        run CMD` (each through the shell)."""
        index = 0
        while index < len(words) and (words[index] or "").startswith("-"):
            index += 2 if words[index] in _GIT_GLOBALS_WITH_VALUE else 1
        sub, rest = (words[index], words[index + 1 :]) if index < len(words) else (None, [])
        scripts: list[list[str | None]] = []
        if sub == "submodule" and "foreach" in rest:
            after = rest[rest.index("foreach") + 1 :]
            while after and after[0] in ("--recursive", "--quiet", "-q"):
                after = after[1:]
            scripts.append(after)
        elif sub == "bisect" and rest[:1] == ["run"]:
            scripts.append(rest[1:])
        elif sub == "rebase":
            for at, word in enumerate(rest):
                if word in ("--exec", "-x") and at + 1 < len(rest):
                    scripts.append(rest[at + 1 : at + 2])
                elif word is not None and word.startswith(("--exec=", "-x")) and len(word) > 2:
                    scripts.append([word.split("=", 1)[1] if word.startswith("--exec=") else word[2:]])
        for script in scripts:
            if any(word is None for word in script):
                self.result.flag("git runs a command that depends on an expansion")
            elif script:
                self.result.merge(analyze(" ".join(script), self.depth + 1))  # type: ignore[arg-type]

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
        fed_from = self.feed if open_ended else command.fed_from
        inner = SimpleCommand(
            inner.name, inner.words, inner.texts, assignments, open_ended or command.open_ended, fed_from
        )
        self._unwrap(inner)

    def _hidden(self, command: SimpleCommand, start: int, end: int | None = None) -> None:
        inner = self._slice(command, start, end)
        if inner is not None:
            self.result.hidden.append(inner)


_GIT_GLOBALS_WITH_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path",
                                     "--config-env", "--super-prefix", "--list-cmds"})  # fmt: skip


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


def _exec_start(words: list[str | None]) -> int | None:
    return _skip_options(words, takes_value={"-a"})  # exec -a NAME: the name shown, not the program


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
    "exec": _exec_start,
}
_SHELLS = {"bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "busybox"}


@dataclass(frozen=True)
class _Problem:
    why: str


def _shell_script(words: list[str | None]) -> str | _Problem | None:
    """What `bash ...` runs, read as bash reads its arguments: options up to the first operand, and `-c` (alone or
    in a bundle such as `-ec`) makes that operand the script text. None: it runs a file or standard input."""
    index, inline = 0, False
    while index < len(words):
        word = words[index]
        if word is None:
            return _Problem("is run with options that depend on an expansion")
        if word == "--":
            index += 1
            break
        if word in ("--rcfile", "--init-file") or word.startswith(("--rcfile=", "--init-file=")):
            return _Problem("is told to read a start-up file first")
        if word in ("-o", "+o", "-O", "+O"):
            index += 2
            continue
        if word.startswith("--"):
            index += 1
            continue
        if len(word) > 1 and word[0] in "-+":
            inline = inline or "c" in word[1:]
            index += 1
            continue
        break
    if not inline:
        return None
    if index >= len(words):
        return _Problem("-c is given no script")
    script = words[index]
    return script if script is not None else _Problem("-c runs text that depends on an expansion")


def _env_start(words: list[str | None]) -> tuple[int | None, tuple[str, ...]]:
    index, assignments = 0, []
    while index < len(words):
        word = words[index]
        if word is None:
            return None, ()
        if word.startswith(("-S", "--split-string", "--s", "-C", "--chdir", "--c")) or (
            word.startswith("-") and not word.startswith("--") and ("S" in word or "C" in word)
        ):
            # env -S parses its own command line, and env -C moves what the command's paths mean: neither is
            # something to see through
            return None, ()
        if word in ("-u", "--unset"):
            index += 2
        elif word.startswith("-"):
            index += 1
        elif "=" in word:
            assignments.append(word)
            index += 1
        else:
            return index, tuple(assignments)
    return index, tuple(assignments)
