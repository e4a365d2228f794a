"""Permission rules in Claude Code's syntax: `Tool`, `Bash(npm run test:*)`, `Bash(git * main)`, `Read(./secrets/**)`,
`Edit(src/**)`, `Read(~/.ssh/**)`, `Read(//etc/**)`, `mcp__github__*`.

Bash specifiers match a whole simple command: `*` is any text, a trailing ` *` or `:*` also matches nothing (so
`Bash(ls *)` covers `ls` and `ls -la` but not `lsof`). Path specifiers use gitignore semantics below a root:
`//` is the filesystem root, `~/` the home directory, `/` the settings file's project, anything else the project.
Read rules also cover Grep and Glob; Edit rules also cover Write. WebFetch rules name a host:
`WebFetch(domain:example.com)`, or `WebFetch(domain:*.example.com)` for its subdomains.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pathspec
import pathspec.util

from agentui.core.errors import AgentuiError
from agentui.core.workspace import relative_within

Behavior = Literal["allow", "deny", "ask"]

READ_FAMILY = frozenset({"Read", "Grep", "Glob", "LS", "NotebookRead", "LSP"})
EDIT_FAMILY = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
PATH_TOOLS = READ_FAMILY | EDIT_FAMILY
RENAMED = {"Task": "Agent", "BashOutput": "TaskOutput", "KillShell": "TaskStop", "KillBash": "TaskStop"}
"""Claude Code 2.0's tool names and their 2.1 names: a rule for either covers the tool."""

_RULE = re.compile(r"^\s*([A-Za-z0-9_\-.*]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)


class RuleError(AgentuiError, ValueError):
    """A rule string that cannot be understood."""


@dataclass(frozen=True)
class PathPattern:
    root: Path
    pattern: str
    spec: pathspec.PathSpec[pathspec.RegexPattern] = field(compare=False, repr=False)

    @property
    def everything(self) -> bool:
        """The pattern covers the root and all below it."""
        return self.pattern in ("", "**", "/**")

    def matches(self, path: Path | str) -> bool:
        relative = relative_within(path, self.root)
        if relative is None:
            return False
        if self.everything:
            return True
        # The patterns directly: `relative` is already a normalised POSIX path, and PathSpec.match_file would
        # normalise it again.
        return relative != "" and pathspec.util.match_file(self.spec.patterns, relative)


@dataclass(frozen=True)
class Rule:
    behavior: Behavior
    tool: str
    specifier: str | None
    source: str
    """Where it came from: managed, user, project, local, cli, session."""
    text: str
    command: re.Pattern[str] | None = field(default=None, compare=False, repr=False)
    path: PathPattern | None = field(default=None, compare=False, repr=False)
    domain: str | None = None
    """A WebFetch rule's host, lowercase (`*.example.com` covers the subdomains of example.com)."""

    def covers_tool(self, name: str) -> bool:
        if self.tool == name:
            return True
        if self.tool == "Read" and name in READ_FAMILY:
            return True
        if self.tool == "Edit" and name in EDIT_FAMILY:
            return True
        if self.tool.startswith(("mcp__", "openapi__")):
            if self.tool.endswith("__*"):  # mcp__github__*: every tool of the server (openapi__pets__*: of the API)
                return name.startswith(self.tool[:-1])
            if self.tool.count("__") == 1:  # mcp__github: the same
                return name.startswith(self.tool + "__")
        return False

    def covers_command(self, text: str) -> bool:
        """A Bash rule against one simple command's text; a bare `Bash` rule covers every command."""
        return self.command is None or self.command.fullmatch(text) is not None

    def covers_path(self, path: Path | str) -> bool:
        return self.path is None or self.path.matches(path)

    def covers_domain(self, host: str) -> bool:
        """A WebFetch rule against a URL's host (lowercase); a bare `WebFetch` rule covers every host."""
        if self.domain is None:
            return True
        if self.domain.startswith("*."):
            return host.endswith(self.domain[1:])
        return host == self.domain


def parse_rule(
    text: str, behavior: Behavior, source: str, *, project_root: Path, home: Path, settings_root: Path | None = None
) -> Rule:
    match = _RULE.match(text)
    if not match:
        raise RuleError(f"{text!r} is not a permission rule (expected Tool or Tool(specifier))")
    tool, specifier = match.group(1), match.group(2)
    tool = RENAMED.get(tool, tool)
    if specifier is not None:
        specifier = specifier.strip()
        if specifier in ("", "*"):
            specifier = None  # Bash() and Bash(*) mean every command
    command = path = domain = None
    if specifier is not None:
        if tool == "Bash":
            command = command_pattern(specifier)
        elif tool in PATH_TOOLS:
            path = path_pattern(specifier, project_root=project_root, home=home, settings_root=settings_root)
        elif tool == "WebFetch":
            domain = domain_pattern(specifier, text)
    return Rule(behavior, tool, specifier, source, text.strip(), command, path, domain)


def domain_pattern(specifier: str, text: str) -> str:
    name = specifier.removeprefix("domain:").strip().lower().rstrip(".")
    if not specifier.startswith("domain:") or not name or "/" in name or " " in name:
        raise RuleError(f"{text!r}: a WebFetch rule names a host, as in WebFetch(domain:example.com)")
    return name


def command_pattern(specifier: str) -> re.Pattern[str]:
    spec = " ".join(specifier.split())
    optional_tail = spec.endswith((":*", " *"))
    if optional_tail:
        spec = spec[:-2].rstrip()
    body = ".*".join(re.escape(piece) for piece in spec.split("*"))
    if optional_tail:
        body += r"(?: .*)?"
    return re.compile(body, re.DOTALL)


def path_pattern(specifier: str, *, project_root: Path, home: Path, settings_root: Path | None) -> PathPattern:
    if specifier.startswith("//"):
        root, pattern = Path("/"), specifier[2:]
    elif specifier == "~" or specifier.startswith("~/"):
        root, pattern = home, specifier[2:]
    elif specifier.startswith("/"):
        root, pattern = settings_root or project_root, specifier[1:]
    elif specifier.startswith("./"):
        root, pattern = project_root, specifier[2:]
    else:
        root, pattern = project_root, specifier
    spec = pathspec.PathSpec.from_lines("gitignore", [pattern]) if pattern else pathspec.PathSpec([])
    return PathPattern(root, pattern, spec)
