"""The permission engine: every tool call checked against rules, the mode and the project's boundaries.

Order, for every call: deny rules (from any source, they always win), then what must be asked whatever else is
said (a command that cannot be parsed, a protected file, a redirection to an unknown target), then ask rules,
then allow rules, read-only commands and the mode, and otherwise the person is asked. Paths are resolved before
they are matched: a deny applies if the path as written or its real target matches, an allow only if both do.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentui.core.events import PermissionDecision, PermissionMode
from agentui.core.messages import ToolUseBlock
from agentui.core.permissions.gate import Verdict
from agentui.core.permissions.protected import protected_reason
from agentui.core.permissions.readonly import HARMLESS_TARGETS, git_config_runs_programs, read_only_paths
from agentui.core.permissions.rules import READ_FAMILY, Behavior, Rule, parse_rule
from agentui.core.permissions.shell import SimpleCommand, analyze
from agentui.core.permissions.web import is_private_host, url_host
from agentui.core.tools.base import Tool, ToolArgs
from agentui.core.workspace import Workspace, relative_within

if TYPE_CHECKING:
    from agentui.core.sandbox import Sandbox

Mode = PermissionMode
MODES: tuple[Mode, ...] = ("default", "acceptEdits", "plan", "bypassPermissions")

_SUBCOMMAND_PROGRAMS = {
    "git",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "npx",
    "cargo",
    "go",
    "docker",
    "kubectl",
    "pip",
    "pip3",
    "uv",
    "poetry",
    "make",
    "dotnet",
    "gradle",
    "mvn",
    "brew",
    "gh",
    "terraform",
    "helm",
    "rustup",
    "deno",
    "composer",
    "bundle",
    "rake",
    "mix",
    "flutter",
    "swift",
    "pytest",
    "tox",
    "nox",
    "just",
}


PERSON_TOOLS = frozenset({"AskUserQuestion", "ExitPlanMode"})
"""Tools that put something to the person: the permission question shows it, and the answer is the result."""


class PermissionEngine:
    """Implements the dispatcher's PermissionGate."""

    def __init__(
        self,
        workspace: Workspace,
        rules: Iterable[Rule] = (),
        mode: Mode = "default",
        *,
        home: Path | None = None,
        config_dirs: Sequence[Path] = (),
        persist: Callable[[str], object] | None = None,
    ) -> None:
        self.workspace = workspace
        self.mode: Mode = mode
        self.home = home or Path.home()
        self._rules = list(rules)
        self._candidates: dict[tuple[Behavior, str], _Candidates] = {}
        """Rules by behaviour and tool name, so a call looks only at the rules that could apply to it."""
        self._config_dirs = tuple(config_dirs)
        self._persist = persist
        self.sandbox: Sandbox | None = None
        """Set by the project when its settings turn the sandbox on."""
        workspace.read_denied = self.read_denied

    @property
    def rules(self) -> list[Rule]:
        return list(self._rules)

    def add_rule(self, text: str, behavior: Behavior, source: str) -> Rule:
        rule = parse_rule(text, behavior, source, project_root=self.workspace.root, home=self.home)
        self._rules.append(rule)
        self._candidates.clear()
        return rule

    def remove_rule(self, rule: Rule) -> None:
        """Take back a rule added for a while (a custom command's `allowed-tools`, for its run)."""
        if rule in self._rules:
            self._rules.remove(rule)
            self._candidates.clear()

    # The gate

    def check(self, tool: Tool[Any], args: ToolArgs, call: ToolUseBlock) -> Verdict:
        if tool.name == "Bash":
            command = str(getattr(args, "command", ""))
            if self.sandbox is None or not self.sandbox.enabled:
                return self._bash(command)
            return self._sandboxed_bash(command, bool(getattr(args, "dangerouslyDisableSandbox", False)))
        if tool.name in PERSON_TOOLS:
            return self._person_tool(tool.name)
        if tool.name == "WebFetch":
            return self.web_fetch(str(getattr(args, "url", "")))
        if tool.name == "WebSearch" and tool.offered:  # (it changes nothing, but the query leaves the machine)
            return self._asked_tool(tool.name, f"WebSearch wants to search the web for {getattr(args, 'query', '')!r}")
        raw = tool.permission_path(args)
        if raw is not None:
            return self._path_tool(tool, raw)
        return self._plain_tool(tool)

    def remember(self, tool: Tool[Any], args: ToolArgs, call: ToolUseBlock, decision: PermissionDecision) -> None:
        if decision.behavior == "allow" and decision.mode is not None:
            self.mode = decision.mode  # (an approved plan: the edits come next)
        if decision.behavior != "allow" or decision.scope == "once":
            return
        lasting = decision.scope == "always" and self._persist is not None
        for text in self.check(tool, args, call).suggestions:
            self.add_rule(text, "allow", "local" if lasting else "session")
            if lasting:
                assert self._persist is not None
                self._persist(text)

    def read_denied(self, path: Path) -> bool:
        """A deny rule forbids reading this file (searches leave it out)."""
        real = Path(os.path.realpath(path))
        return any(
            rule.behavior == "deny" and rule.tool in READ_FAMILY and (rule.covers_path(path) or rule.covers_path(real))
            for rule in self._rules
        )

    # Rule lookup

    def _find(
        self,
        behavior: Behavior,
        tool: str,
        *,
        command: str | None = None,
        path: Path | None = None,
        domain: str | None = None,
        specific: bool = False,
        bare: bool = False,
    ) -> Rule | None:
        """The first rule of `behavior` covering the tool (and the command, path or host); `specific` wants a rule
        with a specifier, `bare` one without."""
        where = None if path is None else str(path)  # once, not once per rule
        candidates = self._candidates.get((behavior, tool))
        if candidates is None:
            candidates = self._candidates[(behavior, tool)] = _Candidates.of(
                [rule for rule in self._rules if rule.behavior == behavior and rule.covers_tool(tool)]
            )
        if (
            command is not None
            and candidates.any_command is not None
            and candidates.any_command.fullmatch(command) is None
        ):
            return None
        if where is not None and candidates.any_path is not None and not _any_path_matches(candidates.any_path, where):
            return None
        for rule in candidates.rules:
            if (specific and rule.specifier is None) or (bare and rule.specifier is not None):
                continue
            if command is not None and (rule.path is not None or not rule.covers_command(command)):
                continue
            if where is not None and (rule.command is not None or not rule.covers_path(where)):
                continue
            if domain is not None and not rule.covers_domain(domain):
                continue
            return rule
        return None

    # Tools without paths

    def _plain_tool(self, tool: Tool[Any]) -> Verdict:
        name = tool.name
        if rule := self._find("deny", name):
            return Verdict("deny", f"the rule {rule.text} denies it")
        if rule := self._find("ask", name):
            return Verdict("ask", f"the rule {rule.text} asks for it", suggestions=(name,))
        if self._find("allow", name) or tool.kind == "read" or self.mode == "bypassPermissions":
            return Verdict("allow", "allowed")
        if self.mode == "plan":
            return Verdict("deny", "plan mode allows only tools that change nothing")
        return Verdict(
            "ask", f"{name} can {'modify files' if tool.kind == 'write' else 'run commands'}", suggestions=(name,)
        )

    def _person_tool(self, name: str) -> Verdict:
        """The tools whose question is the call itself: a deny rule refuses them, and otherwise the person answers
        (a question always; a plan unless a rule or bypassPermissions approves it)."""
        if rule := self._find("deny", name):
            return Verdict("deny", f"the rule {rule.text} denies it")
        if name == "AskUserQuestion":
            return Verdict("ask", "the model has questions for you", hard=True)
        if self._find("allow", name) or self.mode == "bypassPermissions":
            return Verdict("allow", "allowed")
        return Verdict("ask", "the plan needs the user's approval before anything is changed")

    # The web

    def web_fetch(self, url: str) -> Verdict:
        """May WebFetch get `url`? Rules name its host; a private or loopback address is reached only when a rule
        names it (bypassPermissions and a bare `WebFetch` rule are not enough). A redirect's target is checked the
        same way."""
        host = url_host(url)
        if host is None:
            return Verdict("deny", f"{url} is not an http or https URL with a host")
        if rule := self._find("deny", "WebFetch", domain=host):
            return Verdict("deny", f"the rule {rule.text} denies {host}")
        suggestion = (f"WebFetch(domain:{host})",)
        if rule := self._find("ask", "WebFetch", domain=host):
            return Verdict("ask", f"the rule {rule.text} asks for {host}", suggestions=suggestion)
        if self.names_host("WebFetch", host):
            return Verdict("allow", f"a rule allows {host}")
        if is_private_host(host):
            return Verdict(
                "deny",
                f"{host} is a private or loopback address, which WebFetch reaches only when a rule names it: "
                f"WebFetch(domain:{host})",
            )
        if self._find("allow", "WebFetch", domain=host) or self.mode == "bypassPermissions":
            return Verdict("allow", "allowed")
        return Verdict("ask", f"WebFetch wants to fetch a page from {host}", suggestions=suggestion)

    def _asked_tool(self, name: str, reason: str) -> Verdict:
        """A tool that asks unless a rule or bypassPermissions lets it run (plan mode too: it changes nothing)."""
        if rule := self._find("deny", name):
            return Verdict("deny", f"the rule {rule.text} denies it")
        if rule := self._find("ask", name):
            return Verdict("ask", f"the rule {rule.text} asks for it", suggestions=(name,))
        if self._find("allow", name) or self.mode == "bypassPermissions":
            return Verdict("allow", "allowed")
        return Verdict("ask", reason, suggestions=(name,))

    def names_host(self, tool: str, host: str) -> bool:
        """An allow rule names this host itself (not a bare rule for every host), and no deny rule covers it."""
        return self._find("deny", tool, domain=host) is None and (
            self._find("allow", tool, domain=host, specific=True) is not None
        )

    # Tools with a path

    def _path_tool(self, tool: Tool[Any], raw: str) -> Verdict:
        ws, name = self.workspace, tool.name
        lexical = ws.absolute(raw)
        real = Path(os.path.realpath(lexical))
        both = (lexical, real) if lexical != real else (real,)
        for path in both:
            if rule := self._find("deny", name, path=path):
                return Verdict("deny", f"the rule {rule.text} denies {ws.display(real)}", path=real)
        writes = tool.kind == "write"
        if writes and self.mode == "plan":
            return Verdict("deny", "plan mode does not change files", path=real)
        if writes and (
            reason := protected_reason(lexical, self._config_dirs) or protected_reason(real, self._config_dirs)
        ):
            return Verdict(
                "ask",
                f"{reason}; such files are never changed without asking",
                path=real,
                hard=True,
                suggestions=(_path_rule("Edit", real),),
            )
        for path in both:
            if rule := self._find("ask", name, path=path):
                return Verdict("ask", f"the rule {rule.text} asks for {ws.display(real)}", path=real)
        if all(self._find("allow", name, path=path, specific=True) for path in both):
            return Verdict("allow", "an allow rule covers it", path=real)
        inside = ws.contains(real)
        if inside and (
            not writes or self.mode in ("acceptEdits", "bypassPermissions") or self._find("allow", name, bare=True)
        ):
            return Verdict("allow", "inside the project", path=real)
        if not inside and self.mode == "bypassPermissions":
            return Verdict("allow", "bypassPermissions mode", path=real)
        family = "Read" if name in READ_FAMILY else "Edit"
        shown = ws.display(real)
        if inside:
            verb = "modify" if os.path.lexists(real) else "create"
            return Verdict("ask", f"{name} wants to {verb} {shown}", path=real, suggestions=(family,))
        target = real if real.is_dir() else real.parent
        return Verdict(
            "ask", f"{shown} is outside the project", path=real, suggestions=(_path_rule(family, target, tree=True),)
        )

    # Bash

    def _sandboxed_bash(self, command: str, disable: bool) -> Verdict:
        """With the sandbox on: a command that will run inside it needs no question unless a rule or something that
        cannot be checked asks; one that asks to run outside always asks; and where the sandbox cannot run, nothing
        runs unsandboxed without a question (bypass mode included)."""
        sandbox = self.sandbox
        assert sandbox is not None
        if not sandbox.active:
            return self._bash(command, mode="default" if self.mode == "bypassPermissions" else self.mode)
        verdict = self._bash(command)
        if verdict.behavior == "deny":
            return verdict
        if disable and sandbox.config.allow_unsandboxed:
            if self.mode == "plan":
                return Verdict("deny", "plan mode does not run commands outside the sandbox")
            why = f"; also, {verdict.reason[0].lower()}{verdict.reason[1:]}" if verdict.behavior == "ask" else ""
            return Verdict("ask", f"the command asks to run outside the sandbox{why}", hard=True)
        if (
            verdict.behavior == "ask"
            and sandbox.config.auto_allow
            and not (verdict.hard or verdict.by_rule)
            and sandbox.runs_inside(command)
        ):
            return Verdict("allow", "it runs in the sandbox")
        return verdict

    def _bash(self, command: str, *, mode: Mode | None = None) -> Verdict:
        mode = mode or self.mode
        ws = self.workspace
        analysis = analyze(command)
        cwd = ws.shell_cwd or ws.root
        checked = [*analysis.commands, *analysis.hidden]
        resolved: dict[str, tuple[Path, Path]] = {}
        directories: dict[str, str] = {}

        def resolve(target: str) -> tuple[Path, Path]:
            # Each path is looked at up to three times below, and a long command names many files in the same
            # few directories: realpath costs a system call per component, so each directory is resolved once.
            found = resolved.get(target)
            if found is None:
                found = resolved[target] = self._resolve(target, cwd, directories)
            return found

        for sub in checked:
            if rule := self._command_rule("deny", sub):
                return Verdict("deny", f"the rule {rule.text} denies `{sub.text}`")
        for redirect in analysis.redirects:
            if redirect.target is None:
                continue
            lexical, real = resolve(redirect.target)
            tool = "Edit" if redirect.writes else "Read"
            for path in (lexical, real):
                if rule := self._find("deny", tool, path=path):
                    return Verdict(
                        "deny", f"the rule {rule.text} denies {'writing' if redirect.writes else 'reading'} {path}"
                    )
        looking = self._looking(analysis.commands, cwd)
        reads = [(sub, target) for sub in analysis.commands if (paths := looking[id(sub)]) for target in paths]
        for sub, target in reads:
            for match in _expanded(target, cwd):
                for path in resolve(match):
                    if rule := self._find("deny", "Read", path=path):
                        return Verdict("deny", f"the rule {rule.text} denies `{sub.text}` reading {match}")
        for sub in analysis.commands:
            for directory in _recursive_reach(sub):
                if rule := self._deny_within(resolve(directory)[1]):
                    return Verdict(
                        "ask",
                        f"`{sub.text}` reads everything under {directory}, which holds files the rule {rule.text} "
                        "denies",
                        hard=True,
                    )

        if analysis.problem:
            if mode == "plan":
                return Verdict("deny", f"plan mode runs only read-only commands, and {analysis.problem}")
            return Verdict("ask", f"{analysis.problem}, so it cannot be checked", hard=True)
        for sub in checked:
            if rule := self._command_rule("ask", sub):
                return Verdict(
                    "ask", f"the rule {rule.text} asks for `{sub.text}`", suggestions=(_bash_rule(sub),), by_rule=True
                )

        needs: list[str] = []
        suggestions: list[str] = []
        hard = by_rule = False
        for sub in analysis.commands:
            if sub.name in ("cd", "pushd") and mode != "bypassPermissions" and not self._stays_inside(sub, cwd):
                # later relative paths would be resolved from somewhere else: `cd /etc && cat passwd`
                needs.append(f"`{sub.text}` leaves the project")
                continue
            if mode != "plan" and self._command_rule("allow", sub, with_assignments=True):
                continue  # (plan mode runs read-only commands only, whatever the rules allow)
            paths = looking[id(sub)]
            if paths is not None:
                paths = [match for target in paths for match in _expanded(target, cwd)]
                outside = [t for t in paths if not ws.contains(resolve(t)[1])]
                asked = [t for t in paths if any(self._find("ask", "Read", path=p) for p in resolve(t))]
                if not outside and not asked:
                    continue
                if mode == "bypassPermissions" and not asked:
                    continue
                by_rule = by_rule or bool(asked)
                needs.append(f"`{sub.text}` reads {', '.join(outside + asked)}")
            elif mode == "bypassPermissions":
                continue
            else:
                needs.append(f"`{sub.text}`")
            suggestions.append(_bash_rule(sub))
        for redirect in analysis.redirects:
            if redirect.target is None:
                needs.append("a redirection to a target that depends on an expansion")
                hard = True
                continue
            if redirect.target in HARMLESS_TARGETS:
                continue
            lexical, real = resolve(redirect.target)
            if redirect.writes:
                verdict = self._write_target(lexical, real, mode)
                if verdict is not None:
                    needs.append(verdict[0])
                    hard = hard or verdict[1]
                    suggestions.append(_path_rule("Edit", real))
            elif (
                not ws.contains(real)
                and mode != "bypassPermissions"
                and not all(self._find("allow", "Read", path=p, specific=True) for p in (lexical, real))
            ):
                needs.append(f"reads {real}")
                suggestions.append(_path_rule("Read", real))
        if not needs:
            return Verdict("allow", "every part of the command is allowed")
        if mode == "plan":
            return Verdict("deny", "plan mode runs only read-only commands: " + "; ".join(needs))
        return Verdict(
            "ask",
            "Bash wants to run " + "; ".join(needs),
            hard=hard,
            suggestions=tuple(dict.fromkeys(suggestions)),
            by_rule=by_rule,
        )

    def _looking(self, commands: list[SimpleCommand], cwd: Path) -> dict[int, list[str] | None]:
        """Each command's paths if it only looks (`read_only_paths`); git only where the repository's own config
        makes it run nothing."""
        found: dict[int, list[str] | None] = {}
        git_runs: bool | None = None
        for sub in commands:
            paths = read_only_paths(sub)
            if paths is not None and sub.name == "git":
                git_runs = git_config_runs_programs(cwd) if git_runs is None else git_runs
                paths = None if git_runs else paths
            found[id(sub)] = paths
        return found

    def _deny_within(self, directory: Path) -> Rule | None:
        """A deny rule on reading that could cover something below `directory`."""
        for rule in self._rules:
            if rule.behavior == "deny" and rule.tool in READ_FAMILY and rule.path is not None:
                root = rule.path.root
                if relative_within(root, directory) is not None or relative_within(directory, root) is not None:
                    return rule
        return None

    def _stays_inside(self, sub: SimpleCommand, cwd: Path) -> bool:
        """A `cd` into the project keeps path checks sound (paths are resolved from the root, which only makes
        them look further out than they are); one that leaves it, or goes who knows where, does not."""
        targets = [word for word in sub.words if word is None or not word.startswith("-")]
        if not targets or targets[0] is None:
            return False  # `cd` alone goes home; `cd $X` anywhere
        return self.workspace.contains(self._resolve(targets[0], cwd)[1])

    def _resolve(self, target: str, cwd: Path, directories: dict[str, str] | None = None) -> tuple[Path, Path]:
        """A path from a command: as written (made absolute, `..` folded) and with links resolved.
        `directories` remembers resolved directories for the rest of one check."""
        if target == "~" or target.startswith("~/"):
            target = str(self.home) + target[1:]
        if not target.startswith("/"):
            target = os.path.join(cwd, target)
        lexical = os.path.normpath(target)
        if directories is None or lexical == "/":
            return Path(lexical), Path(os.path.realpath(lexical))
        parent, name = os.path.split(lexical)
        real_parent = directories.get(parent)
        if real_parent is None:
            real_parent = directories[parent] = os.path.realpath(parent)
        real = os.path.join(real_parent, name)
        if os.path.islink(real):
            real = os.path.realpath(real)
        return Path(lexical), Path(real)

    def _command_rule(self, behavior: Behavior, sub: SimpleCommand, *, with_assignments: bool = False) -> Rule | None:
        texts = [sub.matching_text(with_assignments=True)]
        if not with_assignments and sub.assignments:  # deny and ask: also without its VAR=value prefix
            texts.append(sub.matching_text())
        if behavior != "allow" and "/" in sub.name:  # `/usr/bin/touch` is touch to a deny rule (never to an allow)
            texts.append(replace(sub, name=os.path.basename(sub.name)).matching_text())
        for text in texts:
            if rule := self._find(behavior, "Bash", command=text):
                return rule
        return None

    def _write_target(self, lexical: Path, real: Path, mode: Mode) -> tuple[str, bool] | None:
        """Why a redirection may not write this file without asking (and whether that is a hard ask), or None."""
        if reason := protected_reason(lexical, self._config_dirs) or protected_reason(real, self._config_dirs):
            return f"a write to {real} ({reason})", True
        if all(self._find("allow", "Edit", path=p, specific=True) for p in (lexical, real)):
            return None
        inside = self.workspace.contains(real)
        if inside and (mode in ("acceptEdits", "bypassPermissions") or self._find("allow", "Edit", bare=True)):
            return None
        if not inside and mode == "bypassPermissions":
            return None
        return f"a write to {self.workspace.display(real)}", False


@dataclass(frozen=True)
class _Candidates:
    """The rules of one behaviour that could apply to one tool, and one pattern for all their commands, so that a
    command no rule covers (most of them) costs one regular-expression match instead of one per rule."""

    rules: list[Rule]
    any_command: re.Pattern[str] | None
    """Matches whatever any of the rules' command patterns matches; None if some rule covers every command."""

    any_path: dict[Path, re.Pattern[str] | None] | None
    """The same for paths: by root, one pattern for the paths below it (None: all of them)."""

    @classmethod
    def of(cls, rules: list[Rule]) -> _Candidates:
        if any(rule.command is None and rule.path is None for rule in rules):
            return cls(rules, None, None)  # a bare rule covers everything: nothing to rule out early
        commands = [f"(?:{rule.command.pattern})" for rule in rules if rule.command is not None]
        return cls(rules, re.compile("|".join(commands) or "(?!)", re.DOTALL), _path_gate(rules))


def _path_gate(rules: list[Rule]) -> dict[Path, re.Pattern[str] | None] | None:
    """By root, one pattern for the paths below it that any of `rules` covers (None: all of them)."""
    by_root: dict[Path, list[str] | None] = {}
    for rule in rules:
        if rule.path is None:
            continue
        if rule.path.everything:
            by_root[rule.path.root] = None
            continue
        patterns = rule.path.spec.patterns
        if any(pattern.include is not True or pattern.regex is None for pattern in patterns):
            return None  # a negated pattern: leave it to the rule itself
        if (found := by_root.setdefault(rule.path.root, [])) is not None:
            found += [f"(?:{pattern.regex.pattern})" for pattern in patterns if pattern.regex is not None]
    return {root: None if found is None else re.compile("|".join(found) or "(?!)") for root, found in by_root.items()}


def _any_path_matches(gate: dict[Path, re.Pattern[str] | None], where: str) -> bool:
    """Whether any path rule could cover `where`, as PathPattern.matches would say for each (a quick no)."""
    for root, pattern in gate.items():
        relative = relative_within(where, root)
        if relative is not None and (pattern is None or (relative and pattern.search(relative) is not None)):
            return True
    return False


_GLOB_CHARS = re.compile(r"[*?\[]")
MAX_GLOB_MATCHES = 200


def _expanded(target: str, cwd: Path) -> list[str]:
    """The files a word would name once bash expands it as a glob (and the word itself, which bash keeps when
    nothing matches), so rules see `.env` in `cat .en?` and where `link*/x` leads."""
    if not _GLOB_CHARS.search(target):
        return [target]
    matches = []
    for match in glob.iglob(os.path.expanduser(target), root_dir=cwd):
        matches.append(match)
        if len(matches) >= MAX_GLOB_MATCHES:
            break
    return [*matches, target]


_RECURSIVE_GREP = re.compile(r"^-[a-zA-Z]*[rR]")


def _recursive_reach(sub: SimpleCommand) -> list[str]:
    """The directories a command reads every file under (grep -r, rg, diff -r): a deny rule inside one of them
    cannot be checked file by file."""
    name = sub.name.rsplit("/", 1)[-1]
    words = [w for w in sub.words if w is not None]
    recursive = name == "rg" or (
        name in ("grep", "egrep", "fgrep", "diff")
        and any(w in ("--recursive", "--dereference-recursive") or _RECURSIVE_GREP.match(w) for w in words)
    )
    if not recursive:
        return []
    operands = [w for w in words if not w.startswith("-")]
    return operands or ["."]


def _bash_rule(sub: SimpleCommand) -> str:
    """The rule a "yes, and don't ask again" answer adds: a subcommand prefix for tools like git and npm, else the
    exact command."""
    first = sub.words[0] if sub.words else None
    if sub.name in _SUBCOMMAND_PROGRAMS and first and not first.startswith("-") and not sub.assignments:
        return f"Bash({sub.name} {first}:*)"
    return f"Bash({sub.full_text})"


def _path_rule(family: str, path: Path, *, tree: bool = False) -> str:
    absolute = "//" + str(path).lstrip("/")
    return f"{family}({absolute}/**)" if tree else f"{family}({absolute})"
