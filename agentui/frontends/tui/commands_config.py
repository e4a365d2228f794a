"""/config: the settings agentui honours, each with its value and where it comes from, changed from the keyboard
(`screens/config.py` draws them). A change is saved where the setting is read from and takes effect at once: the
theme on screen, the mode and the model in the status bar and the next request, verbose output in the next blocks."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentui.frontends.tui.slash_command import SlashCommand

if TYPE_CHECKING:
    from agentui.api import Conversation, Preference
    from agentui.frontends.tui.host import AppHost


class SettingsPanel:
    """What /config shows and does for one conversation: its rows (the theme, which the app keeps, first; room for
    more, such as the prompt's vim mode), and a change to one of them."""

    def __init__(self, app: AppHost, conversation: Conversation) -> None:
        self.app = app
        self.conversation = conversation

    def rows(self) -> list[Preference]:
        from agentui.api import Preference, preferences
        from agentui.frontends.tui.themes import remembered_theme

        theme = Preference(
            "theme",
            "Theme",
            self.app.theme,
            "agentui config" if remembered_theme(self.app.env) == self.app.theme else "default",
            "choice",
            tuple(sorted(self.app.available_themes)),
        )
        return [theme, *preferences(self.conversation, self.app.env)]

    def change(self, row: Preference, value: str | bool) -> str:
        """Save and apply `value`; the sentence to show. Raises PreferenceError (one sentence, nothing written)."""
        from agentui.api import ConfigError, PreferenceError, save_config_value, set_preference

        app, conversation = self.app, self.conversation
        if row.key == "theme":
            app.theme = str(value)
            try:
                path = save_config_value("theme", value, app.env)
            except (ConfigError, OSError) as exc:
                raise PreferenceError(f"Theme set for now, but it could not be saved: {exc}") from None
            return f"Theme set to {value}; saved to {path}."
        said = set_preference(conversation, row.key, value, app.env)
        match row.key:
            case "defaultMode" | "model":
                app.status.set(mode=conversation.mode, model=conversation.model)
            case "verbose":
                app.view.verbose = bool(value)
            case _:
                app.status_line.changed()  # (thinking is in what a status line is told)
        return said


class Config(SlashCommand):
    name, description = "config", "Show and change the settings: theme, permission mode, model, compaction, thinking"

    async def run(self, app: AppHost, arguments: str) -> None:
        from agentui.frontends.tui.screens.config import ConfigScreen

        if (conversation := app.conversation) is None:
            app.say("/config needs an open conversation; /theme switches the theme meanwhile.", "warning")
            return
        app.push_screen(ConfigScreen(SettingsPanel(app, conversation)))
