"""What a slash command is (`SlashCommand`: a name, a line for /help, and what it does in the app), and what commands
share: the conversation when it is idle, a path as the person reads it best, what to say when there is no model. The
built-in set is `slash_commands`;
a command of more than a few lines lives in a module of its own beside it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from agentui.api import Conversation
    from agentui.frontends.tui.host import AppHost

CHECKS_GROUP = "checks"
"""The workers that run /doctor's and /status's checks (stopped by Esc and Ctrl+C as a turn is)."""


class SlashCommand:
    name: ClassVar[str]
    description: ClassVar[str]

    async def run(self, app: AppHost, arguments: str) -> None:
        raise NotImplementedError


def idle_conversation(app: AppHost, command: str) -> Conversation | None:
    """The open conversation if it is not working (else a sentence says to wait), for a command that changes it."""
    if (conversation := app.conversation) is not None and conversation.running:
        app.say(f"The agent is working; /{command} once it has finished (or press Esc).", "warning")
        return None
    return conversation


def no_conversation(app: AppHost, what: str) -> str:
    """One sentence for a command that needs the conversation when none is open ("no context to show")."""
    why = "No model is configured" if app.launch is None else "No conversation is open"
    return f"{why}, so there is no {what} (/doctor checks the setup)."


def shown_path(path: Path, root: Path) -> str:
    """`path` as the person reads it best: relative to the project, or under ~, or whole (a long absolute path
    wraps badly at 80 columns)."""
    for base, prefix in ((root, ""), (Path.home(), "~/")):
        try:
            return prefix + path.relative_to(base).as_posix()
        except ValueError:
            continue
    return str(path)


def no_model_help(app: AppHost) -> str:
    """Why no conversation could open, and how to configure a model (the app says it at start, commands again)."""
    from agentui.api import config_dir

    config = config_dir(app.env) / "config.json"
    example = '{"provider": "openai", "base_url": "http://127.0.0.1:11434/v1", "model": "qwen2.5-coder"}'
    return (
        f"{app.problem or 'No model is configured.'}\nOr write {config}, for example {example}, "
        "and start agentui again."
    )
