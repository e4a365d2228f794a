"""Enabled plugins' hooks (`hooks/hooks.json`, or what `plugin.json` gives): run only while the plugin is enabled, a
plugin the project's own settings turned on only once the project is trusted (as the project's own hooks), each
with `${CLAUDE_PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_DATA}` written into its command and set in its environment, as
Claude Code runs them (but a directory whose name a shell would run as code is left for the shell to expand)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path

from agentui.core.extend.hooks import HookSpec, specs_from


def plugin_hook_specs(project_root: Path, env: Mapping[str, str] | None, *, trusted: bool) -> list[HookSpec]:
    from pydantic import ValidationError

    from agentui.core.claude_settings import SettingsFile, SettingsSource
    from agentui.core.extend.plugins.enabled import enabled_plugins, inline_or_files

    specs: list[HookSpec] = []
    for plugin in enabled_plugins(project_root, env):
        if plugin.from_project and not trusted:
            continue
        for data, source in inline_or_files(plugin, "hooks", "hooks/hooks.json"):
            try:
                settings = SettingsFile.model_validate({"hooks": data.get("hooks", data)})
            except (ValidationError, AttributeError):
                continue  # (a hooks file that is not Claude Code's shape brings no hooks)
            for spec in specs_from([SettingsSource("user", Path(source), settings)], trusted=True):
                command = plugin.expand_for_shell(spec.command) if spec.kind == "command" else spec.command
                variables = tuple(plugin.variables().items())
                specs.append(dataclasses.replace(spec, command=command, source="plugin", env=variables))
    return specs
