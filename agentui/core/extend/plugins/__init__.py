"""Plugins and marketplaces in Claude Code's format, sharing its files in its configuration directory: marketplaces
(`plugins/known_marketplaces.json`), installed plugins (`plugins/installed_plugins.json`, copies under
`plugins/cache/`), and the settings' `enabledPlugins` and `extraKnownMarketplaces` in the user, project or local
settings file. `enabled` says which plugins are on and what each brings (commands, agents, skills, hooks, MCP
servers) for the loaders that read the project's own."""
