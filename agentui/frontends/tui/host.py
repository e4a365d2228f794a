"""AppHost: what the app's parts (the conversation view, the permission queue, the slash commands, the screens, the
clipboard and the signal handler) see of the app. They import this, the app imports them: no circle."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from textual.app import App

if TYPE_CHECKING:
    from agentui.api import Conversation, CustomCommand, Launch, SessionRequest
    from agentui.api.events import ElicitationRequest, PermissionRequest, PermissionResolved
    from agentui.api.messages import ImageBlock, Message
    from agentui.frontends.tui.widgets.prompt_input import PromptInput
    from agentui.frontends.tui.widgets.status_bar import StatusBar
    from agentui.frontends.tui.widgets.tool_block import ToolBlock
    from agentui.frontends.tui.widgets.transcript import Transcript


class Questions(Protocol):
    """The permission questions, asked one at a time."""

    def ask(self, request: PermissionRequest | ElicitationRequest | PermissionResolved) -> None: ...

    def cancel_all(self) -> None: ...


class View(Protocol):
    """The conversation on screen."""

    conversation: Conversation | None
    verbose: bool
    ending: bool
    """The person has ended the run and the engine has not yet said it ended."""

    def tool(self, tool_call_id: str) -> ToolBlock | None: ...

    def say(self, message: str, level: str = "info") -> None: ...

    def mode_changed(self, mode: str) -> None: ...

    def show_rewound(self, messages: list[Message], details: dict[str, dict[str, Any]]) -> None: ...


class StatusLine(Protocol):
    """The settings' status line command, run as the conversation changes."""

    def changed(self) -> None:
        """Something it is told of changed: run it again (soon)."""
        ...


class AppHost(App[None]):
    """The app as its parts know it; `AgentApp` is the one that is run."""

    launch: Launch | None
    problem: str | None
    env: dict[str, str] | None
    ended_by: int | None
    """The signal that ended the app, if one did."""
    custom_commands: dict[str, CustomCommand]
    chosen_model: str | None
    """What /model was given last: a conversation opened afterwards (/clear, /resume) uses it too."""
    transcript: Transcript
    prompt_input: PromptInput
    status: StatusBar
    status_line: StatusLine
    permissions: Questions
    view: View

    @property
    def conversation(self) -> Conversation | None:
        raise NotImplementedError

    @property
    def cwd(self) -> Path:
        """The directory agentui works in (the launch's; where it was started when there is no launch)."""
        raise NotImplementedError

    def say(self, message: str, level: str = "info") -> None:
        """A notice in the transcript."""
        raise NotImplementedError

    def send(self, text: str, images: Sequence[ImageBlock] = ()) -> None:
        """A prompt to the conversation, as if typed."""
        raise NotImplementedError

    async def open_conversation(self, request: SessionRequest) -> None:
        """Open (or resume) a session in place of the one open now."""
        raise NotImplementedError

    async def quit_now(self) -> None:
        """Close the conversation and end the app."""
        raise NotImplementedError

    def redraw(self) -> None:
        """Write the whole screen again, whatever the terminal shows now."""
        raise NotImplementedError
