"""Installing a plugin from a known marketplace as Claude Code does: a copy of it under
`plugins/cache/<marketplace>/<plugin>/<version>/`, an entry in `plugins/installed_plugins.json` (version 2: a list
per `name@marketplace`, one entry per scope), and `enabledPlugins` in the scope's settings file; uninstalling,
enabling and disabling it likewise."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentui.core.extend.plugins.files import (
    PluginError,
    Scope,
    inside,
    installed_file,
    now,
    plugins_dir,
    read_object,
    update_setting,
    write_object,
)
from agentui.core.extend.plugins.marketplaces import Marketplace, known_marketplaces, listed_plugin, marketplace

_SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")


def resolve(spec: str, env: Mapping[str, str] | None = None) -> tuple[str, Marketplace]:
    """`name@marketplace` (or a name only one known marketplace lists) as the plugin's name and its marketplace."""
    name, _, market_name = spec.strip().partition("@")
    if not _SAFE.fullmatch(name):
        raise PluginError(f"“{spec}” does not name a plugin: write name@marketplace.")
    if market_name:
        return name, marketplace(market_name, env)
    holding = []
    for market in known_marketplaces(env):
        try:
            listed_plugin(market, name)
        except PluginError:
            continue
        holding.append(market)
    if len(holding) != 1:
        where = "no known marketplace lists it" if not holding else "several marketplaces list it"
        raise PluginError(f"Plugin {name} cannot be installed by its name alone ({where}): write name@marketplace.")
    return name, holding[0]


def installed_entries(env: Mapping[str, str] | None = None) -> dict[str, list[dict[str, Any]]]:
    """`installed_plugins.json`'s installs of each plugin id (what is not in its shape left out)."""
    plugins = read_object(installed_file(env)).get("plugins")
    if not isinstance(plugins, dict):
        return {}
    return {key: [e for e in value if isinstance(e, dict)] for key, value in plugins.items() if isinstance(value, list)}


def install_plugin(spec: str, scope: Scope, project_root: Path, env: Mapping[str, str] | None = None) -> str:
    """Install and enable the plugin; its id (`name@marketplace`)."""
    name, market = resolve(spec, env)
    entry = listed_plugin(market, name)
    plugin_id = f"{name}@{market.name}"
    fetched = _fetch(entry, market, plugins_dir(env) / "cache" / ".fetching")
    try:
        manifest = _plugin_manifest(fetched)
        version = str(manifest.get("version") or entry.get("version") or "unknown")
        if not _SAFE.fullmatch(version):
            raise PluginError(f"Plugin {plugin_id} gives a version ({version!r}) that cannot name a directory.")
        where = plugins_dir(env) / "cache" / market.name / name / version
        shutil.rmtree(where, ignore_errors=True)
        where.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(fetched, where, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    finally:
        if fetched.is_relative_to(plugins_dir(env) / "cache" / ".fetching"):
            shutil.rmtree(plugins_dir(env) / "cache" / ".fetching", ignore_errors=True)
    record = {"scope": scope, "installPath": str(where), "version": version, "installedAt": now(), "lastUpdated": now()}
    if scope != "user":
        record["projectPath"] = str(project_root)
    data = read_object(installed_file(env))
    plugins = {**installed_entries(env)}
    kept = [e for e in plugins.get(plugin_id, []) if not _same_place(e, scope, project_root)]
    earlier = next((e for e in plugins.get(plugin_id, []) if _same_place(e, scope, project_root)), None)
    if earlier is not None:
        record["installedAt"] = str(earlier.get("installedAt") or record["installedAt"])
    plugins[plugin_id] = [*kept, record]
    write_object(installed_file(env), {**data, "version": 2, "plugins": plugins})
    update_setting(scope, project_root, "enabledPlugins", plugin_id, True, env)
    return plugin_id


def uninstall_plugin(spec: str, scope: Scope, project_root: Path, env: Mapping[str, str] | None = None) -> str:
    plugin_id = _installed_id(spec, env)
    plugins = installed_entries(env)
    here = [e for e in plugins[plugin_id] if _same_place(e, scope, project_root)]
    if not here:
        raise PluginError(f"Plugin {plugin_id} is not installed in {scope} scope.")
    rest = [e for e in plugins[plugin_id] if not _same_place(e, scope, project_root)]
    if rest:
        plugins[plugin_id] = rest
    else:
        del plugins[plugin_id]
    write_object(installed_file(env), {**read_object(installed_file(env)), "version": 2, "plugins": plugins})
    update_setting(scope, project_root, "enabledPlugins", plugin_id, None, env)
    still = {str(e.get("installPath")) for entries in plugins.values() for e in entries}
    for entry in here:
        if str(entry.get("installPath")) not in still and (copy := _cached_copy(entry, env)) is not None:
            shutil.rmtree(copy, ignore_errors=True)
    return plugin_id


def _cached_copy(entry: Mapping[str, Any], env: Mapping[str, str] | None) -> Path | None:
    """The install's copy to delete: a `cache/<marketplace>/<plugin>/<version>` directory really there, never what
    an `installPath` with `..` or a link along it reaches elsewhere."""
    cache = plugins_dir(env) / "cache"
    given = Path(str(entry.get("installPath", "")))
    if not given.is_absolute() or not given.is_relative_to(cache):
        return None
    parts = given.relative_to(cache).parts
    copy = inside(cache, given.relative_to(cache))
    real = Path(os.path.realpath(cache)).joinpath(*parts)
    shaped = len(parts) == 3 and all(_SAFE.fullmatch(part) for part in parts)
    return copy if shaped and copy == real and copy.is_dir() else None


def set_enabled(
    spec: str, enabled: bool, scope: Scope, project_root: Path, env: Mapping[str, str] | None = None
) -> str:
    plugin_id = _installed_id(spec, env)
    update_setting(scope, project_root, "enabledPlugins", plugin_id, enabled, env)
    return plugin_id


def _installed_id(spec: str, env: Mapping[str, str] | None) -> str:
    plugins = installed_entries(env)
    if "@" in spec:
        if spec.strip() not in plugins:
            raise PluginError(f"Plugin {spec.strip()} is not installed.")
        return spec.strip()
    matches = [plugin_id for plugin_id in plugins if plugin_id.partition("@")[0] == spec.strip()]
    if len(matches) != 1:
        raise PluginError(f"Plugin {spec.strip()} is {'not installed' if not matches else 'ambiguous'}: "
                          "write name@marketplace.")  # fmt: skip
    return matches[0]


def _same_place(entry: Mapping[str, Any], scope: Scope, project_root: Path) -> bool:
    if entry.get("scope") != scope:
        return False
    return scope == "user" or entry.get("projectPath") == str(project_root)


def _plugin_manifest(root: Path) -> dict[str, Any]:
    path = root / ".claude-plugin" / "plugin.json"
    return read_object(path) if path.exists() else {}


def _fetch(entry: Mapping[str, Any], market: Marketplace, staging: Path) -> Path:
    """The plugin's files: a directory of the marketplace's, or a clone for a git or github source."""
    from agentui.core.extend.plugins.sources import clone, git_url

    source = entry.get("source")
    if isinstance(source, str) and market.source.get("source") == "url":
        raise PluginError(f"The {market.name} marketplace is a file fetched from a URL, with no plugin directories of "
                          f"its own, so {entry.get('name')} needs a git source there.")  # fmt: skip
    if isinstance(source, str):
        if not source.startswith("./") and source not in (".", "./"):
            raise PluginError(f"The {market.name} marketplace gives {entry.get('name')} a source ({source}) that is "
                              "not a path starting with ./ inside it.")  # fmt: skip
        path = inside(market.root, source)
        if path is None or not path.is_dir():
            raise PluginError(f"The plugin directory {source} is not a directory inside the {market.name} marketplace.")
        return path
    if isinstance(source, dict):
        kind = source.get("source")
        url = git_url(source) or (str(source["url"]) if kind in ("url", "git-subdir") and source.get("url") else None)
        if url is not None:
            clone(url, source.get("ref"), staging)
            sub = inside(staging, str(source.get("path") or "."))
            if sub is None or not sub.is_dir():
                raise PluginError(f"The plugin's path {source.get('path')} is not a directory in {url}.")
            return sub
    raise PluginError(f"The {market.name} marketplace gives {entry.get('name')} a source agentui cannot fetch "
                      f"({source!r}).")  # fmt: skip
