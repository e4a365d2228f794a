"""/add-dir's question, as Claude Code asks it: add the directory for this session, add it and remember it (in the
project's .claude/settings.local.json), or not."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType

from agentui.frontends.tui.screens.yes_or_no import YesOrNoScreen


class AddDirScreen(YesOrNoScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,1,s", "answer('session')", show=False),
        Binding("2,r", "answer('remember')", show=False),
        Binding("n,3,escape", "answer(None)", show=False),
    ]

    def __init__(self, directory: str) -> None:
        super().__init__(
            "Add directory to workspace",
            directory,
            [
                "Its files can then be read, searched and (as the project's) edited, and commands may write there; "
                "its .git, .claude and other protected paths stay protected."
            ],
            "1 y  Yes, for this session\n2 r  Yes, and remember this directory\n3 n  No (Esc)",
        )
