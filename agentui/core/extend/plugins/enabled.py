"""The plugins that are on for a project and where each part of them lies: on when the settings' `enabledPlugins`
says so (the local file over the project's over the person's, as Claude Code merges them) and installed. What a
plugin brings, as Claude Code finds it: `commands/`, `agents/`, `skills/`, `hooks/hooks.json` and `.mcp.json`, and
the paths or inline objects its `plugin.json` gives for them, read from the installed copy (or, from a folder
marketplace, from that folder, as Claude Code reads it). Its parts are named after it (`/hello:hi`, the agent
`hello:greeter`, the MCP server `plugin:hello:hellosrv`); `${CLAUDE_PLUGIN_ROOT}` is its directory."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agentui.core.extend.plugins.files import (
    SCOPES,
    PluginError,
    inside,
    plugins_dir,
    read_object,
    settings_file,
)

Part = Literal["commands", "agents", "skills"]
SHELL_PLAIN = frozenset(" /._+-,:@%=")
"""Characters besides letters and digits a shell reads as themselves in and out of quotes."""
LOCAL = ("directory", "file")
MANIFEST_PATHS = {"commands": "commands", "agents": "agents", "skills": "skills", "hooks": "hooks/hooks.json",
                  "mcpServers": ".mcp.json"}  # fmt: skip
"""What `plugin.json` may point to, and where each is when it does not."""
PARTS = (".claude-plugin", "hooks", "commands", "agents", "skills", ".mcp.json")
"""Marketplaces read where they are (not cloned)."""
SESSION_PLUGIN_DIRS = "AGENTUI_PLUGIN_DIRS"
"""The plugin directories loaded for this session only (Claude Code's --plugin-dir, the Agent SDKs' local plugins),
separated as PATH is: set by the command line, read wherever the enabled plugins are."""


@dataclass(frozen=True)
class Plugin:
    id: str
    """`name@marketplace`."""
    name: str
    root: Path
    from_project: bool
    """Turned on by the project's own settings (project or local file): its hooks wait for the project's trust."""
    data_dir: Path
    """`${CLAUDE_PLUGIN_DATA}`: where Claude Code gives the plugin a place of its own to write."""

    def variables(self) -> dict[str, str]:
        return {"CLAUDE_PLUGIN_ROOT": str(self.root), "CLAUDE_PLUGIN_DATA": str(self.data_dir)}

    def expand(self, text: str) -> str:
        for name, value in self.variables().items():
            text = text.replace("${" + name + "}", value)
        return text

    def expand_for_shell(self, command: str) -> str:
        """A hook's command with its directories written in as Claude Code writes them, where that is safe: a
        directory whose name the shell would read as code (`$(...)`, a quote, a backquote) is left as the variable,
        which the shell then expands from the hook's environment as plain text."""
        for name, value in self.variables().items():
            if all(char.isalnum() or char in SHELL_PLAIN for char in value):
                command = command.replace("${" + name + "}", value)
        return command

    def manifest(self) -> dict[str, Any]:
        path = inside(self.root, ".claude-plugin/plugin.json")  # (not one linking out of the plugin)
        try:
            return read_object(path) if path is not None else {}
        except PluginError:
            return {}


def enabled_plugins(project_root: Path, env: Mapping[str, str] | None = None) -> list[Plugin]:
    """The plugins on for this project, by id."""
    from agentui.core.extend.plugins.installing import installed_entries
    from agentui.core.safety.trust import is_trusted

    switched: dict[str, tuple[bool, bool]] = {}
    for scope in SCOPES:
        try:
            chosen = read_object(settings_file(scope, project_root, env)).get("enabledPlugins")
        except PluginError:
            continue  # (a broken settings file is reported where the settings are read)
        for plugin_id, on in (chosen or {}).items() if isinstance(chosen, dict) else ():
            persons = switched.get(plugin_id) == (True, False)  # (on in the person's own settings)
            if scope != "user" and persons and on is not True and not is_trusted(project_root, env):
                continue  # (a project not trusted yet cannot turn off the person's plugin: its hooks may guard them)
            switched[plugin_id] = (on is True, scope != "user" and not (persons and on is True))
    try:
        installed = installed_entries(env)
    except PluginError:
        return session_plugins(env)
    found = []
    for plugin_id, (on, from_project) in sorted(switched.items()):
        entries = installed.get(plugin_id, [])
        paths = [Path(str(e["installPath"])) for e in _nearest(entries, project_root) if e.get("installPath")]
        paths = [live, *paths] if on and entries and (live := _live_root(plugin_id, env)) is not None else paths
        root = next((path for path in paths if path.is_dir()), None)
        if on and root is not None:
            data = plugins_dir(env) / "data" / plugin_id.replace("@", "-")
            found.append(Plugin(plugin_id, plugin_id.partition("@")[0], root, from_project, data))
    return [*found, *session_plugins(env)]


def session_plugins(env: Mapping[str, str] | None = None) -> list[Plugin]:
    """The plugins loaded from directories for this session (`--plugin-dir`), as Claude Code names them:
    `<name>@inline`, the name from the directory's `plugin.json`, else the directory's own. The person named them on
    the command line, so they count as theirs, not the project's."""
    value = (os.environ if env is None else env).get(SESSION_PLUGIN_DIRS, "")
    found = []
    for entry in dict.fromkeys(part for part in value.split(os.pathsep) if part):
        root = Path(entry)
        if not root.is_dir():
            continue
        named = Plugin("", root.name, root, False, root).manifest().get("name")
        name = named if isinstance(named, str) and named.strip() else root.name
        data = plugins_dir(env) / "data" / f"{name}-inline"
        found.append(Plugin(f"{name}@inline", name, root, False, data))
    return found


def plugin_parts(project_root: Path, env: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """Where each enabled plugin's parts lie (its manifest, hooks, commands, agents, skills and MCP servers, and
    what its manifest names for them), for the permission engine and the sandbox to keep as they keep the
    configuration: what is written there becomes hooks that run and grants that hold with no question asked (a folder
    marketplace's plugin is read where it lies, which may be in the project, where edits are otherwise allowed)."""
    from agentui.core.extend.plugins.marketplaces import MANIFEST, marketplace

    found: dict[Path, None] = {}
    for plugin in enabled_plugins(project_root, env):
        found.update(dict.fromkeys(plugin.root / part for part in PARTS))
        for key, default in MANIFEST_PATHS.items():
            found.update(dict.fromkeys(_paths(plugin, key, default)))
        try:  # (a folder marketplace's manifest too: it says which folder is the plugin)
            market = marketplace(plugin.id.partition("@")[2], env)
        except PluginError:
            continue
        if market.source.get("source") in LOCAL:
            found[market.location if market.location.is_file() else market.root / MANIFEST.parent] = None
    return tuple(found)


def _live_root(plugin_id: str, env: Mapping[str, str] | None) -> Path | None:
    """Where Claude Code reads a plugin from a folder marketplace (a relative source): that folder itself, not the
    copy installed, so a change there is used at once."""
    from agentui.core.extend.plugins.marketplaces import listed_plugin, marketplace

    name, _, market_name = plugin_id.partition("@")
    try:
        market = marketplace(market_name, env)
        source = listed_plugin(market, name).get("source") if market.source.get("source") in LOCAL else None
    except PluginError:
        return None
    path = inside(market.root, source) if isinstance(source, str) else None
    return path if path is not None and path.is_dir() else None


def _nearest(entries: list[dict[str, Any]], project_root: Path) -> list[dict[str, Any]]:
    """Installs for this project first (local, project), then the person's."""
    here = [e for e in entries if e.get("projectPath") == str(project_root)]
    return [*sorted(here, key=lambda e: e.get("scope") != "local"), *(e for e in entries if e.get("scope") == "user")]


def part_directories(part: Part, project_root: Path, env: Mapping[str, str] | None = None) -> list[tuple[Plugin, Path]]:
    """Each enabled plugin's directories of `part`: the default one and those its manifest adds."""
    found = []
    for plugin in enabled_plugins(project_root, env):
        for path in _paths(plugin, part, part):
            if path.is_dir():
                found.append((plugin, path))
    return found


def _paths(plugin: Plugin, key: str, default: str) -> list[Path]:
    """The default path and the ones `plugin.json`'s `key` adds (a path or a list of them), each that exists and
    lies inside the plugin (links resolved: a `hooks/hooks.json` linking out of it is left out as a listed path is)."""
    given = plugin.manifest().get(key)
    listed = given if isinstance(given, list) else [given]
    paths = [plugin.root / default] if inside(plugin.root, default) is not None else []  # (named as written)
    for value in listed:
        if isinstance(value, str) and (path := inside(plugin.root, value)) is not None and path not in paths:
            paths.append(path)
    return paths


def inline_or_files(plugin: Plugin, key: str, default: str) -> list[tuple[Any, str]]:
    """For hooks and MCP servers: each object `plugin.json` gives inline, and each file's (the default file and the
    ones it names), with where it came from; a file that cannot be read is left out."""
    found: list[tuple[Any, str]] = []
    given = plugin.manifest().get(key)
    if isinstance(given, dict):
        found.append((given, f"{plugin.root / '.claude-plugin' / 'plugin.json'}"))
    for path in _paths(plugin, key, default):
        if path.is_file():
            try:
                found.append((read_object(path), str(path)))
            except PluginError:
                continue
    return found


ServerEntry = tuple[str, dict[str, Any], str, Plugin]


def mcp_server_entries(project_root: Path, env: Mapping[str, str] | None = None) -> list[ServerEntry]:
    """Each enabled plugin's MCP servers as (name, entry, where from, plugin): named `plugin:<plugin>:<server>`, the
    plugin's variables in the entry's environment, as Claude Code gives them."""
    found = []
    for plugin in enabled_plugins(project_root, env):
        for data, source in inline_or_files(plugin, "mcpServers", ".mcp.json"):
            servers = data.get("mcpServers", data) if isinstance(data, dict) else None
            for name, entry in servers.items() if isinstance(servers, dict) else ():
                if isinstance(entry, dict):
                    given = entry["env"] if isinstance(entry.get("env"), dict) else {}
                    entry = {**entry, "env": {**plugin.variables(), **given}}
                    found.append((f"plugin:{plugin.name}:{name}", entry, source, plugin))
    return found


def plugins_in_use(project_root: Path, env: Mapping[str, str] | None = None) -> list[dict[str, str]]:
    """The enabled plugins as Claude Code's stream-json init and the SDK's reload_plugins name them: name, the
    directory it is read from, and its `name@marketplace`."""
    return [{"name": p.name, "path": str(p.root), "source": p.id} for p in enabled_plugins(project_root, env)]


def plugins_json(env: Mapping[str, str] | None, project_root: Path) -> list[dict[str, Any]]:
    """Installed plugins as `claude plugin list --json` gives them: id, version, scope, enabled, installPath..."""
    from agentui.core.extend.plugins.installing import installed_entries

    on = {plugin.id for plugin in enabled_plugins(project_root, env)}
    rows = []
    for plugin_id, entries in sorted(installed_entries(env).items()):
        for entry in entries:
            if entry.get("scope") == "user" or entry.get("projectPath") == str(project_root):
                rows.append({"id": plugin_id, **entry, "enabled": plugin_id in on})
    return rows
