"""The permission check of a Bash command. A command runs without a question only when agentui understands all of
it (`understand.py`: the small grammar, a second parser agreeing, every word expanded exactly, every program in
the allowlist with its options) and everything it touches is allowed in the current mode. Everything else asks,
and in plan mode is refused.

Order: deny rules first, on every command the command could run however it is nested (the see-through parse of
`shell.py`) and on every file it names; then what must be asked whatever else is said (a write to a protected
file); then ask rules; then bypassPermissions; then the allowlist, file by file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from agentui.core.safety.permissions.bash_words import NotUnderstood
from agentui.core.safety.permissions.effects import GitUse, Tree
from agentui.core.safety.permissions.gate import Verdict
from agentui.core.safety.permissions.git_commands import PLAIN_CONFIG_KEYS, config_key, writes_git_config
from agentui.core.safety.permissions.git_repository import CannotCheck
from agentui.core.safety.permissions.options import Arg
from agentui.core.safety.permissions.programs import PROGRAMS, VERSION_ONLY
from agentui.core.safety.permissions.protected import protected_reason
from agentui.core.safety.permissions.public_files import public_file, public_listing
from agentui.core.safety.permissions.reach import (
    WALK_LIMIT,
    Resolved,
    WalkChecks,
    links_below,
    opened_problem,
    resolve,
    walk_problem,
    xargs_keeps,
)
from agentui.core.safety.permissions.readonly import HARMLESS_TARGETS, read_only_paths
from agentui.core.safety.permissions.rules import EDIT_FAMILY, Rule
from agentui.core.safety.permissions.shell import SimpleCommand, analyze
from agentui.core.safety.permissions.understand import (
    Step,
    Understood,
    appended_names,
    is_names,
    resolve_program,
    understand,
)
from agentui.core.safety.permissions.version_query import picks_elsewhere
from agentui.core.workspace import is_within

if TYPE_CHECKING:
    from agentui.core.events import PermissionMode as Mode
    from agentui.core.safety.denied_files import DeniedFiles
    from agentui.core.safety.permissions.history_secrets import Secret
    from agentui.core.safety.permissions.rule_book import RuleBook


LISTERS = frozenset({"ls", "stat"})
UNGUARDED = (
    "bubblewrap cannot guard agentui's own files and your shell and git configuration here, so even "
    "bypassPermissions asks for a command agentui does not understand completely"
)
"""Why bypassPermissions asks, where the guard cannot run, for a command (or a program in it) agentui cannot follow:
nothing else would keep such a program from writing the files bypassPermissions still protects."""
"""The programs whose look at a directory operand is one listing of it (`ls -R` makes the operand a tree's root)."""


@dataclass(frozen=True)
class Need:
    """One thing the command needs an answer for."""

    reason: str
    suggestion: str | None = None
    hard: bool = False
    by_rule: bool = False
    protected: bool = False
    """It is about writing a protected file: a yes lets the command past the guard."""


class BashCheck:
    def __init__(self, engine: RuleBook) -> None:
        self.engine = engine
        self.repositories = engine.repositories()
        self._resolved: dict[tuple[str, Path], Resolved] = {}
        self._directories: dict[str, str] = {}
        self._programs: dict[tuple[str, Path], Path | None] = {}
        self._denies = any(r.behavior == "deny" and r.path is not None for r in engine.rules)
        """Some deny rule names files: only then are the files a command names looked up for one."""

    def _resolve(self, value: str, cwd: Path) -> Resolved:
        """`resolve`, once per name and directory in a check (a long command names the same files many times)."""
        key = (value, cwd)
        found = self._resolved.get(key)
        if found is None:
            found = self._resolved[key] = resolve(value, cwd, self._directories)
        return found

    def _operand(self, value: str, cwd: Path, own_links: bool) -> Resolved:
        """An operand's path; for a program that looks at a link itself, the link is where it reads."""
        resolved = self._resolve(value, cwd)
        if own_links:
            return Resolved(resolved.written, resolved.located, resolved.located)
        return resolved

    @cached_property
    def _secrets(self) -> list[Secret]:
        """The project's repositories whose objects hold a denied file: no mask hides those objects."""
        if not self._denies:
            return []
        from agentui.core.safety.permissions.history_secrets import Secret, history_secrets

        found = history_secrets(self.engine, self.repositories)
        if (unmasked := self._enumerated) is not None and unmasked.reason:
            # (the masks cover only what the enumeration found: a hard link it could not follow is readable)
            found.append(Secret(f"the masks cannot cover every file the deny rules cover ({unmasked.reason})", None))
        return found

    @property
    def _history_secret(self) -> str | None:
        """Why a program agentui cannot read exactly could print a denied file from git's objects, or None."""
        return self._secrets[0].why if self._secrets else None

    def _opaque_need(self, step: Step) -> Need | None:
        """A part of the command agentui cannot read exactly, in a project whose git objects hold a denied file:
        only the person can say it may run."""
        if secret := self._history_secret:
            why = f"`{step.text}`, which agentui cannot read exactly, while {secret}"
            return Need(why, suggestion=bash_rule_text(step), hard=True)
        return None

    def _in_secret_objects(self, real: Path, *, holding: bool = False) -> str | None:
        """`real` is in an object store holding a denied file (or, `holding`, holds one): why, or None. Its data is
        compressed, not hidden."""
        for secret in self._secrets:
            if secret.objects is not None and (
                is_within(real, secret.objects) or (holding and is_within(secret.objects, real))
            ):
                return secret.why
        return None

    def _program(self, name: str, cwd: Path) -> Path | None:
        key = (name, cwd)
        if key not in self._programs:
            self._programs[key] = resolve_program(name, self.environ, cwd)
        return self._programs[key]

    @property
    def environ(self) -> Mapping[str, str]:
        return self.engine.bash_environ

    def verdict(self, command: str, mode: Mode) -> Verdict:
        try:
            return self._verdict(command, mode)
        except RecursionError:
            return Verdict("ask", "the command nests too deeply to be checked", hard=True)

    def _verdict(self, command: str, mode: Mode) -> Verdict:
        engine = self.engine
        ws = engine.workspace
        cwd = ws.shell_cwd or ws.root
        seen = analyze(command)
        seen_commands = [*seen.commands, *seen.hidden]
        for sub in seen_commands:
            if rule := engine.command_rule("deny", sub):
                return Verdict("deny", f"the rule {rule.text} denies `{sub.text}`")
        try:
            plan: Understood | None = understand(command, self.environ, cwd)
            why = ""
        except NotUnderstood as exc:
            plan, why = None, str(exc)
        if plan is not None:
            for step in plan.steps:
                if rule := engine.text_rule("deny", step.text, step.program, step.value_text):
                    return Verdict("deny", f"the rule {rule.text} denies `{step.text}`")
        if denied := self._denied_paths(seen, plan, cwd):
            return denied

        hard_needs = self._protected_writes(seen, plan, cwd)
        if hard_needs:
            return self._ask(hard_needs, mode, protected=True)
        for sub in seen_commands:
            if rule := engine.command_rule("ask", sub):
                return Verdict(
                    "ask", f"the rule {rule.text} asks for `{sub.text}`", suggestions=(bash_rule(sub),), by_rule=True
                )
        if plan is not None:
            for step in plan.steps:
                if rule := engine.text_rule("ask", step.text, step.program, step.value_text):
                    return Verdict("ask", f"the rule {rule.text} asks for `{step.text}`", by_rule=True)

        if plan is None:
            if mode != "plan" and (mode == "bypassPermissions" or self._bare_bash_allowed()) and self._history_secret:
                return Verdict(
                    "ask",
                    f"{why}, so agentui cannot tell what it reads, and {self._history_secret}: it could print it "
                    "from git's objects, which no mask hides",
                    hard=True,
                )
            unseen = mode != "plan" and (mode == "bypassPermissions" or self._bare_bash_allowed()) and seen.problem
            if unseen and (rule := next((r for r in engine.rules if r.tool == "Bash" and r.behavior != "allow"), None)):
                return Verdict(
                    "ask", f"{seen.problem}, so agentui cannot check the command against {rule.text}", hard=True
                )
            if mode == "bypassPermissions" and engine.guarded():
                return Verdict("allow", "bypassPermissions mode")
            if mode == "bypassPermissions":
                return Verdict("ask", f"{why}, and {UNGUARDED}", hard=True)
            if self._bare_bash_allowed() and mode != "plan":
                return Verdict("allow", "a rule allows every Bash command")
            if mode == "plan":
                return Verdict("deny", f"plan mode runs only commands agentui knows to be read-only, and {why}")
            return Verdict(
                "ask", f"{why}, so agentui cannot tell what it does", hard=True, suggestions=self._suggest(seen)
            )
        needs: list[Need] = []
        for step in plan.steps:
            needs.extend(self._step_needs(step, mode))
        if (sequence := _writes_before_more(plan)) is not None:
            # (where an Edit deny rule names files, only the person may let a link made first carry a later write)
            edit_denies = any(r.behavior == "deny" and r.tool in EDIT_FAMILY and r.path for r in engine.rules)
            needs.append(Need(sequence, hard=edit_denies))
        if mode == "bypassPermissions" or (self._bare_bash_allowed() and mode != "plan"):
            needs = [need for need in needs if need.hard]  # (what must be asked whatever the mode or rules say)
        if not needs:
            return Verdict("allow", "every part of the command is allowed")
        return self._ask(needs, mode)

    def _home(self, word: str) -> str:
        """A word of the see-through parse with a leading `~` as bash expands it."""
        if word == "~" or word.startswith("~/"):
            return str(self.engine.home) + word[1:]
        return word

    # Building the verdict

    def _ask(self, needs: list[Need], mode: Mode, *, protected: bool = False) -> Verdict:
        reasons = list(dict.fromkeys(n.reason for n in needs))
        if mode == "plan":
            return Verdict("deny", "plan mode runs only read-only commands: " + "; ".join(reasons))
        return Verdict(
            "ask",
            "Bash wants to run " + "; ".join(reasons),
            hard=any(n.hard for n in needs),
            suggestions=tuple(dict.fromkeys(n.suggestion for n in needs if n.suggestion)),
            by_rule=any(n.by_rule for n in needs),
            protected=protected or any(n.protected for n in needs),
        )

    def _suggest(self, seen: object) -> tuple[str, ...]:
        commands = getattr(seen, "commands", [])
        return tuple(dict.fromkeys(bash_rule(sub) for sub in commands))

    def _bare_bash_allowed(self) -> bool:
        return self.engine.find_rule("allow", "Bash", bare=True) is not None

    # Deny rules on files

    def _denied_paths(self, seen: object, plan: Understood | None, cwd: Path) -> Verdict | None:
        engine = self.engine
        if not self._denies:
            return None
        from agentui.core.safety.permissions.shell import ShellAnalysis

        assert isinstance(seen, ShellAnalysis)
        # What the see-through parse can name literally (also when the command as a whole is not understood)
        for redirect in seen.redirects:
            if redirect.target is None:
                continue
            tool = "Edit" if redirect.writes else "Read"
            target = self._home(redirect.target)
            for path in self._resolve(target, cwd).forms:
                if rule := engine.find_rule("deny", tool, path=path):
                    verb = "writing" if redirect.writes else "reading"
                    return Verdict("deny", f"the rule {rule.text} denies {verb} {path}")
            if redirect.reads and (rule := engine.hard_link_rule(self._resolve(target, cwd).real)):
                return Verdict("deny", f"the rule {rule.text} denies reading {target}, a hard link to a file it covers")
        for sub in seen.commands:
            paths = read_only_paths(sub)
            for target in paths or ():
                for path in self._resolve(self._home(target), cwd).forms:
                    if rule := engine.find_rule("deny", "Read", path=path):
                        return Verdict("deny", f"the rule {rule.text} denies `{sub.text}` reading {target}")
        if plan is None:
            return None
        for step in plan.steps:
            here = step.place.physical
            if step.unknown:  # (what it reads is not known: any argument naming a denied file is refused)
                for value in _argument_paths(step):
                    if rule := self._read_denied(value, here):
                        return Verdict("deny", f"the rule {rule.text} denies `{step.text}` naming {value}")
            opened = step.effects.looks if step.effects.anywhere else []  # (df opens each operand)
            for arg in [*step.effects.reads, *opened, *(step.effects.git.reads if step.effects.git else [])]:
                if is_names(arg):
                    continue
                if rule := self._read_denied(arg.value, here):
                    return Verdict("deny", f"the rule {rule.text} denies `{step.text}` reading {arg.value}")
            for opening, target in step.redirects:
                tool = "Edit" if opening.writes else "Read"
                for path in self._resolve(target, here).forms:
                    if rule := engine.find_rule("deny", tool, path=path):
                        return Verdict("deny", f"the rule {rule.text} denies `{step.text}` touching {target}")
                if opening.reads and (rule := engine.hard_link_rule(self._resolve(target, here).real)):
                    return Verdict("deny", f"the rule {rule.text} denies `{step.text}` reading {target}, a hard link")
            for value in [*(a.value for a in step.effects.writes), *self._created(step)]:
                for path in self._resolve(value, here).forms:
                    if rule := engine.find_rule("deny", "Edit", path=path):
                        return Verdict("deny", f"the rule {rule.text} denies `{step.text}` changing {value}")
            for value in [*(t.path.value for t in step.effects.removes), *self._created(step, trees=True)]:
                resolved = self._resolve(value, here)
                if rule := engine.rule_below("deny", resolved.located, EDIT_FAMILY):
                    return Verdict("deny", f"the rule {rule.text} denies `{step.text}` changing files under {value}")
        return None

    def _created(self, step: Step, *, trees: bool = False) -> list[str]:
        """What cp and mv create: the destination, or a path inside it named after the source when the destination
        is a directory; `trees`: only those whose source is a directory (a whole tree is created there)."""
        here = step.place.physical
        found: list[str] = []
        for copy in step.effects.copies:
            source = self._resolve(copy.source.value, here)
            destination = self._resolve(copy.destination.value, here)
            into = copy.into if copy.into is not None else os.path.isdir(destination.real)
            name = os.path.basename(os.path.normpath(copy.source.value)) or copy.source.value
            if os.path.basename(copy.source.value.rstrip("/")) in (".", ".."):
                into = False  # (`cp -r src/. dest`: src's contents land in dest itself)
            created = os.path.join(copy.destination.value, name) if into else copy.destination.value
            if not trees or os.path.isdir(source.real):
                found.append(created)
        return found

    def _read_denied(self, value: str, cwd: Path) -> Rule | None:
        resolved = self._resolve(value, cwd)
        for path in resolved.forms:
            if rule := self.engine.find_rule("deny", "Read", path=path):
                return rule
        return self.engine.hard_link_rule(resolved.real)

    # Protected files

    def _protected_writes(self, seen: object, plan: Understood | None, cwd: Path) -> list[Need]:
        from agentui.core.safety.permissions.shell import ShellAnalysis

        assert isinstance(seen, ShellAnalysis)
        needs = []
        targets: list[tuple[str, Path]] = [
            (r.target, cwd)
            for r in seen.redirects
            if r.writes and r.target is not None and r.target not in HARMLESS_TARGETS
        ]
        if plan is not None:
            for step in plan.steps:
                here = step.place.physical
                targets += [(t, here) for r, t in step.redirects if r.writes and t not in HARMLESS_TARGETS]
                targets += [(a.value, here) for a in step.effects.writes]
                targets += [(value, here) for value in self._created(step)]
                targets += [(t.path.value, here) for t in step.effects.removes]
        for target, here in targets:
            resolved = self._resolve(self._home(target), here)
            for path in resolved.forms:
                if reason := protected_reason(path, self.engine.config_dirs):
                    needs.append(Need(f"a write to {path} ({reason})", hard=True, suggestion=None))
                    break
        for sub in [*seen.commands, *seen.hidden]:
            if os.path.basename(sub.name) == "git" and writes_git_config(list(sub.words)):
                needs.append(Need(f"`{sub.text}`, which writes git's configuration", hard=True))
        if plan is not None:
            for step in plan.steps:
                # (removing or moving a tree removes what is in it; copying one creates what is in it)
                sources = [t.path for t in step.effects.removes] + [c.source for c in step.effects.copies]
                for source in sources:
                    if source.value and (why := self._tree_protected(Tree(source), step.place.physical)):
                        needs.append(Need(why, hard=True))
        return needs

    def _tree_protected(self, tree: Tree, cwd: Path) -> str | None:
        root = self._resolve(tree.path.value, cwd).located
        if not os.path.isdir(root) or os.path.islink(root):
            return None

        def protected(path: Path) -> str | None:
            reason = protected_reason(path, self.engine.config_dirs)
            return f"`{tree.path.value}` holds {path} ({reason})" if reason else None

        return walk_problem(root, follow=False, checks=WalkChecks(inside=lambda p: True, protected=protected))

    # Each program

    def _step_needs(self, step: Step, mode: Mode) -> list[Need]:
        engine = self.engine
        ws = engine.workspace
        here = step.place.physical
        needs: list[Need] = []
        effects = step.effects
        allowed_by_rule = mode != "plan" and engine.text_rule("allow", step.text, step.program) is not None

        needs += self._place_needs(step, mode, here, allowed_by_rule)

        if step.unknown:
            opaque = self._opaque_need(step)
            if opaque is not None:
                needs.append(opaque)
            if not allowed_by_rule:
                if mode != "bypassPermissions" and opaque is None:
                    needs.append(Need(f"`{step.text}`", suggestion=bash_rule_text(step)))
                elif opaque is None and not engine.guarded():
                    needs.append(Need(f"`{step.text}`: {UNGUARDED}", hard=True, suggestion=bash_rule_text(step)))
                return needs
            return [*needs, *self._ruled_unknown_needs(step, mode)]
        # A program agentui knows: an allow rule says it may run, not where it may read or write.
        if (why := _environment_options(step, self.environ)) and not allowed_by_rule:
            needs.append(Need(f"`{step.text}` {why}", suggestion=bash_rule_text(step)))
        program = self._program(step.program, here)
        if program is not None and ws.contains(program) and not allowed_by_rule:
            needs.append(Need(f"`{step.text}` runs {program}, a program inside the project", hard=True))
        if step.program in VERSION_ONLY:
            why = f"{step.program} is not on PATH" if program is None else picks_elsewhere(program, engine.home)
            if why:
                needs.append(Need(f"`{step.text}`: {why}"))
        needs += self._write_needs(step, mode, here, allowed_by_rule)
        needs += self._read_needs(step, mode, here)
        if effects.git is not None:
            try:
                needs.extend(self._git_needs(step, mode))
            except CannotCheck as exc:
                needs.append(Need(f"`{step.text}` runs git, and agentui could not check the repository ({exc})"))
        return needs

    def _place_needs(self, step: Step, mode: Mode, here: Path, allowed_by_rule: bool) -> list[Need]:
        """What the command's place asks: the names it is fed, a `cd` out of the project, the directories bash lists
        to expand a glob, and its redirections."""
        engine = self.engine
        ws = engine.workspace
        effects = step.effects
        needs: list[Need] = []
        if step.names_from is not None and (not step.unknown or allowed_by_rule):
            needs.extend(self._names_needs(step, mode))  # (an allow rule says what it runs, not on which files)
        if (effects.cd is not None or effects.cd_home) and mode != "bypassPermissions":
            target = effects.cd.value if effects.cd is not None else str(self.environ.get("HOME", ""))
            if not ws.contains(self._resolve(target, here).real):
                needs.append(Need(f"`{step.text}` leaves the project", suggestion=None))

        for directory in step.listed:  # (bash lists them to expand a glob, even for `echo ~/.ssh/*`)
            if need := self._read_need(self._resolve(directory, here), mode, step=step, contents=False, listing=True):
                needs.append(need)
        for redirect, target in step.redirects:
            if target in HARMLESS_TARGETS:
                continue
            resolved = self._resolve(target, here)
            if redirect.writes and (why := self._write_need(resolved, mode)):
                needs.append(Need(why, suggestion=path_rule("Edit", resolved.real)))
            if redirect.reads and (need := self._read_need(resolved, mode)):
                needs.append(need)
        return needs

    def _write_needs(self, step: Step, mode: Mode, here: Path, allowed_by_rule: bool) -> list[Need]:
        """What a program's writes ask: a file command's (or one an allow rule lets run) each checked as an edit of
        the file it writes or removes; any other program that writes asks."""
        effects = step.effects
        needs: list[Need] = []
        write_mode: Mode = "acceptEdits" if allowed_by_rule and mode == "default" else mode
        if effects.edits or allowed_by_rule:
            for arg in [*effects.writes, *(Arg(v) for v in self._created(step))]:
                if why := self._write_need(self._resolve(arg.value, here), write_mode, bare_edit=False):
                    needs.append(Need(f"`{step.text}`, {why}", suggestion=bash_rule_text(step)))
            for tree in effects.removes:
                if why := self._write_need(self._resolve(tree.path.value, here), write_mode, bare_edit=False):
                    removed = why.removeprefix("a write to ")
                    needs.append(Need(f"`{step.text}`, which removes {removed}", suggestion=bash_rule_text(step)))
            for created in self._created(step, trees=True):
                # (cp -r copies a tree over what is there: it opens each existing file to write, through a link)
                if link := links_below(Path(self._resolve(created, here).located)):
                    needs.append(Need(f"`{step.text}` would write through {link}, a link already where it copies"))
        elif effects.writes or effects.removes:
            needs.append(Need(f"`{step.text}` writes files", suggestion=bash_rule_text(step)))
        return needs

    def _read_needs(self, step: Step, mode: Mode, here: Path) -> list[Need]:
        """What a program's reads ask: each file it reads, each it looks at (a listing of one directory, or what is
        below it), and each tree it walks."""
        effects = step.effects
        needs: list[Need] = []
        for arg in effects.reads:
            if is_names(arg) or arg.value == "/dev/null":
                continue
            own = effects.own_links and arg.value not in effects.linked
            if need := self._read_need(self._operand(arg.value, here, own), mode, step=step):
                needs.append(need)
        if not effects.anywhere:
            roots = {tree.path.value for tree in effects.trees}
            for arg in effects.looks:
                if is_names(arg):
                    continue
                resolved = self._operand(arg.value, here, effects.own_links)
                # (only what lists one directory: `du -sh ~`, `find ~` and `git -C ~ status` look at all below)
                listing = step.program in LISTERS and arg.value not in roots
                if need := self._read_need(resolved, mode, step=step, contents=False, listing=listing):
                    needs.append(need)
        for tree in effects.trees:
            if why := self._tree_need(tree, here, mode):
                needs.append(Need(f"`{step.text}` {why}", hard=True))
        return needs

    def _ruled_unknown_needs(self, step: Step, mode: Mode) -> list[Need]:
        """An allow rule lets a program run in a way agentui cannot read exactly: an argument naming a protected file
        is taken as written (asked), one naming a file outside the project, for a program agentui knows, as read;
        and git is still run only where its repository names no program."""
        here = step.place.physical
        needs: list[Need] = []
        for value in _argument_paths(step):
            resolved = self._resolve(value, here)
            reason = next((r for p in resolved.forms if (r := protected_reason(p, self.engine.config_dirs))), None)
            if reason:
                needs.append(Need(f"`{step.text}` names {value} ({reason})", hard=True, protected=True))
            elif step.program in PROGRAMS and (need := self._read_need(resolved, mode, step=step)):
                needs.append(need)
        if step.program == "git" and mode != "bypassPermissions":
            why = self.repositories.why_not(here, self.environ, may_read=self._may_read, denied=self.engine.read_denied)
            if why is not None:
                needs.append(Need(f"`{step.text}` runs git, and {why}", hard=True))
        return needs

    def _read_need(
        self,
        resolved: Resolved,
        mode: Mode,
        *,
        step: Step | None = None,
        contents: bool = True,
        listing: bool = False,
    ) -> Need | None:
        """Why reading `resolved` needs a question, or None. `contents`: the file's contents are read, not only its
        name and metadata; `listing`: only the names in it (a directory) or its metadata, not the tree below it."""
        engine = self.engine
        shown = str(resolved.real)
        if contents and any(engine.find_rule("ask", "Read", path=p) for p in resolved.forms):
            return Need(f"`{step.text if step else 'the command'}` reads {shown}", by_rule=True)
        if contents and (credential := engine.credential(Path(resolved.real))) is not None:
            what = f"`{step.text if step else 'the command'}` reads {shown}"
            return Need(f"{what}, credentials ({credential} is kept out of the tools' reach)", hard=True)
        if contents and (secret := self._in_secret_objects(Path(resolved.real))):
            return Need(
                f"`{step.text if step else 'the command'}` reads git's objects at {shown}, and {secret}", hard=True
            )
        if mode == "bypassPermissions" or engine.workspace.contains(resolved.real):
            return None
        real = resolved.real
        if public_file(real, engine.home) or (listing and public_listing(real, engine.home)):
            return None
        if all(engine.find_rule("allow", "Read", path=p, specific=True) for p in (resolved.written, resolved.real)):
            return None
        what = f"`{step.text}`" if step else "the command"
        return Need(f"{what} reads {shown}, outside the project", suggestion=path_rule("Read", resolved.real))

    def _write_need(self, resolved: Resolved, mode: Mode, *, bare_edit: bool = True) -> str | None:
        """Why writing this file needs a question, or None. `bare_edit`: a bare `Edit` allow rule covers it (a
        redirection; a file command such as `rm` runs unasked only in acceptEdits, as in Claude Code, or where
        specific Edit rules name its files)."""
        engine = self.engine
        if all(engine.find_rule("allow", "Edit", path=p, specific=True) for p in (resolved.written, resolved.real)):
            return None
        inside = engine.workspace.contains(resolved.real)
        bare = bare_edit and engine.find_rule("allow", "Edit", bare=True) is not None
        if inside and (mode in ("acceptEdits", "bypassPermissions") or bare):
            return None
        if not inside and mode == "bypassPermissions":
            return None
        return f"a write to {engine.workspace.display(resolved.real)}"

    def _tree_need(self, tree: Tree, cwd: Path, mode: Mode) -> str | None:
        engine = self.engine
        root = self._resolve(tree.path.value, cwd)
        inside = (lambda p: True) if mode == "bypassPermissions" else self._may_read
        rules = tree.contents and (
            engine.deny_could_cover(root.real)
            or engine.rule_below("ask", root.real) is not None
            or self._in_secret_objects(Path(root.real), holding=True) is not None
        )
        if not (tree.follow or rules):
            return None
        checks = WalkChecks(
            inside=inside,
            denied=(lambda p: engine.read_denied(p)) if tree.contents else None,
            masked=self._masked,
            denied_inodes=engine.denied_inodes() if tree.contents else (),
            reads=tree.reads,
            enters=tree.enters,
            skip_hidden=tree.skips_hidden and not _whitelisted(root.real),
            asked=self._asked if tree.contents else None,
            kept=self._in_secret_objects if tree.contents else None,
        )
        why = walk_problem(Path(root.written), follow=tree.follow, checks=checks)
        return f"reads everything under {tree.path.value}, and {why}" if why else None

    @cached_property
    def _enumerated(self) -> DeniedFiles | None:
        """What the deny rules cover now, as the guard enumerates it (once per check: it walks the patterns' roots)."""
        return self.engine.denied_files() if self.engine.denied_files is not None else None

    @cached_property
    def _masks(self) -> tuple[frozenset[Path], tuple[Path, ...]] | None:
        """The denied files and directories every program the command starts sees masked, or None where no mask is
        sure to apply. Outside the sandbox the guard runs the command (it is available here), inside it the sandbox:
        both mask what the Read deny rules cover, enumerated again as the command starts, so a denied file made
        between this check and the run is masked too. A denied directory that holds the project is not masked."""
        engine = self.engine
        found = self._enumerated
        if found is None or not engine.guarded() or not found.complete:
            return None
        keep = engine.workspace.directories
        directories = tuple(d for d in found.directories if not any(is_within(k, d) for k in keep))
        return frozenset(found.files), directories

    def _masked(self, real: Path) -> bool:
        """The program opening `real` (a real path) gets a mask, not the file: a denied file, or a file in a denied
        directory, that the masks cover (a hard link to a denied file is another name they do not cover)."""
        masks = self._masks
        if masks is None:
            return False
        files, directories = masks
        return real in files or any(is_within(real, d) for d in directories)

    def _asked(self, path: Path) -> bool:
        return self.engine.find_rule("ask", "Read", path=path) is not None

    def _may_read(self, real: Path) -> bool:
        engine = self.engine
        return (
            engine.workspace.contains(real) or engine.find_rule("allow", "Read", path=real, specific=True) is not None
        )

    def _names_needs(self, step: Step, mode: Mode) -> list[Need]:
        """`find DIRS | xargs CMD`: CMD reads (or looks at) the files under DIRS."""
        assert step.names_from is not None and step.names_from.names is not None
        names = step.names_from.names
        where = appended_names(step)
        if not where:
            return [Need(f"`{step.text}` does more with the file names xargs gives it than read them")]
        root = self._resolve(names.path.value, step.place.physical)
        if mode != "bypassPermissions" and not self._may_read(root.real):
            return [Need(f"`{step.text}` reads files under {root.real}, outside the project")]
        contents = where == "reads"
        checks = WalkChecks(
            inside=(lambda p: True) if mode == "bypassPermissions" else self._may_read,
            denied=(lambda p: self.engine.read_denied(p)) if contents else None,
            masked=self._masked,
            denied_inodes=self.engine.denied_inodes() if contents else (),
            split_names=step.names_from.split,
            reads=names.reads,
            opens_links=True,
            files_only=names.files_only,
            asked=self._asked if contents else None,
        )
        if names.tracked is not None:
            why = self._listed_problem(Path(root.real), names.tracked, checks)
            return [Need(f"`{step.text}` reads the files git lists, and {why}", hard=True)] if why else []
        why = walk_problem(Path(root.written), follow=names.follow, checks=checks)
        return [Need(f"`{step.text}` reads the files find lists, and {why}", hard=True)] if why else []

    def _listed_problem(self, root: Path, options: tuple[str, ...], checks: WalkChecks) -> str | None:
        """Why a name `git ls-files OPTIONS` lists in `root` must not be read unasked, or None. git is asked for the
        names now, confined as agentui's own git calls are, and each is checked where the kernel takes it: the index
        still names `docs/id_rsa` after `docs` became a link to a directory, and xargs opens it through the link."""
        from agentui.core.safety.permissions.git_repository import read_git

        try:
            listed = read_git(root, ["ls-files", "-z", *(o for o in options if o != "-z")])
        except CannotCheck as exc:
            return f"git could not be asked what it lists ({exc})"
        if listed is None:
            return "git could not be asked what it lists"
        names = [os.fsdecode(raw) for raw in listed.split(b"\0") if raw]
        if len(names) > WALK_LIMIT:
            return f"it lists more than {WALK_LIMIT:,} files, too many to check one by one"
        for name in names:
            if name.startswith("-"):
                # (find's names start with where it started; git's are bare: `-fevil.sed` would be an option)
                return f"it lists {name!r}, which the program would take for an option"
            if checks.split_names and not xargs_keeps(name):
                return f"xargs would split or unquote the name {name!r}"
            if why := opened_problem(name, self._resolve(name, root).real, checks):
                return why
        return None

    def _git_needs(self, step: Step, mode: Mode) -> list[Need]:
        engine = self.engine
        use = step.effects.git
        assert use is not None
        here = step.place.physical
        directory = self._resolve(use.directory.value, here).real if use.directory is not None else here
        repositories = self.repositories
        if mode != "bypassPermissions":
            why = repositories.why_not(directory, self.environ, may_read=self._may_read, denied=engine.read_denied)
            if why is not None:
                return [Need(f"`{step.text}` runs git, and {why}", hard=True)]
        repository = repositories.find(directory)
        if repository is None:
            return []
        needs: list[Need] = []
        if use.subcommand == "config":  # (it prints what the configuration files hold)
            needs.extend(self._config_needs(step, use, directory, mode))
        top = repository.top
        rules_reach = top is not None and (engine.deny_could_cover(top) or engine.rule_below("ask", top) is not None)
        showing = use.content or (rules_reach and use.subcommand in _SHOWING)
        if showing and mode != "bypassPermissions":
            # (what the repository holds is read whole: it must be the project's, or somewhere the command may read)
            for place in (top, repository.git_dir, repository.common_dir):
                if place is not None and not self._may_read(Path(os.path.realpath(place))):
                    return [
                        *needs,
                        Need(f"`{step.text}` shows contents of a repository at {place}, outside the project"),
                    ]
        if showing and rules_reach and top is not None:
            # (names and messages only, unless a revision names a blob: `git show -s BLOB` prints it)
            needs.extend(self._git_history_needs(step, use, directory, top, names=use.content))
        if use.work_tree:
            for tree in [Tree(walk, follow=False, contents=True) for walk in use.walks] or [_tree_of(step, directory)]:
                if tree_why := self._tree_need(tree, here, mode):
                    needs.append(Need(f"`{step.text}` {tree_why}", hard=True))
                    break
        return needs

    def _config_needs(self, step: Step, use: GitUse, directory: Path, mode: Mode) -> list[Need]:
        """`git config` prints entries: from a file a rule keeps from reading, never unasked; from a file outside
        the project (your ~/.gitconfig), only the keys known to hold no secret (a URL or header can hold a token)."""
        engine = self.engine
        for entry in self.repositories.entries(directory) or []:
            if entry.origin is None or (use.scopes and entry.scope not in use.scopes):
                continue
            if use.printed is not None and config_key(entry.key) not in use.printed:
                continue
            if engine.read_denied(entry.origin) or engine.find_rule("ask", "Read", path=entry.origin):
                return [Need(f"`{step.text}` prints {entry.origin}, which a rule keeps from reading")]
            plain = config_key(entry.key) in PLAIN_CONFIG_KEYS
            if mode != "bypassPermissions" and not plain and not self._may_read(entry.origin):
                return [Need(f"`{step.text}` prints {entry.key} from {entry.origin}, outside the project")]
        return []

    def _git_history_needs(self, step: Step, use: GitUse, directory: Path, top: Path, *, names: bool) -> list[Need]:
        """A deny or ask rule reaches into the repository: what git could show must hold nothing it covers (the
        index, every ref, every reflog; with `names`), and no revision may name a blob by its hash (a dangling one
        is in no listing)."""
        engine = self.engine
        repositories = self.repositories
        repository = repositories.find(directory)
        listed = repositories.names(repository) if names else set()  # type: ignore[arg-type]
        if listed is None:
            return [Need(f"`{step.text}` shows contents git could not list to check against the rules")]
        for name in listed:
            path = top / name
            if engine.read_denied(path):
                return [Need(f"`{step.text}` can show {name}, which a deny rule covers, from git's history", hard=True)]
            if engine.find_rule("ask", "Read", path=path):
                return [Need(f"`{step.text}` can show {name}, which an ask rule covers", by_rule=True)]
        for revision in use.revisions:
            for part in re.split(r"\.\.\.?", revision.value.lstrip("^")):
                base = part.split(":", 1)[0]  # (REV:path: the path is among the names above, if REV is reached)
                if not base or _plain_revision(base):
                    continue
                if repositories.object_type(directory, base) not in ("commit", "tag", "tree"):
                    return [Need(f"`{step.text}` names an object ({part}) that may be any file's contents")]
                if repository is None or not repositories.reaches(repository, base):
                    return [Need(f"`{step.text}` names {base}, which git's history does not reach (a dropped stash, "
                                 "say), so what it holds was never checked against the rules")]  # fmt: skip
        return []


_SHOWING = frozenset({"log", "whatchanged", "show", "diff", "diff-tree", "diff-index", "diff-files", "stash",
                      "grep", "blame", "annotate", "reflog", "rev-list", "shortlog"})  # fmt: skip
"""git subcommands that can show a file's contents, whatever their options say (`git show -s BLOB` prints it).
(Not cat-file: -t, -s and -e, which git takes alone, print only a type, a size or nothing.)"""
_REVISION = re.compile(r"(HEAD|[A-Za-z][\w./-]*)([~^]\d*)*")


def _plain_revision(value: str) -> bool:
    """A revision git could not take for a blob's hash: HEAD, a branch or tag name, with ~ and ^."""
    base = re.sub(r"([~^]\d*)+$", "", value)  # (`abc123^3`: the hash is what names the object)
    return _REVISION.fullmatch(value) is not None and not re.fullmatch(r"[0-9a-fA-F]{4,64}", base)


_LEAVE_PATHS_BE = frozenset({"rm", "rmdir", "touch", "sed"})
"""File commands that make no link and no directory and move nothing: the paths after them still lead where the
check saw them lead. (Not before git: removing or rewriting a `.git` file changes which repository it reads.)"""
_READ_BY_THE_CHECK = (".gitignore", ".ignore", ".rgignore", ".fdignore", ".gitattributes", ".gitmodules", ".git")
"""Files the check reads to judge a later program (which files ripgrep reads, what git runs): changed first, they
would make that judgement stale."""


def _leaves_paths_be(step: Step, later: list[Step]) -> bool:
    """`step` changes nothing the checks of `later` read from the disk. Not where a later step has a glob (a name
    `touch` makes, like `-t.git`, would join its arguments, as an option; a name `rm` takes away would leave the
    pattern itself, a name the check never resolved), runs git, or is fed names by find (xargs)."""
    if step.effects.edits and step.program not in _LEAVE_PATHS_BE:
        return False
    if any(other.listed or other.effects.git or other.names_from is not None for other in later):
        return False
    changed = [*(arg.value for arg in step.effects.writes), *(tree.path.value for tree in step.effects.removes)]
    changed += _redirected_files(step)
    return not any(
        part in _READ_BY_THE_CHECK or part.startswith(".git") for value in changed for part in value.split("/")
    )


_WRITE_NOTHING = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})


def _redirected_files(step: Step) -> list[str]:
    """The files a step's redirections create or write (`echo x > ./-t.git` makes a name as touch would)."""
    return [target for opening, target in step.redirects if opening.writes and target not in _WRITE_NOTHING]


def _writes_before_more(plan: Understood) -> str | None:
    """Every path of a command is checked against the disk as it is before the command runs; a file command that
    makes a link, moves a directory or creates one, followed by more (or beside more, in a pipeline), would have
    those paths mean something else by then. So a file command runs unasked only as the command's last part."""
    steps = plan.steps
    for step in steps:
        if not step.effects.edits and not _redirected_files(step):
            continue
        # (by pipeline, not by text: `rg x * > --pre=sh; rg x *` is the same text twice, one after the other)
        later = [other for other in steps if other.pipeline > step.pipeline]
        in_pipeline = len(plan.syntax.pipelines[step.pipeline].commands) > 1
        if not in_pipeline and _leaves_paths_be(step, later):
            continue  # (`rm draft.txt && sed -i … calc.py`: nothing it does can make a later path lead elsewhere)
        if later or in_pipeline:
            return f"`{step.text}` changes files and the command goes on after it"
    return None


_IGNORE_FILES = (".ignore", ".rgignore", ".gitignore")


def _whitelisted(root: Path) -> bool:
    """Some ignore file ripgrep reads for `root` names files back in (`!name`): a hidden file may then be read after
    all. Those in the tree (bounded), in its parents, and the repository's info/exclude are looked at."""
    candidates = [d / name for d in (root, *root.parents) for name in _IGNORE_FILES]
    walked = _bounded_walk(root)
    if walked is None:
        return True  # (too large to look through: assume the worst)
    for directory, _dirs, names in walked:
        candidates += [Path(directory, n) for n in names if n in _IGNORE_FILES]
    candidates += [d / ".git" / "info" / "exclude" for d in (root, *root.parents)]
    home = Path(os.environ.get("HOME") or Path.home())
    candidates += [Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "git" / "ignore", home / ".gitignore"]
    for path in candidates:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                if any(line.lstrip().startswith("!") for line in handle):
                    return True
        except OSError:
            continue
    return False


def _bounded_walk(root: Path, limit: int = 50_000) -> list[tuple[str, list[str], list[str]]] | None:
    """os.walk's listing of `root`, or None past `limit` entries."""
    found = []
    count = 0
    for entry in os.walk(root):
        found.append(entry)
        count += len(entry[1]) + len(entry[2])
        if count > limit:
            return None
    return found


def _argument_paths(step: Step) -> list[str]:
    """Every argument of a command that could name a file: operands, the values of `--option=value`, and every
    tail of a short option word (`-pf.env` may be -p -f .env, as getopt reads it)."""
    found: list[str] = []
    for arg in step.args:
        value = arg.value
        if is_names(arg):
            continue
        if value.startswith("--"):
            _, equals, attached = value.partition("=")
            if equals and attached:
                found.append(attached)
            continue
        if value.startswith("-") and len(value) > 2:
            found += [value[index:] for index in range(2, len(value))]
            _, equals, attached = value.partition("=")
            if equals and attached:
                found.append(attached)
            continue
        if not value.startswith("-"):
            found.append(value)
    return found


def _environment_options(step: Step, environ: Mapping[str, str]) -> str | None:
    """A program that takes more options from a file the environment names: what it would read is not known."""
    if (
        step.program == "rg"
        and environ.get("RIPGREP_CONFIG_PATH")
        and "--no-config" not in (a.value for a in step.args)
    ):
        return "reads more options from $RIPGREP_CONFIG_PATH"
    return None


def _tree_of(step: Step, directory: Path) -> Tree:
    return Tree(Arg(str(directory)), follow=False, contents=True)


# The rules a "don't ask again" answer adds

_SUBCOMMAND_PROGRAMS = frozenset(
    {
        "git", "npm", "pnpm", "yarn", "bun", "npx", "cargo", "go", "docker", "kubectl", "pip", "pip3", "uv",
        "poetry", "make", "dotnet", "gradle", "mvn", "brew", "gh", "terraform", "helm", "rustup", "deno",
        "composer", "bundle", "rake", "mix", "flutter", "swift", "pytest", "tox", "nox", "just",
    }
)  # fmt: skip


def bash_rule(sub: SimpleCommand) -> str:
    """A subcommand prefix for tools like git and npm, else the exact command."""
    first = sub.words[0] if sub.words else None
    if sub.name in _SUBCOMMAND_PROGRAMS and first and not first.startswith("-") and not sub.assignments:
        return f"Bash({sub.name} {first}:*)"
    return f"Bash({sub.full_text})"


def bash_rule_text(step: Step) -> str:
    words = step.text.split()
    if step.program in _SUBCOMMAND_PROGRAMS and len(words) > 1 and not words[1].startswith("-"):
        return f"Bash({words[0]} {words[1]}:*)"
    return f"Bash({' '.join(words)})"


def path_rule(family: str, path: Path, *, tree: bool = False) -> str:
    absolute = "//" + str(path).lstrip("/")
    return f"{family}({absolute}/**)" if tree else f"{family}({absolute})"
