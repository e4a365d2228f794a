"""Marketplaces: a `.claude-plugin/marketplace.json` (its name, and its plugins with where each comes from) in a
directory or a git repository. Added, listed and removed as Claude Code's `plugin marketplace` does: known ones in
`plugins/known_marketplaces.json`, git ones cloned to `plugins/marketplaces/<name>/` (a hosted marketplace.json
kept as `plugins/marketplaces/<name>.json`), and each declared in the
settings' `extraKnownMarketplaces`."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentui.core.extend.plugins.files import (
    PluginError,
    Scope,
    inside,
    marketplaces_file,
    now,
    plugins_dir,
    read_object,
    update_setting,
    write_object,
)
from agentui.core.extend.plugins.sources import clone, download, git_url, parse_source

MANIFEST = Path(".claude-plugin") / "marketplace.json"
NAME = re.compile(r"(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
"""A marketplace name that can name its clone: no `..` (as Claude Code), at most 100 characters."""


RESERVED = frozenset({
    "claude-code-marketplace", "claude-code-plugins", "claude-plugins-official", "anthropic-marketplace",
    "anthropic-plugins", "agent-skills", "anthropic-agent-skills", "life-sciences", "knowledge-work-plugins",
    "claude-for-legal", "claude-for-financial-services", "financial-services-plugins",
})  # fmt: skip
"""Names Claude Code keeps for Anthropic's own marketplaces (from github.com/anthropics/ only)."""
_LOOKS_OFFICIAL = re.compile(
    r"official[^a-z0-9]*(anthropic|claude)|(anthropic|claude)[^a-z0-9]*official"
    r"|^(anthropic|claude)[^a-z0-9]*(marketplace|plugins|official)",
    re.IGNORECASE,
)
_ANTHROPICS = re.compile(r"^(?:(?:https?|ssh|git(?:\+https?|\+ssh)?)://(?:[^@/]+@)?|git@)github\.com[:/]anthropics/",
                         re.IGNORECASE)  # fmt: skip


def official_name_problem(name: str, source: dict[str, Any]) -> str | None:
    """Why a marketplace may not take `name` from `source`, as Claude Code says it: a reserved name from anywhere but
    Anthropic's repositories, or a name made to look like one of them."""
    if name.lower() in RESERVED:
        repo = str(source.get("repo") or "") if source.get("source") == "github" else ""
        url = str(source.get("url") or "") if source.get("source") == "git" else ""
        if (repo.lower().startswith("anthropics/") or _ANTHROPICS.match(url)) and ".." not in f"{repo}{url}":
            return None
        return (f"The name '{name}' is reserved for official Anthropic marketplaces. Only repositories from "
                "'github.com/anthropics/' can use this name.")  # fmt: skip
    if _LOOKS_OFFICIAL.search(name):
        return "Marketplace name impersonates an official Anthropic/Claude marketplace."
    return None


@dataclass(frozen=True)
class Marketplace:
    name: str
    source: dict[str, Any]
    location: Path
    """Its directory (the one holding `.claude-plugin/`), or its marketplace.json for a file source."""

    @property
    def root(self) -> Path:
        """What its plugins' relative sources are relative to."""
        if self.location.is_file():
            parent = self.location.parent
            return parent.parent if parent.name == ".claude-plugin" else parent
        return self.location

    def manifest(self) -> dict[str, Any]:
        return read_manifest(self.location if self.location.is_file() else self.location / MANIFEST)

    def describe(self) -> str:
        where = self.source.get("path") or self.source.get("url") or self.source.get("repo") or ""
        return f"{self.name} ({self.source.get('source', '?')}: {where})"


def read_manifest(path: Path) -> dict[str, Any]:
    """A marketplace.json with its name and list of plugins; PluginError in one sentence otherwise."""
    if not path.is_file():
        raise PluginError(f"No marketplace manifest at {path}.")
    data = read_object(path)
    if not isinstance(data.get("name"), str) or not NAME.fullmatch(data["name"]):
        raise PluginError(f"{path} does not give the marketplace a usable name (letters, digits, . _ -, at most 100).")
    if not isinstance(data.get("plugins"), list):
        raise PluginError(f"{path} has no list of plugins.")
    return data


def known_marketplaces(env: Mapping[str, str] | None = None) -> list[Marketplace]:
    found = []
    for name, entry in read_object(marketplaces_file(env)).items():
        location = entry.get("installLocation") if isinstance(entry, dict) else None
        if isinstance(entry, dict) and isinstance(entry.get("source"), dict) and isinstance(location, str) and location:
            found.append(Marketplace(name, entry["source"], Path(location)))  # (what is not in its shape left out)
    return found


def marketplace(name: str, env: Mapping[str, str] | None = None) -> Marketplace:
    for known in known_marketplaces(env):
        if known.name == name:
            return known
    raise PluginError(f"No marketplace named {name} is known; add it with `plugin marketplace add`.")


def add_marketplace(
    text: str, cwd: Path, env: Mapping[str, str] | None = None, scope: Scope = "user", project_root: Path | None = None
) -> Marketplace:
    """Add the marketplace `text` names (a path, a git URL, owner/repo), declared in `scope`'s settings."""
    source = parse_source(text, cwd)
    if source["source"] == "url":  # (kept as plugins/marketplaces/<name>.json, as Claude Code keeps it)
        staging = plugins_dir(env) / "marketplaces" / ".adding.json"
        download(source["url"], {}, staging)
        try:
            name = _allowed(read_manifest(staging)["name"], source)
        except PluginError:
            staging.unlink(missing_ok=True)
            raise
        location = plugins_dir(env) / "marketplaces" / f"{name}.json"
        staging.replace(location)
    elif (url := git_url(source)) is not None:
        staging = plugins_dir(env) / "marketplaces" / ".adding"
        clone(url, source.get("ref"), staging)
        try:
            name = _allowed(read_manifest(staging / MANIFEST)["name"], source)
        except PluginError:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        location = plugins_dir(env) / "marketplaces" / name
        shutil.rmtree(location, ignore_errors=True)
        staging.rename(location)
    else:
        location = Path(source["path"])
        name = _allowed(read_manifest(location if location.is_file() else location / MANIFEST)["name"], source)
    known = read_object(marketplaces_file(env))
    known[name] = {"source": source, "installLocation": str(location), "lastUpdated": now()}
    write_object(marketplaces_file(env), known)
    update_setting(scope, project_root or cwd, "extraKnownMarketplaces", name, {"source": source}, env)
    return Marketplace(name, source, location)


def _allowed(name: str, source: dict[str, Any]) -> str:
    if (problem := official_name_problem(name, source)) is not None:
        raise PluginError(problem)
    return name


def update_marketplace(name: str, env: Mapping[str, str] | None = None) -> Marketplace:
    """Fetch a git marketplace again (a folder one is read where it is); its manifest must still read."""
    market = marketplace(name, env)
    fetched = market.source.get("source") == "url" or git_url(market.source) is not None
    if fetched and not _kept_here(market.location, env):
        raise PluginError(f"The {name} marketplace is kept at {market.location}, not in agentui's and Claude Code's "
                          f"{plugins_dir(env) / 'marketplaces'}, so it was not replaced there.")  # fmt: skip
    if market.source.get("source") == "url":
        staging = plugins_dir(env) / "marketplaces" / ".updating.json"
        download(str(market.source.get("url")), {}, staging)
        try:
            read_manifest(staging)
        except PluginError:
            staging.unlink(missing_ok=True)
            raise
        staging.replace(market.location)
    elif (url := git_url(market.source)) is not None:
        staging = plugins_dir(env) / "marketplaces" / ".updating"
        clone(url, market.source.get("ref"), staging)
        try:
            read_manifest(staging / MANIFEST)
        except PluginError:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        shutil.rmtree(market.location, ignore_errors=True)
        staging.rename(market.location)
    market.manifest()
    known = read_object(marketplaces_file(env))
    known[name] = {**known.get(name, {}), "lastUpdated": now()}
    write_object(marketplaces_file(env), known)
    return market


def remove_marketplace(name: str, project_root: Path, env: Mapping[str, str] | None = None) -> None:
    """Forget the marketplace (and its clone), and its declaration in every settings file that has one."""
    from agentui.core.extend.plugins.files import SCOPES, settings_file

    known = read_object(marketplaces_file(env))
    declared = [s for s in SCOPES if name in (read_object(settings_file(s, project_root, env)).get(
        "extraKnownMarketplaces") or {})]  # fmt: skip
    if name not in known and not declared:
        raise PluginError(f"No marketplace named {name} is known.")
    entry = known.pop(name, None)
    write_object(marketplaces_file(env), known)
    location = _own_copy(entry, env)
    if location is not None and location.is_file():
        location.unlink()
    elif location is not None:
        shutil.rmtree(location, ignore_errors=True)
    for scope in declared:
        update_setting(scope, project_root, "extraKnownMarketplaces", name, None, env)


def _own_copy(entry: Any, env: Mapping[str, str] | None) -> Path | None:
    """The clone or kept file of a removed marketplace, to delete (a folder marketplace's own directory is the
    person's, and stays)."""
    given = Path(str(entry.get("installLocation", ""))) if isinstance(entry, dict) else None
    return given if given is not None and _kept_here(given, env) and given.exists() else None


def _kept_here(location: Path, env: Mapping[str, str] | None) -> bool:
    """`location` names a clone or kept file directly in `plugins/marketplaces/`, really there (not through a link):
    never what an `installLocation` with `..` or a link in it reaches elsewhere, to be deleted or replaced."""
    clones = plugins_dir(env) / "marketplaces"
    if location.parent != clones or not NAME.fullmatch(location.name):
        return False
    real = inside(clones, location.name)
    return (real is None and not os.path.lexists(location)) or real == Path(os.path.realpath(clones)) / location.name


def listed_plugin(market: Marketplace, plugin: str) -> dict[str, Any]:
    """The marketplace's entry for `plugin`."""
    for entry in market.manifest()["plugins"]:
        if isinstance(entry, dict) and entry.get("name") == plugin:
            return entry
    raise PluginError(f"Plugin {plugin} is not in the {market.name} marketplace.")


def marketplace_json(markets: list[Marketplace]) -> str:
    """As `claude plugin marketplace list --json` prints them."""
    rows = [{"name": m.name, **m.source, "installLocation": str(m.location)} for m in markets]
    return json.dumps(rows, indent=2)
