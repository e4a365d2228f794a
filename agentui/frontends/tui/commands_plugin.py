"""/plugin: marketplaces and plugins as `agentui plugin` (and Claude Code's `claude plugin`) takes them — `marketplace
add|list|remove`, `install|uninstall|enable|disable name@marketplace` with `--scope`, `list` — in Claude Code's files,
so both tools see the same plugins. A git marketplace is cloned on a worker, so the screen stays live."""

from __future__ import annotations

import asyncio
import shlex
from typing import TYPE_CHECKING

from agentui.frontends.tui.slash_command import SlashCommand

if TYPE_CHECKING:
    from agentui.frontends.tui.host import AppHost

CHANGES = ("add", "remove", "rm", "install", "i", "uninstall", "enable", "disable")


class Plugin(SlashCommand):
    name, description = "plugin", "Manage plugins and marketplaces: install name@marketplace, marketplace add, list"

    async def run(self, app: AppHost, arguments: str) -> None:
        app.run_worker(self._do(app, arguments), group="plugin", exit_on_error=False)

    async def _do(self, app: AppHost, arguments: str) -> None:
        from agentui.api import PluginError, load_custom_commands, plugin_command

        try:
            words = shlex.split(arguments) or ["list"]
            said = await asyncio.to_thread(plugin_command, words, app.cwd, app.env)
        except ValueError as exc:  # (shlex: an unclosed quote)
            app.say(f"/plugin could not read its arguments ({exc}).", "error")
            return
        except PluginError as exc:
            app.say(str(exc), "error")
            return
        except OSError as exc:
            app.say(f"The plugin files could not be written ({exc.strerror or exc}).", "error")
            return
        app.say(said)
        if any(word in CHANGES for word in words[:2]):
            app.custom_commands = load_custom_commands(app.cwd, app.env)  # (its commands at once; the rest next time)
            app.say("Restart agentui to load the plugins' agents, skills, hooks and MCP servers.")
