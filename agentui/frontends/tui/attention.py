"""Getting the person's attention when the terminal is not in focus (they are in another window): the bell, and
a desktop notification where the terminal shows one (OSC 777 for foot, rxvt, Ghostty; OSC 9 for iTerm2, Windows
Terminal, WezTerm, kitty); terminals that know neither ignore them."""

from __future__ import annotations

from typing import Any

from textual.app import App


def call_attention(app: App[Any], message: str) -> None:
    if app.app_focus:
        return
    app.bell()
    driver = app._driver  # (Textual offers no public way to write an escape sequence to the terminal)
    if driver is not None:
        text = message.replace("\x1b", "").replace("\x07", "").replace(";", ",")
        driver.write(f"\x1b]777;notify;agentui;{text}\x07\x1b]9;agentui: {text}\x07")
