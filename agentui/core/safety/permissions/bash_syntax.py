"""A Bash command reduced to the small grammar agentui understands completely: simple commands, pipelines (`|`,
`|&`), `&&`/`||`/`;` lists, comments, words, and redirections to or from a file or between descriptors. Any other
node of the parse (substitutions, subshells, groups, functions, loops, tests, assignments, here-documents,
background jobs, ...) raises `NotUnderstood`.

The parse is tree-sitter-bash's, read as bash reads it where the two differ: a redirection after a list or
pipeline belongs to its last simple command, and words after a redirection's target are arguments.
`shfmt_check.py` then asks a second, independent parser whether it sees the same structure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agentui.core.safety.permissions.bash_words import NotUnderstood

MAX_COMMAND_CHARS = 10_000
_SURROGATE = re.compile("[\ud800-\udfff]")

_WORD_NODES = {"word", "string", "raw_string", "concatenation", "number", "simple_expansion", "expansion"}
_REDIRECT_OPERATORS = {">", ">>", "<", ">|", "&>", "&>>", "<>", ">&", "<&", ">&-", "<&-"}
_WHAT = {  # what a node is, for the sentence that says why the command asks
    "command_substitution": "command substitution",
    "process_substitution": "process substitution",
    "arithmetic_expansion": "arithmetic",
    "subshell": "a subshell",
    "compound_statement": "a { } group or (( )) arithmetic",
    "function_definition": "a function definition",
    "if_statement": "an if statement",
    "while_statement": "a loop",
    "for_statement": "a loop",
    "c_style_for_statement": "a loop",
    "case_statement": "a case statement",
    "test_command": "a [[ ]] test",
    "variable_assignment": "an assignment",
    "variable_assignments": "an assignment",
    "declaration_command": "a declaration",
    "unset_command": "unset",
    "heredoc_redirect": "a here-document",
    "herestring_redirect": "a here-string",
    "negated_command": "a negated command",
    "ansi_c_string": "$'...' quoting",
    "translated_string": '$"..." quoting',
    "brace_expression": "brace expansion",
}


@dataclass(frozen=True)
class Word:
    text: str
    """As written, quotes included."""
    start: int
    end: int
    """Byte offsets in the command (UTF-8), for comparing with the second parser."""


@dataclass(frozen=True)
class Redirect:
    fd: str | None
    operator: str
    target: Word | None
    """The file (or descriptor) word; None for `>&-` and `<&-`."""
    start: int = 0

    @property
    def duplicates(self) -> bool:
        """`2>&1`, `>&2`, `<&0`, `2>&-`: the redirection opens no file."""
        if self.operator in (">&-", "<&-"):
            return True
        return self.operator in (">&", "<&") and self.target is not None and _descriptor(self.target.text)

    @property
    def writes(self) -> bool:
        return not self.duplicates and self.operator in (">", ">>", ">|", "&>", "&>>", "<>", ">&")

    @property
    def reads(self) -> bool:
        return not self.duplicates and self.operator in ("<", "<>", "<&")


def _descriptor(text: str) -> bool:
    return text == "-" or text.isdigit()


@dataclass(frozen=True)
class SimpleCommand:
    words: tuple[Word, ...]
    """The program's name first, then its arguments, in the order bash passes them."""
    redirects: tuple[Redirect, ...]
    start: int
    end: int

    @property
    def name(self) -> str:
        return self.words[0].text


@dataclass(frozen=True)
class Pipeline:
    commands: tuple[SimpleCommand, ...]
    connector: str | None
    """What joins it to the pipeline before: `;` (or a newline), `&&`, `||`; None for the first."""
    pipes: tuple[str, ...] = ()
    """Between its commands: `|`, or `|&` (which sends standard error down the pipe too)."""


@dataclass(frozen=True)
class Syntax:
    pipelines: tuple[Pipeline, ...]

    @property
    def commands(self) -> list[SimpleCommand]:
        return [command for pipeline in self.pipelines for command in pipeline.commands]

    def shape(self) -> list[object]:
        """The structure as plain data, to compare with the second parser's."""
        out: list[object] = []
        for pipeline in self.pipelines:
            out.append(pipeline.connector or "")
            for index, command in enumerate(pipeline.commands):
                if index:
                    out.append(pipeline.pipes[index - 1])
                out.append(
                    (
                        tuple((w.start, w.end) for w in command.words),
                        tuple(
                            (r.fd or "", _normal(r.operator), "-" if r.target is None else r.target.text)
                            for r in command.redirects
                        ),
                    )
                )
        return out


def _normal(operator: str) -> str:
    return {">&-": ">&", "<&-": "<&"}.get(operator, operator)


def check_characters(command: str) -> None:
    """Characters that bash and tree-sitter read differently, or that hide what a line does."""
    if len(command) > MAX_COMMAND_CHARS:
        raise NotUnderstood(f"the command is longer than {MAX_COMMAND_CHARS:,} characters")
    for char, why in (
        ("\x00", "a NUL byte"),
        ("\r", "a carriage return (bash reads it as part of a word)"),
        ("\x0b", "a vertical tab"),
        ("\x0c", "a form feed"),
    ):
        if char in command:
            raise NotUnderstood(f"the command contains {why}")
    if "\\\n" in command:
        raise NotUnderstood("the command continues a line with a backslash")
    if _SURROGATE.search(command):
        raise NotUnderstood("the command is not valid text")


def parse(command: str) -> Syntax:
    """The command in the small grammar, or NotUnderstood."""
    check_characters(command)
    from agentui.core.safety.permissions.shell import parse_tree

    data = command.encode()
    tree = parse_tree(command)
    if tree.root_node.has_error:
        raise NotUnderstood("the command could not be parsed")
    walker = _Walker(data)
    walker.program(tree.root_node)
    if not walker.pipelines:
        raise NotUnderstood("the command is empty")
    return Syntax(tuple(walker.pipelines))


class _Walker:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pipelines: list[Pipeline] = []
        self._connector: str | None = None

    def text(self, node: Any) -> str:
        return str(self.data[node.start_byte : node.end_byte].decode())

    def program(self, node: Any) -> None:
        for child in node.children:
            kind = child.type
            if kind == "comment":
                continue
            if kind == ";" or kind == "\n":
                self._connector = ";"
                continue
            if kind == "&":
                raise NotUnderstood("the command starts a background job (&)")
            if not child.is_named:
                raise NotUnderstood(f"the command uses {child.type!r}")
            self.statement(child, self._connector if self.pipelines else None)
            self._connector = ";"

    def statement(self, node: Any, connector: str | None, redirects: tuple[Redirect, ...] = ()) -> None:
        kind = node.type
        if kind == "list":
            parts = [c for c in node.children if c.type != "comment"]
            # A list is binary in tree-sitter: left, operator, right (left-nested for a && b || c).
            if len(parts) != 3 or parts[1].type not in ("&&", "||"):
                raise NotUnderstood("the command uses a list operator agentui does not follow")
            self.statement(parts[0], connector)
            self.statement(parts[2], parts[1].type, redirects)
        elif kind == "pipeline":
            commands: list[SimpleCommand] = []
            children = [c for c in node.children if c.type != "comment"]
            pieces = [c for c in children if c.is_named]
            pipes = [c.type for c in children if not c.is_named]
            if any(op not in ("|", "|&") for op in pipes) or len(pipes) != len(pieces) - 1:
                raise NotUnderstood("the pipeline uses an operator agentui does not follow")
            for index, piece in enumerate(pieces):
                last = index == len(pieces) - 1
                commands.append(self.simple(piece, redirects if last else ()))
            self.pipelines.append(Pipeline(tuple(commands), connector, tuple(pipes)))
        elif (
            kind == "redirected_statement"
            and (body := node.child_by_field_name("body")) is not None
            and body.type in ("command", "test_command")
        ):
            self.pipelines.append(Pipeline((self.simple(node, redirects),), connector))
        elif kind == "redirected_statement":
            body = node.child_by_field_name("body")
            if body is None:
                raise NotUnderstood("a redirection has no command")
            extra = self.redirects_around(node, body)
            # (bash: redirections written after a list or pipeline belong to its last simple command)
            self.statement(body, connector, extra + redirects)
        elif kind in ("command", "test_command"):
            self.pipelines.append(Pipeline((self.simple(node, redirects),), connector))
        else:
            raise NotUnderstood(f"the command uses {_WHAT.get(kind, kind.replace('_', ' '))}")

    def redirects_around(self, node: Any, body: Any, words: list[Word] | None = None) -> tuple[Redirect, ...]:
        """The redirections of a redirected statement (every named child but its body); words tree-sitter put after
        a redirection's target go to `words`."""
        return tuple(
            self.redirect(c, words)
            for c in node.children
            if c.is_named and c.start_byte != body.start_byte and c.type != "comment"
        )

    def simple(self, node: Any, outer: tuple[Redirect, ...]) -> SimpleCommand:
        if node.type == "redirected_statement":
            body = node.child_by_field_name("body")
            if body is None or body.type not in ("command", "test_command"):
                raise NotUnderstood(f"the command uses {_WHAT.get(body.type if body else '', 'a compound command')}")
            inner = self.simple(body, outer)
            found = list(inner.words)
            around = self.redirects_around(node, body, found)
            found.sort(key=lambda w: w.start)
            ordered = tuple(sorted((*inner.redirects, *around), key=lambda r: r.start))
            return SimpleCommand(tuple(found), ordered, node.start_byte, node.end_byte)
        if node.type == "test_command" and node.children and node.children[0].type == "[":
            return SimpleCommand(self.bracket_words(node), outer, node.start_byte, node.end_byte)
        if node.type != "command":
            raise NotUnderstood(f"the command uses {_WHAT.get(node.type, node.type.replace('_', ' '))}")
        words: list[Word] = []
        redirects: list[Redirect] = []
        named = False
        for child in node.children:
            kind = child.type
            if kind == "command_name":
                named = True
                inner = child.children
                if len(inner) != 1 or inner[0].type not in _WORD_NODES:
                    raise NotUnderstood("the command name is not a plain word")
                words.append(self.word(inner[0]))
            elif kind in _WORD_NODES:
                words.append(self.word(child))
            elif kind == "file_redirect":
                redirects.append(self.redirect(child, words))
            elif kind == "comment":
                continue
            else:
                raise NotUnderstood(f"the command uses {_WHAT.get(kind, kind.replace('_', ' '))}")
        if not named or not words:
            raise NotUnderstood("a redirection has no command")
        words.sort(key=lambda w: w.start)
        ordered = tuple(sorted((*redirects, *outer), key=lambda r: r.start))
        return SimpleCommand(tuple(words), ordered, node.start_byte, node.end_byte)

    def bracket_words(self, node: Any) -> tuple[Word, ...]:
        """`[ ... ]` is an ordinary command to bash (tree-sitter reads it as an expression, and reads `[ a < b ]`
        as a comparison where bash sees a redirection): its words, split as bash splits them."""
        text = self.data[node.start_byte : node.end_byte]
        words: list[Word] = []
        i, n = 0, len(text)
        while i < n:
            if text[i : i + 1] in (b" ", b"\t"):
                i += 1
                continue
            start = i
            quote = b""
            while i < n:
                c = text[i : i + 1]
                if quote:
                    if c == b"\\" and quote == b'"':
                        i += 2
                        continue
                    if c == quote:
                        quote = b""
                elif c in (b"'", b'"'):
                    quote = c
                elif c == b"\\":
                    i += 2
                    continue
                elif c in (b" ", b"\t"):
                    break
                elif c in b"<>|&;()\n`":
                    raise NotUnderstood(f"the [ ] test holds {c.decode()!r}, which bash reads as more than a word")
                i += 1
            if quote:
                raise NotUnderstood("a quote in the [ ] test is not closed")
            words.append(Word(text[start:i].decode(), node.start_byte + start, node.start_byte + i))
        if len(words) < 2 or words[0].text != "[" or words[-1].text != "]":
            raise NotUnderstood("the [ ] test is not closed")
        return tuple(words)

    def word(self, node: Any) -> Word:
        self._only_words(node)
        return Word(self.text(node), node.start_byte, node.end_byte)

    def _only_words(self, node: Any) -> None:
        kind = node.type
        if kind in _WHAT:
            raise NotUnderstood(f"the command uses {_WHAT[kind]}")
        for child in node.children:
            self._only_words(child)

    def redirect(self, node: Any, words: list[Word] | None = None) -> Redirect:
        if node.type != "file_redirect":
            raise NotUnderstood(f"the command uses {_WHAT.get(node.type, node.type.replace('_', ' '))}")
        fd = operator = None
        targets: list[Word] = []
        for child in node.children:
            if child.type == "file_descriptor":
                fd = self.text(child)
            elif not child.is_named:
                if operator is not None or child.type not in _REDIRECT_OPERATORS:
                    raise NotUnderstood(f"the redirection {self.text(node)[:30]!r} is not one agentui follows")
                operator = child.type
            elif child.type in _WORD_NODES:
                targets.append(self.word(child))
            else:
                raise NotUnderstood(f"the command uses {_WHAT.get(child.type, child.type.replace('_', ' '))}")
        if operator is None:
            raise NotUnderstood("a redirection has no operator")
        if operator in (">&-", "<&-"):
            if targets:
                raise NotUnderstood("a redirection closes a descriptor and names a file")
            return Redirect(fd, operator, None, node.start_byte)
        if not targets:
            raise NotUnderstood("a redirection has no target")
        if len(targets) > 1:
            # tree-sitter reads `ls >f x` as a redirection to `f x`; bash makes x an argument of ls
            if words is None:
                raise NotUnderstood("words follow a redirection after a list")
            words.extend(targets[1:])
        return Redirect(fd, operator, targets[0], node.start_byte)
