"""`plugin ...` as Claude Code's `claude plugin` takes it, for `agentui plugin` and the app's `/plugin`: the words
after `plugin` in, the text to show out (PluginError, one sentence, for anything that cannot be done)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from agentui.core.extend.plugins.files import SCOPES, PluginError, Scope

USAGE = (
    "Usage: plugin marketplace add <source> | marketplace list | marketplace update [name] | "
    "marketplace remove <name> | install <name@marketplace> | uninstall <name@marketplace> | "
    "enable <name@marketplace> | disable <name@marketplace> | list "
    "(add --scope user|project|local to change another settings file)"
)
TICK = "✔"


def plugin_command(words: Sequence[str], cwd: Path, env: Mapping[str, str] | None = None) -> str:
    """Do what `words` say (`marketplace add ./mkt`, `install hello@mkt --scope project`...) for the project at
    `cwd`; what to show the person."""
    rest, scope, as_json = _options(list(words))
    match rest:
        case ["marketplace", "add", source]:
            from agentui.core.extend.plugins.marketplaces import add_marketplace

            market = add_marketplace(source, cwd, env, scope or "user", cwd)
            return f"{TICK} Successfully added marketplace: {market.name} (declared in {scope or 'user'} settings)"
        case ["marketplace", "list"]:
            return _marketplaces(env, as_json)
        case ["marketplace", "update", *names]:
            from agentui.core.extend.plugins.marketplaces import known_marketplaces, update_marketplace

            chosen = names or [market.name for market in known_marketplaces(env)]
            return "\n".join(
                f"{TICK} Successfully updated marketplace: {update_marketplace(n, env).name}" for n in chosen
            )
        case ["marketplace", "remove" | "rm", name]:
            from agentui.core.extend.plugins.marketplaces import remove_marketplace

            remove_marketplace(name, cwd, env)
            return f"{TICK} Successfully removed marketplace: {name}"
        case ["install" | "i", spec]:
            from agentui.core.extend.plugins.installing import install_plugin

            plugin_id = install_plugin(spec, scope or "user", cwd, env)
            return f"{TICK} Successfully installed plugin: {plugin_id} (scope: {scope or 'user'})"
        case ["uninstall" | "remove", spec]:
            from agentui.core.extend.plugins.installing import uninstall_plugin

            plugin_id = uninstall_plugin(spec, scope or "user", cwd, env)
            return f"{TICK} Successfully uninstalled plugin: {plugin_id} (scope: {scope or 'user'})"
        case ["enable" | "disable" as verb, spec]:
            from agentui.core.extend.plugins.installing import set_enabled

            plugin_id = set_enabled(spec, verb == "enable", scope or "user", cwd, env)
            return f"{TICK} Successfully {verb}d plugin: {plugin_id} (scope: {scope or 'user'})"
        case ["list"]:
            return _plugins(cwd, env, as_json)
    raise PluginError(USAGE)


def _options(words: list[str]) -> tuple[list[str], Scope | None, bool]:
    scope: str | None = None
    as_json = False
    rest = []
    at = 0
    while at < len(words):
        word = words[at]
        if word in ("--scope", "-s") and at + 1 < len(words):
            scope, at = words[at + 1], at + 2
            continue
        if word.startswith("--scope="):
            scope = word.partition("=")[2]
        elif word == "--json":
            as_json = True
        else:
            rest.append(word)
        at += 1
    if scope is not None and scope not in SCOPES:
        raise PluginError(f"Invalid scope: {scope}. Must be one of: user, project, local.")
    return rest, scope, as_json


def _marketplaces(env: Mapping[str, str] | None, as_json: bool) -> str:
    from agentui.core.extend.plugins.marketplaces import known_marketplaces, marketplace_json

    markets = known_marketplaces(env)
    if as_json:
        return marketplace_json(markets)
    if not markets:
        return "No marketplaces configured"
    lines = ["Configured marketplaces:", ""]
    for market in markets:
        kind, where = market.source.get("source"), market.describe().partition(" (")[2].partition(": ")[2][:-1]
        shown = {"github": "GitHub", "git": "Git", "url": "URL", "directory": "Directory", "file": "File"}
        lines += [f"  ❯ {market.name}", f"    Source: {shown.get(str(kind), str(kind))} ({where})", ""]
    return "\n".join(lines).rstrip()


def _plugins(cwd: Path, env: Mapping[str, str] | None, as_json: bool) -> str:
    from agentui.core.extend.plugins.enabled import plugins_json

    rows = plugins_json(env, cwd)
    if as_json:
        return json.dumps(rows, indent=2)
    if not rows:
        return "No plugins installed. Use `plugin install` to install a plugin."
    lines = ["Installed plugins:", ""]
    for row in rows:
        status = f"{TICK} enabled" if row["enabled"] else "✘ disabled"
        lines += [f"  ❯ {row['id']}", f"    Version: {row.get('version', '?')}", f"    Scope: {row.get('scope')}",
                  f"    Status: {status}", ""]  # fmt: skip
    return "\n".join(lines).rstrip()
