"""Opening a project: its settings files and trust, the flags, and from them the permission engine, the hooks and
the tools an agent works with. Every front end opens a project the same way."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agentui.core.change_queue import PLAN_QUEUE_VARIABLE, ChangeQueue
from agentui.core.claude_settings import (
    SettingsSource,
    add_allow_rule,
    flag_settings,
    load_sources,
    most_specific_first,
)
from agentui.core.dirs import claude_config_dir, config_dir
from agentui.core.errors import AgentuiError
from agentui.core.extend.hooks import Hooks, specs_from
from agentui.core.extend.status_line import StatusLine, status_line_setting
from agentui.core.safety.environ import child_environment
from agentui.core.safety.guard import Guard
from agentui.core.safety.permissions.engine import MODES, Mode, PermissionEngine
from agentui.core.safety.permissions.rules import (
    EDIT_FAMILY,
    READ_FAMILY,
    Behavior,
    PathPattern,
    Rule,
    RuleError,
    parse_rule,
)
from agentui.core.safety.trust import is_trusted
from agentui.core.tools import builtin_tools
from agentui.core.tools.base import ToolRegistry
from agentui.core.tools.tasks import TaskCreate, TaskUpdate
from agentui.core.workspace import Workspace

if TYPE_CHECKING:
    from agentui.core.extend.command_prompt import CommandPrompt
    from agentui.core.safety.sandbox import Sandbox

_PERMISSIVE_MODES = {"acceptEdits", "bypassPermissions"}


class ProjectError(AgentuiError):
    """The project's settings or the permission flags cannot be used; one sentence says why."""


@dataclass(frozen=True)
class PermissionOptions:
    """What the command line says about permissions."""

    mode: Mode | None = None
    allowed_tools: tuple[str, ...] = ()
    disallowed_tools: tuple[str, ...] = ()
    add_dirs: tuple[Path, ...] = ()
    setting_sources: tuple[str, ...] | None = None
    """--setting-sources: which of the user, project and local settings files to read (None: all; managed always)."""
    settings_flag: str | None = None
    """--settings: one more settings file, or its JSON written out, above the local file."""
    bypass_available: bool = False
    """--allow-dangerously-skip-permissions: bypassPermissions is one of the modes to switch to, not the first."""
    queue_changes: bool = False
    """--permission-mode plan-queue (or the setting): in plan mode, the model's edits are queued for the plan's
    approval instead of refused."""


@dataclass
class Project:
    root: Path
    workspace: Workspace
    engine: PermissionEngine
    hooks: Hooks
    tools: ToolRegistry
    trusted: bool
    sources: list[SettingsSource]
    notices: list[str] = field(default_factory=list)
    """Things the person should know before the run starts (settings held back, rules ignored)."""
    held_back: list[str] = field(default_factory=list)
    """What of the project's own settings waits for trust (allow rules, hooks, ...): what trusting it would apply."""
    status_line: StatusLine | None = None
    """The settings' statusLine command, ready to run (a project's own once it is trusted)."""
    next_command: CommandPrompt | None = None
    """The custom command the next prompt was expanded from (what of it runs with that prompt)."""


def split_tool_list(values: Iterable[str]) -> list[str]:
    """`--allowedTools "Bash(git log:*) Edit,Read"` -> the rules, split on commas and spaces outside parentheses."""
    rules: list[str] = []
    for value in values:
        depth, current = 0, ""
        for char in value:
            if char == "(":
                depth += 1
            elif char == ")":
                depth = max(0, depth - 1)
            if depth == 0 and (char == "," or char.isspace()):
                if current.strip():
                    rules.append(current.strip())
                current = ""
            else:
                current += char
        if current.strip():
            rules.append(current.strip())
    return rules


def open_project(
    root: Path,
    options: PermissionOptions = PermissionOptions(),
    *,
    env: Mapping[str, str] | None = None,
    trusted: bool | None = None,
) -> Project:
    env = os.environ if env is None else env
    root = Path(os.path.realpath(root))
    home = Path(env.get("HOME") or Path.home())
    sources = settings_sources(root, env, options)
    trusted = is_trusted(root, env) if trusted is None else trusted
    notices: list[str] = []
    held_back: list[str] = []

    rules = _rules(sources, options, root, home, trusted, notices, held_back)
    mode = options.mode or _settings_mode(sources, trusted, notices, held_back)
    directories, settings_env = _granted(sources, options, root, home, trusted, notices, held_back)
    if not trusted and any(source.from_project and source.settings.hooks for source in sources):
        held_back.append("hooks")
    from agentui.core.extend.plugins.enabled import plugin_parts
    from agentui.core.extend.plugins.hooks import plugin_hook_specs

    plugin_hooks = plugin_hook_specs(root, env, trusted=trusted)
    if not trusted and len(plugin_hook_specs(root, env, trusted=True)) > len(plugin_hooks):
        held_back.append("the hooks of plugins it turns on")
    status_setting = status_line_setting(sources, trusted, notices, held_back)
    if held_back:
        notices.append(
            f"This project's own .claude settings ({', '.join(dict.fromkeys(held_back))}) are not applied because "
            "the project is not trusted yet; run agentui here interactively once to trust it."
        )

    workspace = Workspace(root=root, additional_dirs=tuple(d for d in directories if d.is_dir()))
    sandbox = _sandbox(sources, trusted, workspace, home, notices, env)
    engine = PermissionEngine(
        workspace,
        rules,
        mode,
        home=home,
        config_dirs=(config_dir(env), claude_config_dir(env), *plugin_parts(root, env)),
        persist=lambda rule: _persist(root, rule, env),
    )
    workspace.changes = ChangeQueue(engine, enabled=options.queue_changes or env.get(PLAN_QUEUE_VARIABLE) == "1")
    engine.changes = workspace.changes
    guard = Guard(workspace, home=home, env=env)
    hooks = Hooks(
        specs_from(sources, trusted=trusted) + plugin_hooks,
        cwd=root,
        env={**env, **settings_env},
        permission_mode=lambda: engine.mode,
        guard=guard,
    )
    hooks.where = lambda: workspace.shell_cwd or root
    engine.sandbox = sandbox
    tools = builtin_tools(
        workspace, env=settings_env, sandbox=sandbox, modes=engine, plans_dir=claude_config_dir(env) / "plans"
    )
    tools.withheld = engine.withholds  # (a tool a deny rule names whole is not offered, as in Claude Code)
    for task_tool in (tools.get("TaskCreate"), tools.get("TaskUpdate")):
        if isinstance(task_tool, TaskCreate | TaskUpdate):
            task_tool.hook = hooks.task_event
    _confine(engine, sandbox, tools, guard, env)
    status_line = None
    if status_setting is not None:  # (given what Bash's commands are given: no secrets, the settings' env)
        status_env = child_environment(env, settings_env)
        status_line = StatusLine(status_setting, cwd=root, env=status_env, guard=guard)
    held = list(dict.fromkeys(held_back))
    return Project(root, workspace, engine, hooks, tools, trusted, sources, notices, held, status_line)


def settings_sources(root: Path, env: Mapping[str, str], options: PermissionOptions) -> list[SettingsSource]:
    """The settings files in force, as --setting-sources and --settings say; ProjectError for one that is broken."""
    from agentui.core.claude_settings import SettingsError

    try:
        sources = load_sources(root, env)
        if options.setting_sources is not None:
            sources = [s for s in sources if s.name == "managed" or s.name in options.setting_sources]
        if options.settings_flag is not None:
            sources.insert(len([s for s in sources if s.name != "managed"]), flag_settings(options.settings_flag))
    except SettingsError as exc:
        raise ProjectError(str(exc)) from None
    return sources


def _rules(
    sources: list[SettingsSource],
    options: PermissionOptions,
    root: Path,
    home: Path,
    trusted: bool,
    notices: list[str],
    held_back: list[str],
) -> list[Rule]:
    """The permission rules of the settings and the flags. An untrusted project's allow rules are held back (said in
    `held_back`), a rule that cannot be parsed is ignored (said in `notices`)."""
    rules: list[Rule] = []
    for source in sources:
        settings_root = root if source.from_project else home
        for behavior in ("deny", "ask", "allow"):
            texts = getattr(source.settings.permissions, behavior)
            if behavior == "allow" and source.from_project and not trusted:
                if texts:
                    held_back.append(f"{len(texts)} allow rule{'s' if len(texts) > 1 else ''}")
                continue
            for text in texts:
                try:
                    rules.append(
                        parse_rule(
                            text, behavior, source.name, project_root=root, home=home, settings_root=settings_root
                        )
                    )
                except RuleError as exc:
                    notices.append(f"{source.path}: {exc}; that rule is ignored.")
    for behavior, values in (("deny", options.disallowed_tools), ("allow", options.allowed_tools)):
        for text in split_tool_list(values):
            rules.append(_flag_rule(text, behavior, root, home))  # type: ignore[arg-type]
    return rules


def _granted(
    sources: list[SettingsSource],
    options: PermissionOptions,
    root: Path,
    home: Path,
    trusted: bool,
    notices: list[str],
    held_back: list[str],
) -> tuple[list[Path], dict[str, str]]:
    """The directories the tools may also work in, and the environment the settings give; an untrusted project's
    are held back (said in `held_back`)."""
    directories = list(options.add_dirs)
    settings_env: dict[str, str] = {}
    for source in sources:
        granted = trusted or not source.from_project
        if source.settings.permissions.additionalDirectories:
            if granted:
                base = root if source.from_project else home
                directories += [
                    base / Path(os.path.expanduser(d)) for d in source.settings.permissions.additionalDirectories
                ]
            else:
                held_back.append("additional directories")
        if coerced := source.settings.coerced_env():
            notices.append(
                f"{source.path} gives {', '.join(coerced)} as {'a value' if len(coerced) == 1 else 'values'} that "
                "should be text; used as the text shown, as Claude Code does."
            )
        if source.settings.env:
            if granted:
                settings_env.update(source.settings.env)
            else:
                held_back.append("environment variables")
    return directories, settings_env


def _persist(root: Path, rule: str, env: Mapping[str, str]) -> None:
    """An "always" answer: the rule goes to the project's local settings, and the project counts as trusted from
    now on. The person chose, working in it, to let the project keep a rule; holding that rule back at the next
    start as an untrusted project's setting (and asking to trust it) would be asking twice."""
    from agentui.core.safety.trust import trust

    add_allow_rule(root, rule)
    trust(root, env)


def _sandbox(
    sources: list[SettingsSource],
    trusted: bool,
    workspace: Workspace,
    home: Path,
    notices: list[str],
    env: Mapping[str, str],
) -> Sandbox | None:
    """The sandbox the settings ask for. An untrusted project's own settings may turn it on, never loosen it; and no
    project's settings, trusted or not, may open Unix sockets (`network.allowAllUnixSockets`: the person's own only)."""
    from agentui.core.safety.sandbox import Sandbox, SandboxConfig

    blocks = []
    for source in sources:
        block = source.settings.sandbox_block()
        if isinstance(block, dict) and source.from_project and not trusted:
            block = {"enabled": True} if block.get("enabled") is True else {}
        elif isinstance(block, dict) and source.from_project and isinstance(block.get("network"), dict):
            network = {k: v for k, v in block["network"].items() if k != "allowAllUnixSockets"}
            block = {**block, "network": network}
        blocks.append(block)
    config = SandboxConfig.merged(blocks)
    if not config.enabled:
        return None
    own = [b for b, s in zip(blocks, sources, strict=True) if isinstance(b, dict) and not s.from_project]
    if not trusted and not SandboxConfig.merged(own).enabled:
        # Turned on by an untrusted project alone: commands run sandboxed, but none without a question unless the
        # person's own settings say so.
        explicit = [b["autoAllowBashIfSandboxed"] for b in own if "autoAllowBashIfSandboxed" in b]
        config = dataclasses.replace(config, auto_allow=bool(explicit and explicit[-1] is True))
    sandbox = Sandbox(config, workspace, home=home, env=env)
    if problem := sandbox.problem():
        notices.append(f"The sandbox is on but cannot run here: {problem}; every Bash command will ask first.")
    return sandbox


def _confine(
    engine: PermissionEngine, sandbox: Sandbox | None, tools: ToolRegistry, guard: Guard, env: Mapping[str, str]
) -> None:
    """The sandbox and the guard (Bash's outside the sandbox, and the hooks') mask what the Read deny rules cover, as
    they stand before each command; the engine knows whether the guard can run here, which credentials the
    environment names and which of the person's secrets a working directory holds; stand-ins a crashed agentui left
    behind are removed."""
    from agentui.core.dirs import state_dir
    from agentui.core.safety.sandbox_hidden import KeptOut, pointed_credentials
    from agentui.core.safety.standins import recover, registry_in
    from agentui.core.tools.bash import Bash

    if sandbox is not None:
        sandbox.read_denials = lambda: _read_denials(engine)
        sandbox.edit_denials = lambda: _edit_denials(engine)
    guard.read_denials = lambda: _read_denials(engine)
    guard.edit_denials = lambda: _edit_denials(engine)
    # Resolved once, as they lead when agentui starts: a link along the way changed later cannot move the protection
    # off the real file (and no check pays for resolving them again).
    named = tuple(dict.fromkeys(Path(os.path.realpath(path)) for path in pointed_credentials(env)))
    engine.credentials = lambda: named
    kept = KeptOut(engine.home, env)
    engine.kept_out = lambda path: kept(path, engine.workspace.directories)
    engine.denied_files = lambda: guard.denied()
    bash = tools.get("Bash")
    if isinstance(bash, Bash):
        bash.guard = guard
        engine.bash_environ = bash.environment  # (what the commands' words expand from, exactly)
    engine.guard_available = lambda: guard.available
    for registry in dict.fromkeys([registry_in(env), state_dir(env) / "standins"]):  # (older versions: the state's)
        recover(registry)


def _read_denials(engine: PermissionEngine) -> list[PathPattern]:
    """The paths of the Read-family deny rules; a rule without one denies every file (the root, whole)."""
    return _denials(engine, READ_FAMILY)


def _edit_denials(engine: PermissionEngine) -> list[PathPattern]:
    """The paths the Edit-family deny rules name (a bare `Edit` deny keeps the Edit tool from every file, not
    every program from writing), and the configuration directories that lie in a writable one (an enabled plugin
    read where it lies in the project: its hooks would run what a command wrote there)."""
    import pathspec

    from agentui.core.workspace import is_within

    denied = [rule.path for rule in engine.rules if rule.behavior == "deny" and rule.tool in EDIT_FAMILY and rule.path]
    writable = engine.workspace.directories
    held = [path for path in engine.config_dirs if any(is_within(path, directory) for directory in writable)]
    return denied + [PathPattern(path, "", pathspec.PathSpec([])) for path in held]


def _denials(engine: PermissionEngine, family: frozenset[str]) -> list[PathPattern]:
    """The paths of one family's deny rules; a rule without one denies every file (the root, whole)."""
    import pathspec

    patterns = []
    for rule in engine.rules:
        if rule.behavior == "deny" and rule.tool in family:
            patterns.append(rule.path or PathPattern(Path("/"), "", pathspec.PathSpec([])))
    return patterns


def _flag_rule(text: str, behavior: Behavior, root: Path, home: Path) -> Rule:
    try:
        return parse_rule(text, behavior, "cli", project_root=root, home=home)
    except RuleError as exc:
        flag = "--allowedTools" if behavior == "allow" else "--disallowedTools"
        raise ProjectError(f"{flag}: {exc}.") from None


def _settings_mode(sources: list[SettingsSource], trusted: bool, notices: list[str], held_back: list[str]) -> Mode:
    """The defaultMode of the most specific settings file that sets one (managed, then --settings, local, project,
    user); a project's permissive mode only once it is trusted."""
    for source in most_specific_first(sources):
        mode = source.settings.permissions.defaultMode
        if mode is None:
            continue
        if mode not in MODES:
            notices.append(f"{source.path}: unknown defaultMode {mode!r}; using default.")
            continue
        if source.from_project and not trusted and mode in _PERMISSIVE_MODES:
            held_back.append(f"defaultMode {mode}")
            continue
        return mode
    return "default"
