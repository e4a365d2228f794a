"""A second opinion on a command's structure from shfmt (mvdan/sh), a bash parser independent of tree-sitter: where
the two disagree about which words make which simple commands, how they are joined, or what is redirected where,
bash may run something neither check saw, so the command asks.

shfmt comes with agentui (the `shfmt-py` wheel). It reads the command on standard input, from `/`, with an empty
environment (it then reads no EditorConfig file), and runs nothing.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

from agentui.core.safety.permissions.bash_syntax import Syntax
from agentui.core.safety.permissions.bash_words import NotUnderstood

TIMEOUT = 10.0
_CACHE_SIZE = 256
_WORD_PARTS = {"Lit", "SglQuoted", "DblQuoted", "ParamExp"}
_PARAM_OPERATORS = ("Excl", "Length", "Width", "Index", "Slice", "Repl", "Names", "Exp")


@functools.cache
def shfmt_path() -> str | None:
    """The shfmt installed with agentui (beside this Python), else one on PATH."""
    for directory in (sysconfig.get_path("scripts"), str(Path(sys.executable).parent)):
        candidate = Path(directory) / ("shfmt.exe" if os.name == "nt" else "shfmt")
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("shfmt")


def agree(command: str, syntax: Syntax) -> None:
    """Raise NotUnderstood unless shfmt reads `command` as the same simple commands, joined and redirected the
    same way, as `syntax` (tree-sitter's reading)."""
    if _shape(command) != _plain(syntax.shape()):
        raise NotUnderstood("a second parser (shfmt) reads the command differently, so bash may too")


def _plain(shape: list[object]) -> str:
    return json.dumps(shape)


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _shape(command: str) -> str:
    path = shfmt_path()
    if path is None:
        raise NotUnderstood("shfmt, the second parser that confirms a command's structure, is not installed")
    try:
        done = subprocess.run(
            [path, "-ln", "bash", "--tojson"],
            input=command.encode(),
            capture_output=True,
            cwd="/",
            env={},
            timeout=TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise NotUnderstood(f"the second parser (shfmt) could not run ({exc})") from None
    if done.returncode != 0:
        raise NotUnderstood("a second parser (shfmt) cannot parse the command")
    try:
        tree = json.loads(done.stdout)
        out: list[object] = []
        _Flattener(command.encode(), out).file(tree)
    except (ValueError, RecursionError):
        raise NotUnderstood("the second parser (shfmt) gave no reading of the command agentui can follow") from None
    return _plain(out)


class _Flattener:
    """shfmt's JSON tree as the same flat shape as `Syntax.shape()`: for each pipeline its connector, then for each
    simple command its words' byte spans and its redirections."""

    def __init__(self, data: bytes, out: list[object]) -> None:
        self.data = data
        self.out = out

    def file(self, tree: dict[str, Any]) -> None:
        for index, stmt in enumerate(tree.get("Stmts") or []):
            self.statement(stmt, ";" if index else "")

    def statement(self, stmt: dict[str, Any], connector: str) -> None:
        if stmt.get("Negated") or stmt.get("Background") or stmt.get("Coprocess") or stmt.get("Disown"):
            raise NotUnderstood("the second parser (shfmt) sees a negated, background or coprocess command")
        cmd = stmt.get("Cmd") or {}
        kind = cmd.get("Type")
        if kind == "BinaryCmd" and cmd.get("Op") in ("&&", "||"):
            if stmt.get("Redirs"):
                raise NotUnderstood("the second parser (shfmt) sees a redirected list")
            self.statement(cmd["X"], connector)
            self.statement(cmd["Y"], cmd["Op"])
        elif kind == "BinaryCmd" and cmd.get("Op") in ("|", "|&"):
            if stmt.get("Redirs"):
                raise NotUnderstood("the second parser (shfmt) sees a redirected pipeline")
            self.out.append(connector)
            self.pipe(cmd)
        elif kind == "CallExpr":
            self.out.append(connector)
            self.call(stmt)
        else:
            raise NotUnderstood(f"the second parser (shfmt) sees a {kind or 'statement'} agentui does not follow")

    def pipe(self, cmd: dict[str, Any]) -> None:
        for index, side in enumerate((cmd["X"], cmd["Y"])):
            if index:
                self.out.append(cmd["Op"])
            inner = side.get("Cmd") or {}
            if inner.get("Type") == "BinaryCmd" and inner.get("Op") in ("|", "|&") and not side.get("Redirs"):
                self.pipe(inner)
            elif inner.get("Type") == "CallExpr" and not (side.get("Negated") or side.get("Background")):
                self.call(side)
            else:
                raise NotUnderstood("the second parser (shfmt) sees a pipeline of something other than commands")

    def call(self, stmt: dict[str, Any]) -> None:
        cmd = stmt["Cmd"]
        if cmd.get("Assigns"):
            raise NotUnderstood("the second parser (shfmt) sees an assignment")
        words = []
        for word in cmd.get("Args") or []:
            self.word_parts(word.get("Parts") or [])
            words.append((word["Pos"]["Offset"], word["End"]["Offset"]))
        redirects = []
        for redirect in stmt.get("Redirs") or []:
            if redirect.get("Hdoc") or redirect.get("Op") in ("<<", "<<-", "<<<"):
                raise NotUnderstood("the second parser (shfmt) sees a here-document")
            target = redirect.get("Word") or {}
            self.word_parts(target.get("Parts") or [])
            text = self.data[target["Pos"]["Offset"] : target["End"]["Offset"]].decode()
            fd = (redirect.get("N") or {}).get("Value") or ""
            redirects.append((fd, redirect.get("Op"), text))
        self.out.append((tuple(words), tuple(redirects)))

    def word_parts(self, parts: list[dict[str, Any]]) -> None:
        for part in parts:
            kind = part.get("Type")
            if kind not in _WORD_PARTS or (kind in ("SglQuoted", "DblQuoted") and part.get("Dollar") is True):
                raise NotUnderstood(f"the second parser (shfmt) sees {kind or 'a word part'} in a word")
            if kind == "DblQuoted":
                self.word_parts(part.get("Parts") or [])
            elif kind == "ParamExp" and any(part.get(key) for key in _PARAM_OPERATORS):
                raise NotUnderstood("the second parser (shfmt) sees an expansion with an operator")
