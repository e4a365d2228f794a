"""The permission engine: every tool call checked against rules, the mode and the project's boundaries.

Order, for every call: deny rules (from any source, they always win), then what must be asked whatever else is
said (a command that cannot be parsed, a protected file, a redirection to an unknown target), then ask rules,
then allow rules, read-only commands and the mode, and otherwise the person is asked. Paths are resolved before
they are matched: a deny applies if the path as written or its real target matches, an allow only if both do.
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from agentui.core.events import PermissionDecision, PermissionMode
from agentui.core.messages import ToolUseBlock
from agentui.core.safety.permissions.gate import CheckedTool, Verdict
from agentui.core.safety.permissions.protected import protected_reason
from agentui.core.safety.permissions.public_files import public_file
from agentui.core.safety.permissions.rules import READ_FAMILY, Behavior, Rule, parse_rule
from agentui.core.safety.permissions.shell import SimpleCommand
from agentui.core.safety.permissions.web import is_private_host, url_host
from agentui.core.workspace import Workspace, is_within, relative_within

if TYPE_CHECKING:
    from pydantic import BaseModel

    from agentui.core.change_queue import ChangeQueue
    from agentui.core.safety.denied_files import DeniedFiles
    from agentui.core.safety.permissions.git_repository import GitRepositories
    from agentui.core.safety.sandbox import Sandbox

Mode = PermissionMode
MODES: tuple[Mode, ...] = ("default", "acceptEdits", "plan", "bypassPermissions")

PERSON_TOOLS = frozenset({"AskUserQuestion", "ExitPlanMode"})
QUEUED_TOOLS = frozenset({"Edit", "Write"})
"""The tools whose changes plan mode's change queue holds (a notebook's cells are refused, as plan mode does)."""
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
        self.on_mode: dict[str, Callable[[Mode], object]] = {}
        """Told of each change of mode, by whoever watches it (`opusplan` switches the model with it)."""
        self._mode: Mode = mode
        self.home = home or Path.home()
        self._rules = list(rules)
        self._candidates: dict[tuple[Behavior, str], _Candidates] = {}
        """Rules by behaviour and tool name, so a call looks only at the rules that could apply to it."""
        self._config_dirs = tuple(config_dirs)
        self._persist = persist
        self.sandbox: Sandbox | None = None
        """Set by the project when its settings turn the sandbox on."""
        self.held_to_ask: set[str] = set()
        """Tool-name prefixes (an MCP server's `mcp__<server>__`) whose tools bypassPermissions does not let run
        without a question: an SDK program pinned the server to the default mode (tighten-only)."""
        self.guard_available: Callable[[], bool] = lambda: False
        """Whether Bash commands run outside the sandbox are guarded (agentui's and the person's configuration
        read-only); set by the project. Where they are not, bypassPermissions asks for what it cannot understand."""
        self.bash_environ: Mapping[str, str] = {**_default_bash_environ(), "HOME": str(self.home)}
        """The environment Bash commands run with: their variables are expanded from it."""
        self.credentials: Callable[[], Sequence[Path]] = lambda: ()
        """The credential files and directories the environment names (resolved); set by the project. Kept from the
        file tools' reach wherever they are, the project and its added directories included."""
        self.kept_out: Callable[[Path], Path | None] = lambda path: None
        """What of the person's the sandbox hides (keys, tokens, histories) that a (resolved) path is in, where a
        working directory holds it (`--add-dir ~`); set by the project. Kept from the file tools' reach as well."""
        self.denied_files: Callable[[], DeniedFiles] | None = None
        """What the deny rules' patterns match now (the guard's enumeration); set by the project."""
        self._inode_cache: tuple[float, dict[tuple[int, int], Rule], tuple[Path, ...]] | None = None
        self._inodes_cut: Rule | None = None
        """A deny rule whose directory held more files than were listed for `_denied_by_inode`."""
        self.changes: ChangeQueue | None = None
        """Plan mode's change queue; set by the project. While it is on, a change in plan mode is queued where
        acceptEdits would make it unasked, and only the person applies the queue (with the plan)."""
        workspace.read_denied = self.read_denied

    @property
    def mode(self) -> Mode:
        return self._mode

    @mode.setter
    def mode(self, mode: Mode) -> None:
        changed, self._mode = mode != self._mode, mode
        for watcher in list(self.on_mode.values()) if changed else ():
            watcher(mode)

    @property
    def rules(self) -> list[Rule]:
        return list(self._rules)

    @property
    def config_dirs(self) -> tuple[Path, ...]:
        return self._config_dirs

    @cached_property
    def _git_history(self) -> dict[tuple[str, ...], object]:
        return {}

    def repositories(self) -> GitRepositories:
        """git's answers about repositories, for one check."""
        from agentui.core.safety.permissions.git_repository import GitRepositories, read_git

        return GitRepositories(read_git, lambda: self.workspace.directories, self._git_history)

    def guarded(self) -> bool:
        """Bash commands outside the sandbox run under the guard here."""
        return self.guard_available()

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

    def withholds(self, name: str) -> bool:
        """A deny rule names the whole tool (`Read`, `mcp__server`, `mcp__server__*`; not `Bash(rm:*)`): it is not
        offered to the model at all, as Claude Code leaves it out. (A call the model makes anyway is still denied.)"""
        return any(
            rule.behavior == "deny" and rule.specifier is None and (rule.tool == name or "__" in rule.tool)
            and rule.covers_tool(name)
            for rule in self._rules
        )  # fmt: skip

    # The gate

    def check(self, tool: CheckedTool, args: BaseModel, call: ToolUseBlock) -> Verdict:
        if tool.name == "Bash":
            command = str(getattr(args, "command", ""))
            disable = bool(getattr(args, "dangerouslyDisableSandbox", False))
            if self.sandbox is None or not self.sandbox.enabled:
                return self._unguarded(command) if disable and self.guarded() else self._bash(command)
            return self._sandboxed_bash(command, disable)
        if tool.name in PERSON_TOOLS:
            return self._person_tool(tool.name)
        if tool.name == "WebFetch":
            return self.web_fetch(str(getattr(args, "url", "")))
        if tool.name == "Skill":
            return self._skill(str(getattr(args, "skill", "")), bool(getattr(tool, "grants", lambda args: ())(args)))
        if tool.name == "WebSearch" and tool.offered:  # (it changes nothing, but the query leaves the machine)
            return self._asked_tool(tool.name, f"WebSearch wants to search the web for {getattr(args, 'query', '')!r}")
        raw = tool.permission_path(args)
        if raw is not None and tool.kind == "write" and self.changes is not None and self.changes.active:
            return self._queued_change(tool, raw)
        if raw is not None:
            return self._path_tool(tool, raw)
        return self._plain_tool(tool)

    def _queued_change(self, tool: CheckedTool, raw: str) -> Verdict:
        """Plan mode with its change queue: a change is queued, not made, where acceptEdits would make it without a
        question; anything else is refused as plan mode refuses changes."""
        if tool.name not in QUEUED_TOOLS:
            return Verdict("deny", f"plan mode queues only {' and '.join(sorted(QUEUED_TOOLS))} changes")
        verdict = self._path_tool(tool, raw, mode="acceptEdits")
        if verdict.behavior != "ask":
            return verdict
        why = verdict.reason[:1].lower() + verdict.reason[1:]
        said = f"plan mode queues only changes it could make without asking, and {why}"
        return Verdict("deny", said, path=verdict.path)

    def remember(self, tool: CheckedTool, args: BaseModel, call: ToolUseBlock, decision: PermissionDecision) -> None:
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
        """A deny rule forbids reading this file (searches leave it out), by its name, where it leads, or as a hard
        link to a denied file."""
        real = Path(os.path.realpath(path))
        if any(
            rule.behavior == "deny" and rule.tool in READ_FAMILY and (rule.covers_path(path) or rule.covers_path(real))
            for rule in self._rules
        ):
            return True
        return self.hard_link_rule(real) is not None or self.credential(real) is not None

    def credential(self, path: Path) -> Path | None:
        """The credential the environment names, or the person's secret a working directory holds, that `path`
        (resolved) is or is inside, if any."""
        found = next((found for found in self.credentials() if is_within(path, found)), None)
        return found if found is not None else self.kept_out(path)

    def hard_link_rule(self, real: Path) -> Rule | None:
        """The deny rule covering the file `real` is another name for, if any: a hard link to a denied file, or the
        file a denied link leads to (`Read(./.env)` with `.env -> config/dev.env` keeps config/dev.env too)."""
        try:
            info = os.stat(real)
        except OSError:
            return None
        if not stat.S_ISREG(info.st_mode):
            return None
        found = self._denied_by_inode().get((info.st_dev, info.st_ino))
        if found is None and info.st_nlink > 1 and self._inodes_cut is not None:
            return self._inodes_cut  # (a denied directory too large to list whole: any file with two names may be one)
        return found

    def denied_inodes(self) -> set[tuple[int, int]]:
        return set(self._denied_by_inode())

    def _denied_by_inode(self) -> dict[tuple[int, int], Rule]:
        """Every regular file a Read deny rule covers, by device and inode (a hard link is the same file under another
        name): the files the rules name literally, those their patterns match (the sandbox's and the guard's
        enumeration), and those inside a denied directory. Kept for a moment: Grep asks for each file it finds."""
        return self._denied_regular()[1]

    def denied_regular_files(self) -> tuple[Path, ...]:
        """The regular files of `_denied_by_inode`, by one of their names each."""
        return self._denied_regular()[2]

    def _denied_regular(self) -> tuple[float, dict[tuple[int, int], Rule], tuple[Path, ...]]:
        now = time.monotonic()
        if self._inode_cache is not None and now - self._inode_cache[0] < _INODE_SECONDS:
            return self._inode_cache
        rules = [r for r in self._rules if r.behavior == "deny" and r.tool in READ_FAMILY and r.path is not None]
        found: dict[tuple[int, int], Rule] = {}
        paths: dict[tuple[int, int], Path] = {}
        self._inodes_cut = None
        if rules:
            for path in self._denied_paths(rules):
                rule = next((r for r in rules if r.covers_path(path) or r.covers_path(path / "-")), rules[0])
                files, whole = _regular_files(path)
                if not whole:
                    self._inodes_cut = self._inodes_cut or rule
                for name, info in files:
                    found.setdefault((info.st_dev, info.st_ino), rule)
                    paths.setdefault((info.st_dev, info.st_ino), name)
        self._inode_cache = (now, found, tuple(paths.values()))
        return self._inode_cache

    def _denied_paths(self, rules: list[Rule]) -> list[Path]:
        paths: list[Path] = []
        for rule in rules:
            assert rule.path is not None
            pattern = rule.path.pattern
            if not any(c in pattern for c in "*?[") and pattern not in ("", "/"):
                paths.append(rule.path.root / pattern.lstrip("/"))
            elif (
                (folder := pattern.removesuffix("/**")) != pattern
                and folder.strip("/")
                and not any(c in folder for c in "*?[")
            ):
                paths.append(rule.path.root / folder.lstrip("/"))  # (`secrets/**`: below it, wherever it leads)
        if self.denied_files is not None:
            found = self.denied_files()
            paths += [*found.files, *found.directories]
            if found.cut:  # (some denied files were never listed: any file with two names may be one of them)
                self._inodes_cut = self._inodes_cut or rules[0]
        return paths

    def deny_could_cover(self, directory: Path, family: frozenset[str] = READ_FAMILY) -> bool:
        """Some deny rule of `family` (Read's, or Edit's) could cover a file at or below `directory`."""
        return self.rule_below("deny", directory, family) is not None

    def rule_below(self, behavior: Behavior, directory: Path, family: frozenset[str] = READ_FAMILY) -> Rule | None:
        """A rule of `behavior` and `family` that could cover a file at or below `directory`."""
        for rule in self._rules:
            if rule.behavior == behavior and rule.tool in family and rule.path is not None:
                root = rule.path.root
                if relative_within(root, directory) is None and relative_within(directory, root) is None:
                    continue
                above = relative_within(root, directory) is None
                # (a rule rooted above `directory` reaches below it only through its pattern)
                if above and not rule.covers_path(directory) and not _pattern_reaches(rule, directory):
                    continue
                return rule
        return None

    def command_rule(self, behavior: Behavior, sub: SimpleCommand, *, with_assignments: bool = False) -> Rule | None:
        """A Bash rule covering a command of the see-through parse. Deny and ask rules also see it with quotes
        removed, without its VAR=value prefix, by the program's base name, and (git) without global options; one
        that will be given more arguments (xargs) is covered by any rule it could grow into."""
        candidates = self._candidates_of(behavior, "Bash")
        if not candidates.rules:
            return None  # (most settings have no deny or ask rule for Bash: nothing to build the texts for)
        # (`/usr/bin/touch` is touch to a deny rule, never to an allow)
        texts = (sub.matching_text(with_assignments=True),) if behavior == "allow" else sub.guarded_texts
        gate = candidates.any_command
        for text in texts:
            if gate is not None and gate.fullmatch(text) is None:
                continue  # (the common case, without a call)
            if rule := self.find_rule(behavior, "Bash", command=text):
                return rule
        if behavior == "allow":
            return None
        if os.path.basename(sub.name) == "git" and (rule := self._git_rule(behavior, sub.known_text)):
            return rule
        if sub.open_ended:
            return self._grown_into(behavior, sub.known_text)
        return None

    def text_rule(self, behavior: Behavior, text: str, program: str, values: str | None = None) -> Rule | None:
        """A Bash rule covering one understood command, as written (its words' whitespace collapsed); for deny and
        ask rules also with its words' values (quotes removed), and a git command as it reads without its global
        options (`git --no-pager push` is `git push` to `Bash(git push:*)`)."""
        written = " ".join(text.split())
        if rule := self.find_rule(behavior, "Bash", command=written):
            return rule
        if behavior == "allow":
            return None
        for form in dict.fromkeys((written, values or written)):
            if form != written and (rule := self.find_rule(behavior, "Bash", command=form)):
                return rule
            if program == "git" and (rule := self._git_rule(behavior, form)):
                return rule
        return None

    def _git_rule(self, behavior: Behavior, text: str) -> Rule | None:
        """A deny or ask rule for a git command: without its global options; and where the command line defines an
        alias (`git -c alias.p=push p`), any rule for git at all (the alias can stand for anything)."""
        if rule := self.find_rule(behavior, "Bash", command=_without_git_globals(text)):
            return rule
        if re.search(r"(^| )(-c ?|--config-env[= ])alias\.", text, re.IGNORECASE):
            return self._grown_into(behavior, "git")
        return None

    def _grown_into(self, behavior: Behavior, known: str) -> Rule | None:
        """A deny or ask rule some command starting with `known` could match once more words are added."""
        for rule in self._rules:
            if rule.behavior != behavior or rule.tool != "Bash":
                continue
            prefix = _literal_prefix(rule)
            if prefix is None or prefix.startswith(known + " ") or prefix == known or known.startswith(prefix):
                return rule
        return None

    # Rule lookup

    def _candidates_of(self, behavior: Behavior, tool: str) -> _Candidates:
        candidates = self._candidates.get((behavior, tool))
        if candidates is None:
            candidates = self._candidates[(behavior, tool)] = _Candidates.of(
                [rule for rule in self._rules if rule.behavior == behavior and rule.covers_tool(tool)]
            )
        return candidates

    def find_rule(
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
        candidates = self._candidates_of(behavior, tool)
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

    def _plain_tool(self, tool: CheckedTool) -> Verdict:
        name = tool.name
        if rule := self.find_rule("deny", name):
            return Verdict("deny", f"the rule {rule.text} denies it")
        if rule := self.find_rule("ask", name):
            return Verdict("ask", f"the rule {rule.text} asks for it", suggestions=(name,))
        bypass = self.mode == "bypassPermissions" and not any(name.startswith(held) for held in self.held_to_ask)
        if self.find_rule("allow", name) or tool.kind == "read" or bypass:
            return Verdict("allow", "allowed")
        if self.mode == "plan":
            return Verdict("deny", "plan mode allows only tools that change nothing")
        return Verdict(
            "ask", f"{name} can {'modify files' if tool.kind == 'write' else 'run commands'}", suggestions=(name,)
        )

    def _skill(self, typed: str, grants: bool) -> Verdict:
        """As Claude Code's Skill: rules name a skill (`Skill(name)`, `Skill(prefix:*)`); one that grants tools asks
        unless a rule (or bypassPermissions) allows it; one that grants none loads at once."""
        name = typed.strip().removeprefix("/")

        def naming(rule: Rule) -> bool:
            said = (rule.specifier or "").removeprefix("/")
            return rule.tool == "Skill" and (
                not said or said == name or (said[-2:] in (":*", " *") and name.startswith(said[:-2]))
            )

        if rule := next((r for r in self._rules if r.behavior == "deny" and naming(r)), None):
            return Verdict("deny", f"the rule {rule.text} denies it")
        allowed = any(r.behavior == "allow" and naming(r) for r in self._rules)
        if allowed or not grants or self.mode == "bypassPermissions":
            return Verdict("allow", "allowed")
        return Verdict("ask", f"Execute skill: {name}", suggestions=(f"Skill({name})", f"Skill({name}:*)"))

    def _person_tool(self, name: str) -> Verdict:
        """The tools whose question is the call itself: a deny rule refuses them, and otherwise the person answers
        (a question always; a plan unless a rule or bypassPermissions approves it)."""
        if rule := self.find_rule("deny", name):
            return Verdict("deny", f"the rule {rule.text} denies it")
        if name == "AskUserQuestion":
            return Verdict("ask", "the model has questions for you", hard=True)
        if self.changes is not None and len(self.changes):  # (only the person applies them)
            return Verdict("ask", "the plan and the changes it queued need the user's approval", hard=True)
        if self.find_rule("allow", name) or self.mode == "bypassPermissions":
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
        if rule := self.find_rule("deny", "WebFetch", domain=host):
            return Verdict("deny", f"the rule {rule.text} denies {host}")
        suggestion = (f"WebFetch(domain:{host})",)
        if rule := self.find_rule("ask", "WebFetch", domain=host):
            return Verdict("ask", f"the rule {rule.text} asks for {host}", suggestions=suggestion)
        if self.names_host("WebFetch", host):
            return Verdict("allow", f"a rule allows {host}")
        if is_private_host(host):
            return Verdict(
                "deny",
                f"{host} is a private or loopback address, which WebFetch reaches only when a rule names it: "
                f"WebFetch(domain:{host})",
            )
        if self.find_rule("allow", "WebFetch", domain=host) or self.mode == "bypassPermissions":
            return Verdict("allow", "allowed")
        return Verdict("ask", f"WebFetch wants to fetch a page from {host}", suggestions=suggestion)

    def _asked_tool(self, name: str, reason: str) -> Verdict:
        """A tool that asks unless a rule or bypassPermissions lets it run (plan mode too: it changes nothing)."""
        if rule := self.find_rule("deny", name):
            return Verdict("deny", f"the rule {rule.text} denies it")
        if rule := self.find_rule("ask", name):
            return Verdict("ask", f"the rule {rule.text} asks for it", suggestions=(name,))
        if self.find_rule("allow", name) or self.mode == "bypassPermissions":
            return Verdict("allow", "allowed")
        return Verdict("ask", reason, suggestions=(name,))

    def names_host(self, tool: str, host: str) -> bool:
        """An allow rule names this host itself (not a bare rule for every host), and no deny rule covers it."""
        return self.find_rule("deny", tool, domain=host) is None and (
            self.find_rule("allow", tool, domain=host, specific=True) is not None
        )

    # Tools with a path

    def _path_tool(self, tool: CheckedTool, raw: str, mode: Mode | None = None) -> Verdict:
        ws, name, mode = self.workspace, tool.name, mode or self.mode
        lexical = ws.absolute(raw)
        try:
            real = Path(os.path.realpath(lexical))
        except OSError as exc:  # (a link swapped while it was followed: what it leads to is not known)
            return Verdict("ask", f"{ws.display(lexical)} could not be resolved ({exc.strerror or exc})")
        both = (lexical, real) if lexical != real else (real,)
        for path in both:
            if rule := self.find_rule("deny", name, path=path):
                return Verdict("deny", f"the rule {rule.text} denies {ws.display(real)}", path=real)
        if name in READ_FAMILY and (rule := self.hard_link_rule(real)):
            return Verdict(
                "deny", f"{ws.display(real)} is another name (a link) for a file the rule {rule.text} denies"
            )
        if (credential := self.credential(real)) is not None:
            why = f"{ws.display(real)} holds credentials ({credential} is kept out of the tools' reach)"
            return Verdict("ask", f"{why}; they are never read or changed without asking", path=real, hard=True)
        writes = tool.kind == "write"
        if writes and mode == "plan":
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
            if rule := self.find_rule("ask", name, path=path):
                return Verdict("ask", f"the rule {rule.text} asks for {ws.display(real)}", path=real)
        if all(self.find_rule("allow", name, path=path, specific=True) for path in both):
            return Verdict("allow", "an allow rule covers it", path=real)
        inside = ws.contains(real)
        if inside and (
            not writes or mode in ("acceptEdits", "bypassPermissions") or self.find_rule("allow", name, bare=True)
        ):
            return Verdict("allow", "inside the project", path=real)
        if not inside and mode == "bypassPermissions":
            return Verdict("allow", "bypassPermissions mode", path=real)
        if name == "Read" and public_file(real, self.home):
            why = "installed software or a file naming the system, which every user may read"
            return Verdict("allow", why, path=real)  # (read where it was checked, not where a link leads by then)
        family = "Read" if name in READ_FAMILY else "Edit"
        shown = ws.display(real)
        if inside:
            verb = "modify" if os.path.lexists(real) else "create"
            return Verdict("ask", f"{name} wants to {verb} {shown}", path=real, suggestions=(family,))
        target = real if os.path.isdir(real) else real.parent
        return Verdict(
            "ask", f"{shown} is outside the project", path=real, suggestions=(_path_rule(family, target, tree=True),)
        )

    # Bash

    def _sandboxed_bash(self, command: str, disable: bool) -> Verdict:
        """With the sandbox on: a command that will run inside it needs no question unless a rule or something that
        cannot be checked asks, an ask rule exists (then only what the allowlist knows runs unasked), or the sandbox
        cannot hide every denied file; one that asks to run outside always asks; and where the sandbox cannot run,
        nothing runs unsandboxed without a question (bypass mode included)."""
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
            return Verdict(
                "ask",
                f"the command asks to run outside the sandbox and its guard (it may change git's configuration and "
                f"hooks, shell start-up files and agentui's own settings){why}",
                hard=True,
                protected=True,
            )
        if (
            verdict.behavior == "ask"
            and sandbox.config.auto_allow
            and not (verdict.hard or verdict.by_rule)
            and not self._has_ask_rules()
            and _enforces_denies(sandbox)
            and sandbox.runs_inside(command)
        ):
            return Verdict("allow", "it runs in the sandbox")
        return verdict

    def _unguarded(self, command: str) -> Verdict:
        """The model asks to run a command without the guard (to write git's configuration or hooks, a shell start-up
        file, agentui's own settings): only the person can say yes, in any mode; plan mode refuses."""
        verdict = self._bash(command)
        if verdict.behavior == "deny":
            return verdict
        if self.mode == "plan":
            return Verdict("deny", "plan mode does not run commands outside the guard")
        also = f"; also, {verdict.reason[0].lower()}{verdict.reason[1:]}" if verdict.behavior == "ask" else ""
        return Verdict(
            "ask",
            "the command asks to run without the guard, so it may change git's configuration and hooks, shell "
            f"start-up files and agentui's own settings{also}",
            hard=True,
            protected=True,
        )

    def _has_ask_rules(self) -> bool:
        """Any ask rule on commands or files: while one exists, the sandbox's auto-allow lets through only what the
        allowlist knows (a sandboxed `find -delete` must not get round `Bash(rm:*)`)."""
        families = {"Bash", *READ_FAMILY, "Edit", "Write", "MultiEdit", "NotebookEdit"}
        return any(rule.behavior == "ask" and rule.tool in families for rule in self._rules)

    def _bash(self, command: str, *, mode: Mode | None = None) -> Verdict:
        from agentui.core.safety.permissions.bash_check import BashCheck

        return BashCheck(self).verdict(command, mode or self.mode)


def _enforces_denies(sandbox: Sandbox) -> bool:
    """The sandbox hides every file the deny rules cover (older sandboxes without the check count as not)."""
    check = getattr(sandbox, "enforces_denies", None)
    if check is None:
        return True
    return bool(check() if callable(check) else check)


def _default_bash_environ() -> Mapping[str, str]:
    from agentui.core.safety.environ import child_environment

    return child_environment(os.environ)


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


_GIT_GLOBALS_WITH_VALUE = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"}


def _literal_prefix(rule: Rule) -> str | None:
    """The words a Bash rule's commands all start with (None: the rule covers every command)."""
    specifier = rule.specifier
    if not specifier:
        return None
    literal = specifier.removesuffix(":*").split("*", 1)[0]
    return " ".join(literal.split()) or None


def _without_git_globals(text: str) -> str:
    """`git [global options] sub args` as `git sub args` (the words as written; a redirection in between included)."""
    words = text.split(" ")
    if not words or os.path.basename(words[0]) != "git":
        return text
    i = 1
    while i < len(words):
        word = words[i]
        if word in _GIT_GLOBALS_WITH_VALUE:
            i += 2
        elif word.startswith("-") or re.match(r"\d*[<>]", word):
            i += 1
        else:
            break
    return " ".join(["git", *words[i:]])


def _pattern_reaches(rule: Rule, directory: Path) -> bool:
    """Whether a path rule rooted above `directory` could match something below it (anything but a pattern naming
    one exact path elsewhere)."""
    assert rule.path is not None
    pattern = rule.path.pattern.rstrip("/")
    if any(c in pattern for c in "*?[\\!") or not pattern or "/" not in pattern:
        return True  # (a wildcard, or a name without a slash, which gitignore matches at any depth)
    pattern = pattern.lstrip("/")
    named = rule.path.root / pattern
    return relative_within(named, directory) is not None or relative_within(directory, named) is not None


_INODE_SECONDS = 1.0
_DENIED_DIRECTORY_LIMIT = 10_000


def _regular_files(path: Path) -> tuple[list[tuple[Path, os.stat_result]], bool]:
    """`path` and its stat if it is a regular file, or the regular files below it (bounded) if a directory; and
    whether that is all of them."""
    try:
        info = os.stat(path)
    except OSError:
        return [], True
    if stat.S_ISREG(info.st_mode):
        return [(path, info)], True
    if not stat.S_ISDIR(info.st_mode):
        return [], True
    out: list[tuple[Path, os.stat_result]] = []
    for directory, _dirs, files in os.walk(path):
        for name in files:
            file = Path(directory, name)
            try:
                found = os.stat(file, follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISREG(found.st_mode):
                out.append((file, found))
            if len(out) >= _DENIED_DIRECTORY_LIMIT:
                return out, False
    return out, True


def _path_rule(family: str, path: Path, *, tree: bool = False) -> str:
    absolute = "//" + str(path).lstrip("/")
    return f"{family}({absolute}/**)" if tree else f"{family}({absolute})"
